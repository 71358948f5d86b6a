"""Where things are: urban density and the regions where map features exist."""

from __future__ import annotations

import math

from emulator.util import hash_unit

# Known large cities make demo areas look right; the noise fills the rest of the world.
CITIES = (
    (13.40, 52.52), (2.35, 48.86), (-0.13, 51.51), (-74.0, 40.71), (-122.42, 37.77),
    (-118.24, 34.05), (-87.63, 41.88), (11.58, 48.14), (9.99, 53.55), (4.90, 52.37),
    (12.50, 41.90), (-3.70, 40.42), (16.37, 48.21), (21.01, 52.23), (-2.24, 53.48),
    (139.69, 35.69), (77.21, 28.61), (-46.63, -23.55), (151.21, -33.87), (28.98, 41.01),
)
CITY_RADIUS_KM = 12.0
NOISE_DEG = 0.05

# Rough boxes of the coverage of map features: (min lon, min lat, max lon, max lat).
US_BOX = (-125.0, 24.0, -66.0, 50.0)
EU_BOX = (-11.0, 35.0, 32.0, 71.0)
UK_BOX = (-8.7, 49.8, 1.8, 60.9)


def _in_box(lon: float, lat: float, box: tuple[float, float, float, float]) -> bool:
    return box[0] <= lon <= box[2] and box[1] <= lat <= box[3]


def feature_region(lon: float, lat: float) -> str | None:
    """Return "US", "UK" or "EU" where map features exist, else None."""
    if _in_box(lon, lat, US_BOX):
        return "US"
    ireland = lon < -6.0 and lat < 54.0
    france = lon > -1.0 and lat < 50.6
    if _in_box(lon, lat, UK_BOX) and not ireland and not france:
        return "UK"
    if _in_box(lon, lat, EU_BOX):
        return "EU"
    return None


def _node(seed: int, a: int, b: int) -> float:
    return hash_unit(seed, "urban", a, b)


def urbanity(seed: int, lon: float, lat: float) -> float:
    """Return a smooth urban share in [0, 1] for a place (1 = city centre)."""
    gx, gy = lon / NOISE_DEG, lat / NOISE_DEG
    x0, y0 = math.floor(gx), math.floor(gy)
    fx, fy = gx - x0, gy - y0
    fx, fy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
    top = _node(seed, x0, y0) * (1 - fx) + _node(seed, x0 + 1, y0) * fx
    bot = _node(seed, x0, y0 + 1) * (1 - fx) + _node(seed, x0 + 1, y0 + 1) * fx
    noise = top * (1 - fy) + bot * fy
    # Noise alone gives too many towns; keep only its highest quarter.
    value = max(0.0, (noise - 0.75) / 0.25) * 0.7
    coslat = math.cos(math.radians(lat))
    for clon, clat in CITIES:
        dx = (lon - clon) * 111.32 * coslat
        dy = (lat - clat) * 111.32
        d = math.hypot(dx, dy)
        if d < CITY_RADIUS_KM:
            value = max(value, 1.0 - (d / CITY_RADIUS_KM) ** 2 * 0.6)
    return min(1.0, value)
