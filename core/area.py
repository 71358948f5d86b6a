"""The user's query area in any CRS, normalised to valid lon/lat polygons."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from pyproj import CRS, Transformer
from shapely import wkb as shapely_wkb
from shapely.geometry import MultiPolygon, Point, Polygon, mapping, shape
from shapely.ops import transform, unary_union
from shapely.prepared import prep

from .errors import ValidationError
from .geo import geodesic_area_km2
from .lonlat import make_valid, split_antimeridian, unwrap

WGS84 = "EPSG:4326"


def local_crs(lon: float, lat: float, kind: str = "aeqd") -> CRS:
    """A metric projection centred on (lon, lat): 'aeqd' for distances, 'laea' for areas."""
    lon = ((lon + 180.0) % 360.0) - 180.0
    return CRS.from_proj4(f"+proj={kind} +lat_0={lat:.10f} +lon_0={lon:.10f} "
                          "+datum=WGS84 +units=m +no_defs")


def parse_crs(crs: Any) -> CRS:
    """A pyproj CRS from WKT, a PROJ string, 'EPSG:xxxx' or a CRS object."""
    try:
        return CRS.from_user_input(crs)
    except Exception as exc:  # pyproj raises CRSError, but be safe with odd inputs
        raise ValidationError(f"Unknown coordinate reference system: {exc}") from None


def densify(geom: Any, max_len: float) -> Any:
    """Extra vertices so edges stay true when reprojected (shapely 1.8 has no segmentize)."""

    def ring(coords: Sequence[Sequence[float]]) -> list:
        out = []
        for (x0, y0, *_), (x1, y1, *_) in zip(coords[:-1], coords[1:]):
            n = max(1, int(math.ceil(math.hypot(x1 - x0, y1 - y0) / max_len)))
            out.extend((x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n) for i in range(n))
        out.append(tuple(coords[-1][:2]))
        return out

    if geom.geom_type == "Polygon":
        return Polygon(ring(list(geom.exterior.coords)),
                       [ring(list(r.coords)) for r in geom.interiors])
    if geom.geom_type == "LineString":
        from shapely.geometry import LineString

        return LineString(ring(list(geom.coords)))
    if hasattr(geom, "geoms"):
        return type(geom)([densify(g, max_len) for g in geom.geoms]) \
            if geom.geom_type != "GeometryCollection" else geom
    return geom


def _to_lonlat(geom: Any, crs: CRS) -> Any:
    if crs.is_geographic and crs.equals(CRS.from_epsg(4326), ignore_axis_order=True):
        return geom
    if not crs.is_geographic and not geom.is_empty:
        minx, miny, maxx, maxy = geom.bounds
        extent = max(maxx - minx, maxy - miny)
        if extent > 0:
            geom = densify(geom, extent / 64.0)
    tr = Transformer.from_crs(crs, WGS84, always_xy=True)
    return transform(tr.transform, geom)


def _buffer_metres(geom: Any, metres: float) -> Any:
    """Buffer a lon/lat geometry by metres in a local azimuthal-equidistant projection."""
    lonlat = unwrap_lines(geom)
    c = lonlat.centroid
    local = local_crs(c.x, c.y, "aeqd")
    fwd = Transformer.from_crs(WGS84, local, always_xy=True)
    inv = Transformer.from_crs(local, WGS84, always_xy=True)
    buffered = transform(fwd.transform, lonlat).buffer(metres, 32)
    # Long straight edges of a buffered line must stay straight on the ground, not in lon/lat.
    buffered = densify(buffered, max(25.0, min(metres, 200.0)))
    return unwrap(transform(inv.transform, buffered), ref=c.x)


def unwrap_lines(geom: Any) -> Any:
    """Points and lines with continuous longitudes (for buffering across 180)."""
    from shapely.geometry import LineString, MultiLineString, MultiPoint

    from .lonlat import circular_centre, unwrap_lons

    kind = geom.geom_type
    if kind == "LineString":
        lons = unwrap_lons([c[0] for c in geom.coords])
        return LineString([(lon, c[1]) for lon, c in zip(lons, geom.coords)])
    if kind in ("MultiLineString", "MultiPoint"):
        parts = [unwrap_lines(g) for g in geom.geoms]
        ref = circular_centre([p.centroid.x for p in parts])
        shifted = []
        for p in parts:
            k = round((ref - p.centroid.x) / 360.0)
            shifted.append(transform(lambda x, y, k=k: (x + 360.0 * k, y), p) if k else p)
        return (MultiLineString if kind == "MultiLineString" else MultiPoint)(shifted)
    return geom


@dataclass
class QueryArea:
    """A query area as valid lon/lat (Multi)Polygon, split at the antimeridian if it crosses."""

    geometry: Any
    unwrapped: Any = field(repr=False)
    area_km2: float = 0.0

    @property
    def crosses_antimeridian(self) -> bool:
        """True when the area spans longitude ±180."""
        minx, _, maxx, _ = self.unwrapped.bounds
        return minx < -180.0 or maxx > 180.0

    @property
    def geojson(self) -> Dict[str, Any]:
        """The area as a GeoJSON geometry in [lon, lat]."""
        return plain_json(mapping(self.geometry))

    def covers(self, lon: Optional[float], lat: Optional[float]) -> bool:
        """True if the point lies in the area (boundary included)."""
        if lon is None or lat is None:
            return False
        prepared = self.__dict__.get("_prepared")
        if prepared is None:
            prepared = prep(self.geometry)
            self.__dict__["_prepared"] = prepared
        lon = ((lon + 180.0) % 360.0) - 180.0 if not -180.0 <= lon <= 180.0 else lon
        return prepared.covers(Point(lon, lat))

    def covers_many(self, lonlats: Sequence[tuple]) -> List[bool]:
        """covers() for many (lon, lat) pairs at once (vectorised on shapely 2)."""
        if not lonlats:
            return []
        try:
            import shapely

            intersects_xy = shapely.intersects_xy  # shapely >= 2.0
        except AttributeError:
            return [self.covers(lon, lat) for lon, lat in lonlats]
        known = [lon is not None and lat is not None for lon, lat in lonlats]
        xs = [(((lon + 180.0) % 360.0) - 180.0 if not -180.0 <= lon <= 180.0 else lon)
              if ok else 0.0 for (lon, _), ok in zip(lonlats, known)]
        ys = [lat if ok else 0.0 for (_, lat), ok in zip(lonlats, known)]
        # For points, intersecting a polygon is the same as being covered by it.
        shapely.prepare(self.geometry)
        hits = intersects_xy(self.geometry, xs, ys)
        return [bool(h) and ok for h, ok in zip(hits, known)]

    @classmethod
    def from_shapely(cls, geom: Any, crs: Any = WGS84, buffer_m: Optional[float] = None,
                     radius_m: Optional[float] = None) -> QueryArea:
        """Build from a shapely geometry in any CRS; lines need buffer_m, points radius_m."""
        if geom is None or geom.is_empty:
            raise ValidationError("The query area is empty")
        lonlat = _to_lonlat(geom, parse_crs(crs))
        polys, lines, points = [], [], []
        for part in _flatten(lonlat):
            kind = part.geom_type
            if kind == "Polygon":
                polys.append(part)
            elif kind in ("LineString", "LinearRing"):
                lines.append(part)
            elif kind == "Point":
                points.append(part)
        parts = []
        if polys:
            parts.append(unwrap(make_valid(unwrap(MultiPolygon(polys) if len(polys) > 1
                                                  else polys[0]))))
        if lines:
            if not buffer_m or buffer_m <= 0:
                raise ValidationError("A line needs a buffer in metres to become a query area")
            from shapely.geometry import MultiLineString

            parts.append(_buffer_metres(MultiLineString(lines) if len(lines) > 1 else lines[0],
                                        buffer_m))
        if points:
            if not radius_m or radius_m <= 0:
                raise ValidationError("A point needs a radius in metres to become a query area")
            from shapely.geometry import MultiPoint

            parts.append(_buffer_metres(MultiPoint(points) if len(points) > 1 else points[0],
                                        radius_m))
        if not parts:
            raise ValidationError("The query area has no polygon, line or point")
        merged = unary_union([make_valid(unwrap(p)) for p in parts])
        merged = unwrap(merged)
        return cls.from_unwrapped(merged)

    @classmethod
    def from_unwrapped(cls, unwrapped: Any) -> QueryArea:
        """Build from polygons whose longitudes are continuous (possibly beyond ±180)."""
        unwrapped = make_valid(unwrapped)
        if unwrapped.is_empty:
            raise ValidationError("The query area is empty")
        _, miny, _, maxy = unwrapped.bounds
        if miny < -90.0 or maxy > 90.0:
            raise ValidationError("The query area reaches beyond the poles")
        split = make_valid(split_antimeridian(unwrapped))
        area = geodesic_area_km2(split)
        if area <= 0:
            raise ValidationError("The query area has no area")
        return cls(geometry=split, unwrapped=unwrapped, area_km2=area)

    @classmethod
    def from_wkb(cls, wkb: bytes, crs: Any, buffer_m: Optional[float] = None,
                 radius_m: Optional[float] = None) -> QueryArea:
        """Build from WKB in the given CRS (WKT, PROJ string or 'EPSG:xxxx')."""
        try:
            geom = shapely_wkb.loads(bytes(wkb))
        except Exception as exc:  # shapely raises different types across versions
            raise ValidationError(f"The query geometry cannot be read: {exc}") from None
        return cls.from_shapely(geom, crs, buffer_m=buffer_m, radius_m=radius_m)

    @classmethod
    def from_geojson(cls, geometry: Dict[str, Any], buffer_m: Optional[float] = None,
                     radius_m: Optional[float] = None) -> QueryArea:
        """Build from a GeoJSON geometry in [lon, lat]."""
        try:
            geom = shape(geometry)
        except Exception as exc:  # malformed GeoJSON
            raise ValidationError(f"The query geometry is not valid GeoJSON: {exc}") from None
        return cls.from_shapely(geom, WGS84, buffer_m=buffer_m, radius_m=radius_m)


def _flatten(geom: Any) -> list:
    if hasattr(geom, "geoms"):
        out = []
        for g in geom.geoms:
            out.extend(_flatten(g))
        return out
    return [geom]


def plain_json(obj: Any) -> Any:
    """GeoJSON mapping with lists instead of tuples, as JSON bodies expect."""
    if isinstance(obj, dict):
        return {k: plain_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain_json(v) for v in obj]
    return obj


def merge_areas(areas: Sequence[QueryArea]) -> QueryArea:
    """One area covering several."""
    return QueryArea.from_unwrapped(unwrap(unary_union([a.geometry for a in areas])))


__all__ = ["QueryArea", "local_crs", "parse_crs", "merge_areas"]
