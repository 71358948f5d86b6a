"""Longitude bookkeeping: unwrap rings across the antimeridian and split them back."""

from __future__ import annotations

import math
from typing import Any, List, Sequence

from shapely.geometry import MultiPolygon, Polygon, box
from shapely.ops import unary_union
from shapely.validation import explain_validity

from .geo import polygons_of

try:  # shapely >= 1.8
    from shapely.validation import make_valid as _make_valid
except ImportError:  # pragma: no cover - very old shapely
    _make_valid = None


def make_valid(geom: Any) -> Any:
    """A valid version of geom, keeping only its polygonal parts."""
    if geom.is_valid:
        return geom
    fixed = _make_valid(geom) if _make_valid is not None else geom.buffer(0)
    polys = polygons_of(fixed)
    if not polys:
        raise ValueError(f"invalid polygon: {explain_validity(geom)}")
    return unary_union(polys)


def unwrap_lons(lons: Sequence[float]) -> List[float]:
    """Longitudes made continuous: no step between neighbours exceeds 180 degrees."""
    out: List[float] = []
    for lon in lons:
        if out:
            prev = out[-1]
            while lon - prev > 180.0:
                lon -= 360.0
            while lon - prev < -180.0:
                lon += 360.0
        out.append(lon)
    return out


def _shift_near(values: List[float], ref: float) -> float:
    """Multiple of 360 that brings the mean of values closest to ref."""
    if not values:
        return 0.0
    mean = sum(values) / len(values)
    return 360.0 * round((ref - mean) / 360.0)


def _unwrap_ring(coords: Sequence[Sequence[float]], ref: float) -> List[tuple]:
    lons = unwrap_lons([c[0] for c in coords])
    shift = _shift_near(lons, ref)
    return [(lon + shift, c[1]) for lon, c in zip(lons, coords)]


def _unwrap_polygon(poly: Polygon, ref: float) -> Polygon:
    shell = _unwrap_ring(list(poly.exterior.coords), ref)
    shell_ref = sum(c[0] for c in shell) / len(shell)
    holes = [_unwrap_ring(list(r.coords), shell_ref) for r in poly.interiors]
    return Polygon(shell, holes)


def circular_centre(lons: Sequence[float]) -> float:
    """A longitude in the middle of the smallest arc holding all given longitudes."""
    if not lons:
        return 0.0
    pts = sorted(((lon + 180.0) % 360.0) - 180.0 for lon in lons)
    gaps = [(pts[(i + 1) % len(pts)] - pts[i]) % 360.0 for i in range(len(pts))]
    if len(pts) == 1:
        return pts[0]
    widest = max(range(len(pts)), key=lambda i: gaps[i])
    start = pts[(widest + 1) % len(pts)]
    span = 360.0 - gaps[widest]
    return ((start + span / 2.0 + 180.0) % 360.0) - 180.0


def unwrap(geom: Any, ref: float = None) -> Any:
    """Polygons with continuous longitudes near ref (may pass beyond ±180)."""
    polys = polygons_of(geom)
    if not polys:
        return geom
    if ref is None:
        centres = []
        for p in polys:
            lons = unwrap_lons([c[0] for c in p.exterior.coords])
            centres.append(sum(lons) / len(lons))
        ref = circular_centre(centres)
    parts = [_unwrap_polygon(p, ref) for p in polys]
    return parts[0] if len(parts) == 1 else MultiPolygon(parts)


def split_antimeridian(geom: Any) -> Any:
    """Cut an unwrapped geometry at ±180 and move each part into [-180, 180]."""
    from shapely import affinity

    parts = []
    minx, _, maxx, _ = geom.bounds
    kmin = math.floor((minx + 180.0) / 360.0)
    kmax = math.floor((maxx + 180.0) / 360.0)
    for k in range(kmin, kmax + 1):
        window = box(-180.0 + 360.0 * k, -90.0, 180.0 + 360.0 * k, 90.0)
        piece = geom.intersection(window) if (kmin != kmax) else geom
        if piece.is_empty:
            continue
        if k:
            piece = affinity.translate(piece, xoff=-360.0 * k)
        parts.extend(p for p in polygons_of(piece) if p.area > 0)
    if not parts:
        return Polygon()
    if len(parts) == 1:
        return parts[0]
    return MultiPolygon(parts)
