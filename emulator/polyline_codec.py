"""Google's encoded polyline algorithm (precision 5 by default)."""

from __future__ import annotations

from collections.abc import Iterable


def _encode_value(v: int) -> str:
    v = ~(v << 1) if v < 0 else v << 1
    out = []
    while v >= 0x20:
        out.append(chr((0x20 | (v & 0x1F)) + 63))
        v >>= 5
    out.append(chr(v + 63))
    return "".join(out)


def encode(points: Iterable[tuple[float, float]], precision: int = 5) -> str:
    """Encode (lat, lon) pairs as a polyline string."""
    factor = 10**precision
    prev_lat = prev_lon = 0
    parts = []
    for lat, lon in points:
        ilat, ilon = int(round(lat * factor)), int(round(lon * factor))
        parts.append(_encode_value(ilat - prev_lat))
        parts.append(_encode_value(ilon - prev_lon))
        prev_lat, prev_lon = ilat, ilon
    return "".join(parts)


def decode(text: str, precision: int = 5) -> list[tuple[float, float]]:
    """Decode a polyline string into (lat, lon) pairs."""
    factor = 10**precision
    coords, index, lat, lon = [], 0, 0, 0
    while index < len(text):
        deltas = []
        for _ in range(2):
            shift = result = 0
            while True:
                b = ord(text[index]) - 63
                index += 1
                result |= (b & 0x1F) << shift
                shift += 5
                if b < 0x20:
                    break
            deltas.append(~(result >> 1) if result & 1 else result >> 1)
        lat += deltas[0]
        lon += deltas[1]
        coords.append((lat / factor, lon / factor))
    return coords
