"""Google encoded polylines in (lon, lat) order, as the rest of the core uses."""

from __future__ import annotations

from typing import Iterable, List, Sequence, Tuple

import polyline as _polyline


def decode(encoded: str, precision: int = 5) -> List[Tuple[float, float]]:
    """Decode an encoded polyline into (lon, lat) pairs."""
    if not encoded:
        return []
    return [(float(lon), float(lat))
            for lat, lon in _polyline.decode(encoded, precision)]


def encode(coords_lonlat: Iterable[Sequence[float]], precision: int = 5) -> str:
    """Encode (lon, lat) pairs as a polyline string."""
    pairs = [(c[1], c[0]) for c in coords_lonlat]
    return _polyline.encode(pairs, precision) if pairs else ""
