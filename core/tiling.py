"""Split a query area into the fewest request tiles that each stay safely under 5 km².

The area is projected to a Lambert azimuthal equal-area projection centred on it, turned so
that its longest extent runs along x, and cut into n equal-area pieces: first into strips
across y whose areas are whole multiples of the piece area, then each strip along x. Every
cut is placed by bisection on the clipped area, so all tiles but rounding have the same area
and the count is ceil(area / tile size), whatever the shape.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Tuple

from pyproj import Transformer
from shapely import affinity
from shapely.geometry import MultiPolygon, box, mapping
from shapely.geometry.polygon import orient
from shapely.ops import transform

from .area import WGS84, QueryArea, densify, local_crs, plain_json
from .geo import geodesic_area_km2, polygons_of
from .lonlat import make_valid, split_antimeridian, unwrap

HARD_LIMIT_KM2 = 5.0
#: Largest tile accepted when the default margin would cost extra requests (2 % under).
TIGHT_MAX_KM2 = 4.9
_BISECT_STEPS = 48
DENSIFY_DEG = 0.0005
_CUT_SLACK = 0.998
_OVERLAP_M = 0.01
_CUT_TOLERANCE_M = 0.005
_CELL_STEP_M = 100.0


@dataclass
class Tile:
    """One request-sized part of a query area."""

    index: int
    geometry: Any
    area_km2: float

    @property
    def geojson(self) -> Dict[str, Any]:
        """GeoJSON Polygon/MultiPolygon body in [lon, lat], exterior rings counter-clockwise."""
        polys = [orient(p, 1.0) for p in polygons_of(self.geometry)]
        geom = polys[0] if len(polys) == 1 else MultiPolygon(polys)
        return plain_json(mapping(geom))


def tile_count(area_km2: float, max_km2: float = 4.5) -> Tuple[int, float]:
    """How many tiles an area needs and the size cap they are cut to."""
    if area_km2 <= 0:
        return 0, max_km2
    # Pieces are cut in a projection; keep them 0.1 % under the cap so measuring them on
    # the ellipsoid cannot tip one over.
    n = math.ceil(area_km2 / (max_km2 * _CUT_SLACK))
    n5 = math.ceil(area_km2 / HARD_LIMIT_KM2)
    tight = min(max(max_km2, TIGHT_MAX_KM2), HARD_LIMIT_KM2)
    n_tight = math.ceil(area_km2 / (tight * _CUT_SLACK))
    if n > 1.25 * n5 and n_tight < n:
        # The default margin would cost a request more than needed: use a tighter one.
        return n_tight, tight
    return n, max_km2


def _bisect(lo: float, hi: float, below: Callable[[float], float], target: float) -> float:
    """Largest x in [lo, hi] (to float precision) with below(x) <= target."""
    for _ in range(_BISECT_STEPS):
        mid = (lo + hi) / 2.0
        if hi - lo < _CUT_TOLERANCE_M or mid in (lo, hi):
            break
        if below(mid) <= target:
            lo = mid
        else:
            hi = mid
    return lo


def _oriented(geom: Any) -> Tuple[Any, float]:
    """geom rotated so its minimum rotated rectangle's long side lies along x."""
    rect = geom.minimum_rotated_rectangle
    if rect.geom_type != "Polygon":
        return geom, 0.0
    (x0, y0), (x1, y1), (x2, y2) = list(rect.exterior.coords)[:3]
    a = math.hypot(x1 - x0, y1 - y0)
    b = math.hypot(x2 - x1, y2 - y1)
    dx, dy = (x1 - x0, y1 - y0) if a >= b else (x2 - x1, y2 - y1)
    angle = math.degrees(math.atan2(dy, dx))
    return affinity.rotate(geom, -angle, origin=(0, 0)), angle


Box = Tuple[float, float, float, float]


