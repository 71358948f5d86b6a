"""GeoJSON validation, geodesic area and the membership test used by every query."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely
from pyproj import Geod, Transformer
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry

from emulator.errors import ApiError

GEOD = Geod(ellps="WGS84")
POLY_TYPES = ("Polygon", "MultiPolygon")


def geodesic_area_km2(geom: BaseGeometry) -> float:
    """Return the geodesic area of a lon/lat geometry in km^2."""
    area, _ = GEOD.geometry_area_perimeter(geom)
    return abs(area) / 1e6


def _unwrap(obj: Any) -> Any:
    # Clients sometimes send a Feature or a FeatureCollection of one where a geometry is due.
    if isinstance(obj, dict) and obj.get("type") == "Feature":
        return obj.get("geometry")
    if isinstance(obj, dict) and obj.get("type") == "FeatureCollection":
        feats = obj.get("features") or []
        if len(feats) == 1 and isinstance(feats[0], dict):
            return feats[0].get("geometry")
    return obj


def parse_geometry(obj: Any, allowed: tuple[str, ...]) -> BaseGeometry:
    """Turn a GeoJSON geometry into a valid shapely geometry or raise a 400."""
    obj = _unwrap(obj)
    if not isinstance(obj, dict) or "type" not in obj or "coordinates" not in obj:
        raise ApiError(400, "Invalid GeoJSON: expected a geometry with type and coordinates")
    if obj["type"] not in allowed:
        raise ApiError(
            400, f"Invalid GeoJSON: geometry type {obj['type']!r} not one of {list(allowed)}"
        )
    try:
        geom = shape({"type": obj["type"], "coordinates": obj["coordinates"]})
    except Exception as exc:  # shapely raises many types for malformed coordinates
        raise ApiError(400, f"Invalid GeoJSON: {exc}") from exc
    if geom.is_empty:
        raise ApiError(400, "Invalid GeoJSON: empty geometry")
    minx, miny, maxx, maxy = geom.bounds
    if not all(math.isfinite(v) for v in (minx, miny, maxx, maxy)):
        raise ApiError(400, "Invalid GeoJSON: non-finite coordinates")
    if minx < -180 or maxx > 180 or miny < -90 or maxy > 90:
        raise ApiError(400, "Invalid GeoJSON: coordinates must be [lon, lat] within range")
    if not geom.is_valid:
        raise ApiError(400, f"Invalid GeoJSON: {shapely.is_valid_reason(geom)}")
    return geom


def check_area(geom: BaseGeometry, max_km2: float) -> float:
    """Raise a 400 when the geodesic area is not below max_km2; return the area."""
    area = geodesic_area_km2(geom)
    if area >= max_km2:
        raise ApiError(
            400, f"Area too large: {area:.3f} sq km; a query area must be smaller than "
            f"{max_km2:g} sq km",
        )
    return area


def geodesic_circle(lon: float, lat: float, radius_m: float, n: int = 72) -> BaseGeometry:
    """Return a polygon approximating the geodesic circle of radius_m around a point."""
    az = np.linspace(0.0, 360.0, n, endpoint=False)
    lons, lats, _ = GEOD.fwd(np.full(n, lon), np.full(n, lat), az, np.full(n, radius_m))
    return shapely.Polygon(np.column_stack([lons, lats]))


def buffered_line(line: BaseGeometry, buffer_m: float) -> BaseGeometry:
    """Buffer a lon/lat line by buffer_m metres in a local equidistant projection."""
    c = line.centroid
    proj = f"+proj=aeqd +lat_0={c.y} +lon_0={c.x} +datum=WGS84 +units=m"
    fwd = Transformer.from_crs("EPSG:4326", proj, always_xy=True)
    inv = Transformer.from_crs(proj, "EPSG:4326", always_xy=True)
    local = shapely.transform(line, lambda xy: np.column_stack(fwd.transform(xy[:, 0], xy[:, 1])))
    buf = local.buffer(buffer_m, quad_segs=16)
    return shapely.transform(buf, lambda xy: np.column_stack(inv.transform(xy[:, 0], xy[:, 1])))


def map_data_geometry(obj: Any, max_km2: float) -> BaseGeometry:
    """Resolve the /map-data geometry (Point+radius, LineString+buffer, polygons) to an area."""
    obj = _unwrap(obj)
    if not isinstance(obj, dict):
        raise ApiError(400, "Invalid GeoJSON: geometry missing")
    kind = obj.get("type")
    if kind == "Point":
        geom = parse_geometry(obj, ("Point",))
        radius = _positive(obj.get("radius"), "radius")
        area_geom = geodesic_circle(geom.x, geom.y, radius)
    elif kind == "LineString":
        geom = parse_geometry(obj, ("LineString",))
        area_geom = buffered_line(geom, _positive(obj.get("buffer"), "buffer"))
    else:
        area_geom = parse_geometry(obj, POLY_TYPES)
    check_area(area_geom, max_km2)
    return area_geom


def _positive(value: Any, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ApiError(400, f"Invalid GeoJSON: {name} (metres) is required") from None
    if not math.isfinite(v) or v <= 0:
        raise ApiError(400, f"Invalid GeoJSON: {name} must be a positive number of metres")
    return v


def inside_mask(geom: BaseGeometry, lons: np.ndarray, lats: np.ndarray) -> np.ndarray:
    """Return a boolean mask of points covered by geom (boundary counts as inside)."""
    if len(lons) == 0:
        return np.zeros(0, dtype=bool)
    return shapely.intersects_xy(geom, lons, lats)
