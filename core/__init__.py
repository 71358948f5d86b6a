"""Widget-free core of Fleet Street: API clients, models, tiling and the fetch engine."""
