"""Processing provider and algorithms: the engine of the plugin."""
