"""Widgets: the dock panel and the settings dialog."""
