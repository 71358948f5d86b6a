"""Local emulator of the fleet API and the street-level data API (development only)."""
