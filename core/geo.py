"""Geodesic measures on lon/lat geometries (WGS84 ellipsoid)."""

from __future__ import annotations

from typing import Any, Dict

from pyproj import Geod
from shapely.geometry import shape
from shapely.geometry.polygon import orient

WGS84 = Geod(ellps="WGS84")


def polygons_of(geom: Any) -> list:
    """The Polygon parts of a shapely geometry (empty list for none)."""
    if geom is None or geom.is_empty:
        return []
    kind = geom.geom_type
    if kind == "Polygon":
        return [geom]
    if kind in ("MultiPolygon", "GeometryCollection"):
        out = []
        for part in geom.geoms:
            out.extend(polygons_of(part))
        return out
    return []


def geodesic_area_km2(geom: Any) -> float:
    """Geodesic area of a shapely lon/lat (Multi)Polygon in km²."""
    total = 0.0
    for poly in polygons_of(geom):
        # pyproj signs ring areas by orientation: exterior CCW, holes CW.
        area, _ = WGS84.geometry_area_perimeter(orient(poly, 1.0))
        total += area
    return abs(total) / 1e6


def geojson_area_km2(geometry: Dict[str, Any]) -> float:
    """Geodesic area of a GeoJSON lon/lat (Multi)Polygon in km²."""
    return geodesic_area_km2(shape(geometry))