def _cut(geom: Any, n: int, piece: float) -> List[Box]:
    """Boxes (in geom's frame) that cut geom into n pieces of about `piece` m² each."""
    minx, miny, maxx, maxy = geom.bounds
    width, height = max(maxx - minx, 1e-9), max(maxy - miny, 1e-9)
    pad = 0.01 * max(width, height) + 1.0
    x_min, x_max, y_min, y_max = minx - pad, maxx + pad, miny - pad, maxy + pad
    if n <= 1:
        return [(x_min, y_min, x_max, y_max)]
    # Strips so pieces come out roughly square: rows ≈ sqrt(n · height / width).
    rows = max(1, min(n, int(round(math.sqrt(n * height / width)))))
    counts = [n // rows + (1 if i < n % rows else 0) for i in range(rows)]
    boxes: List[Box] = []
    rest = geom
    y_lo = y_min
    for r, k in enumerate(counts):
        if r == len(counts) - 1:
            y, strip = y_max, rest
        else:

            def below_y(y: float, rest: Any = rest, y_lo: float = y_lo) -> float:
                return rest.intersection(box(x_min, y_lo, x_max, y)).area

            y = _bisect(y_lo, y_max, below_y, k * piece)
            strip = rest.intersection(box(x_min, y_lo, x_max, y))
            rest = rest.intersection(box(x_min, y, x_max, y_max))
        boxes.extend((x0, y_lo, x1, y) for x0, x1 in _cut_strip(strip, k, piece, x_min, x_max))
        y_lo = y
    return boxes


def _cut_strip(strip: Any, k: int, piece: float, x_min: float,
               x_max: float) -> List[Tuple[float, float]]:
    """x ranges that cut a strip into k pieces of about `piece` m² each."""
    if strip.is_empty:
        return []
    _, lo_y, _, hi_y = strip.bounds
    lo_y, hi_y = lo_y - 1.0, hi_y + 1.0
    out = []
    rest = strip
    x_lo = x_min
    for _ in range(k - 1):

        def below_x(x: float, rest: Any = rest, x_lo: float = x_lo) -> float:
            return rest.intersection(box(x_lo, lo_y, x, hi_y)).area

        x = _bisect(x_lo, x_max, below_x, piece)
        out.append((x_lo, x))
        rest = rest.intersection(box(x, lo_y, x_max, hi_y))
        x_lo = x
    out.append((x_lo, x_max))
    return out


def tile_area(area: QueryArea, max_km2: float = 4.5) -> List[Tile]:
    """Tiles under max_km2 (4.9 km² at most when that saves a request) covering the area."""
    if not 0 < max_km2 < HARD_LIMIT_KM2:
        raise ValueError("max_km2 must be between 0 and 5")
    n, cap = tile_count(area.area_km2, max_km2)
    if n <= 1:
        return [Tile(index=0, geometry=area.geometry, area_km2=area.area_km2)]
    src = area.unwrapped
    centre = src.centroid
    crs = local_crs(centre.x, centre.y, "laea")
    fwd = Transformer.from_crs(WGS84, crs, always_xy=True)
    inv = Transformer.from_crs(crs, WGS84, always_xy=True)
    # Edges straight in lon/lat bend in the projection: densify so both agree to millimetres.
    projected = make_valid(transform(fwd.transform, densify(src, DENSIFY_DEG)))
    rotated, angle = _oriented(projected)
    boxes = _cut(rotated, n, projected.area / n)
    tiles: List[Tile] = []
    for x0, y0, x1, y1 in boxes:
        # Each tile is the lon/lat area cut by its (slightly overlapping) cell, so the
        # tiles' union is the area itself, with no seam left between neighbours.
        cell = box(x0 - _OVERLAP_M, y0 - _OVERLAP_M, x1 + _OVERLAP_M, y1 + _OVERLAP_M)
        cell = densify(affinity.rotate(cell, angle, origin=(0, 0)) if angle else cell,
                        _CELL_STEP_M)
        region = unwrap(transform(inv.transform, cell), ref=centre.x)
        lonlat = src.intersection(region)
        geom = split_antimeridian(lonlat) if _crosses(lonlat) else lonlat
        polys = [p for p in polygons_of(geom) if p.area > 0]
        if not polys:
            continue
        geom = polys[0] if len(polys) == 1 else MultiPolygon(polys)
        size = geodesic_area_km2(geom)
        for sub in _enforce_cap(geom, size, cap):
            tiles.append(Tile(index=len(tiles), geometry=sub[0], area_km2=sub[1]))
    return tiles


def _crosses(geom: Any) -> bool:
    minx, _, maxx, _ = geom.bounds
    return minx < -180.0 or maxx > 180.0


def _enforce_cap(geom: Any, size: float, cap: float) -> List[Tuple[Any, float]]:
    """Halve a tile that measures over the cap (projection rounding); rarely needed."""
    if size <= cap:
        return [(geom, size)]
    minx, miny, maxx, maxy = geom.bounds
    if maxx - minx >= maxy - miny:
        mid = (minx + maxx) / 2.0
        halves = [box(minx - 1, miny - 1, mid, maxy + 1), box(mid, miny - 1, maxx + 1, maxy + 1)]
    else:
        mid = (miny + maxy) / 2.0
        halves = [box(minx - 1, miny - 1, maxx + 1, mid), box(minx - 1, mid, maxx + 1, maxy + 1)]
    out: List[Tuple[Any, float]] = []
    for h in halves:
        part = geom.intersection(h)
        polys = [p for p in polygons_of(part) if p.area > 0]
        if polys:
            g = polys[0] if len(polys) == 1 else MultiPolygon(polys)
            out.extend(_enforce_cap(g, geodesic_area_km2(g), cap))
    return out


__all__ = ["Tile", "tile_area", "tile_count"]
