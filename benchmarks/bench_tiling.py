"""Tiling: requests sent versus the minimum ceil(area / 5 km²) over shapes, sizes, places."""

from __future__ import annotations

import math
import time

from pyproj import Transformer
from shapely.geometry import LineString, Point, box
from shapely.ops import transform

from fleet_street.core.area import QueryArea, local_crs
from fleet_street.core.tiling import tile_area

TARGET = 1.25


def _metric(geom, lon: float, lat: float):
    inv = Transformer.from_crs(local_crs(lon, lat, "laea"), "EPSG:4326", always_xy=True)
    return transform(inv.transform, geom)


def _shapes(size_km: float):
    """(name, compact?, QueryArea) for one nominal size (side of a square in km)."""
    h = size_km * 500.0
    square = box(-h, -h, h, h)
    circle = Point(0, 0).buffer(h * 2 / math.sqrt(math.pi), 64)
    ell = box(-h, -h, h, 0).union(box(-h, 0, 0, h))
    holes = square.difference(Point(-h / 2, -h / 2).buffer(h / 4)).difference(
        box(h / 4, h / 4, h * 0.6, h * 0.6))
    yield "square", True, QueryArea.from_shapely(_metric(square, 13.4, 52.5))
    yield "circle", True, QueryArea.from_shapely(_metric(circle, 13.4, 52.5))
    yield "L-shape", True, QueryArea.from_shapely(_metric(ell, 13.4, 52.5))
    yield "square with holes", True, QueryArea.from_shapely(_metric(holes, 13.4, 52.5))
    yield "square at 60 N", True, QueryArea.from_shapely(_metric(square, 25.0, 60.0))
    yield "square on antimeridian", True, QueryArea.from_shapely(_metric(square, 180.0, -17.0))
    length_deg = size_km * size_km / 0.2 / 111.0 / math.cos(math.radians(52.5))
    corridor = LineString([(10.0, 52.5), (10.0 + length_deg / 2, 52.6),
                           (10.0 + length_deg, 52.5)])
    yield "corridor 200 m wide", False, QueryArea.from_shapely(corridor, buffer_m=100)


def main() -> None:
    """Print a table of tile counts and the ratio to the minimum."""
    print(f"{'shape':<24}{'area km²':>10}{'requests':>10}{'ceil(A/5)':>11}{'ratio':>8}"
          f"{'max tile':>10}{'ms':>8}  ok")
    worst = 0.0
    for size in (1.5, 2.3, 3.5, 5.0, 10.0, 20.0):
        for name, compact, area in _shapes(size):
            start = time.perf_counter()
            tiles = tile_area(area)
            ms = (time.perf_counter() - start) * 1000
            minimum = math.ceil(area.area_km2 / 5.0)
            ratio = len(tiles) / minimum
            biggest = max(t.area_km2 for t in tiles)
            ok = biggest < 5.0 and (ratio <= TARGET or not compact)
            if compact:
                worst = max(worst, ratio)
            print(f"{name:<24}{area.area_km2:>10.2f}{len(tiles):>10}{minimum:>11}{ratio:>8.2f}"
                  f"{biggest:>10.3f}{ms:>8.0f}  {'yes' if ok else 'NO'}")
    print(f"\nworst ratio over compact shapes: {worst:.2f} (target <= {TARGET})")


if __name__ == "__main__":
    main()
