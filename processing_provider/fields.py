"""Field schemas of the output layers and fast conversion of core records to QgsFeatures."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timezone
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsFeatureSink,
    QgsField,
    QgsFields,
    QgsGeometry,
    QgsLineString,
    QgsPoint,
)
from qgis.PyQt.QtCore import QDate, QDateTime, QTimeZone

from .compat import FAST_INSERT, FIELD_TYPES

WGS84 = QgsCoordinateReferenceSystem("EPSG:4326")
CHUNK = 2000
_UTC = QTimeZone(b"UTC")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = datetime(1970, 1, 1, 0, 0, 0, 1000, tzinfo=timezone.utc) - _EPOCH


def field_type(kind: str):
    """The QgsField type for a kind name (string, int, long, double, bool, datetime, date)."""
    return FIELD_TYPES[kind]


def make_field(name: str, kind: str) -> QgsField:
    """A QgsField of the given kind."""
    return QgsField(name, field_type(kind))


def make_fields(spec: Sequence[Tuple[str, str]]) -> QgsFields:
    """QgsFields from (name, kind) pairs."""
    fields = QgsFields()
    for name, kind in spec:
        fields.append(make_field(name, kind))
    return fields


def qdatetime(value: Optional[datetime]) -> Optional[QDateTime]:
    """An aware datetime as a UTC QDateTime (None stays None)."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    ms = (value - _EPOCH) // _MS
    return QDateTime.fromMSecsSinceEpoch(ms, _UTC)


def qdate(value: Optional[date]) -> Optional[QDate]:
    """A date as QDate (None stays None)."""
    if value is None:
        return None
    return QDate(value.year, value.month, value.day)


def point(lon: Optional[float], lat: Optional[float]) -> Optional[QgsGeometry]:
    """A point geometry, or None when a coordinate is missing."""
    if lon is None or lat is None:
        return None
    return QgsGeometry(QgsPoint(lon, lat))


def line(coords: Sequence[Tuple[float, float]]) -> Optional[QgsGeometry]:
    """A line geometry from (lon, lat) pairs, or None with fewer than two points."""
    if len(coords) < 2:
        return None
    xs = [c[0] for c in coords]
    ys = [c[1] for c in coords]
    return QgsGeometry(QgsLineString(xs, ys))


def to_json(value: Any) -> Optional[str]:
    """Compact JSON text of a value (None for empty)."""
    if value is None or value == {} or value == []:
        return None
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


def write_features(sink: QgsFeatureSink, features: Iterable[QgsFeature], feedback=None,
                   chunk: int = CHUNK) -> int:
    """Add features to a sink in chunks; return how many were written."""
    count = 0
    batch: List[QgsFeature] = []
    flag = FAST_INSERT
    for feat in features:
        batch.append(feat)
        if len(batch) >= chunk:
            sink.addFeatures(batch, flag)
            count += len(batch)
            batch = []
            if feedback is not None and feedback.isCanceled():
                return count
    if batch:
        sink.addFeatures(batch, flag)
        count += len(batch)
    return count


# ---------------------------------------------------------------- map features

_SNAKE1 = re.compile(r"(.)([A-Z][a-z]+)")
_SNAKE2 = re.compile(r"([a-z0-9])([A-Z])")
_NON_WORD = re.compile(r"[^0-9a-zA-Z_]+")
# Bare property names too vague to stand as a column; they get the class's first word.
_GENERIC = {"unit", "units", "type", "value", "text", "kind", "name", "direction"}

MAP_FEATURE_BASE = [
    ("id", "string"), ("class", "string"), ("status", "string"),
    ("confidence", "double"), ("azimuth", "double"),
    ("first_seen", "datetime"), ("last_seen", "datetime"), ("n_detections", "int"),
    ("lat", "double"), ("lon", "double"),
    ("image_url", "string"), ("image_path", "string"),
    ("bbox_x", "double"), ("bbox_y", "double"), ("bbox_w", "double"), ("bbox_h", "double"),
]
_BASE_NAMES = {n for n, _ in MAP_FEATURE_BASE} | {"properties"}


def snake(name: str) -> str:
    """camelCase or kebab-case as snake_case."""
    s = _SNAKE2.sub(r"\1_\2", _SNAKE1.sub(r"\1_\2", str(name)))
    return _NON_WORD.sub("_", s).strip("_").lower() or "value"


def property_column(key: str, feature_class: Optional[str]) -> str:
    """Column name of a feature property: snake_case, vague names prefixed by the class."""
    col = snake(key)
    if col in _GENERIC and feature_class:
        col = f"{snake(feature_class).split('_')[0]}_{col}"
    if col in _BASE_NAMES:
        col = f"prop_{col}"
    return col


def _kind_of(values: Iterable[Any]) -> str:
    kind = None
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool):
            k = "bool"
        elif isinstance(v, int):
            k = "long" if abs(v) > 2_000_000_000 else "int"
        elif isinstance(v, float):
            k = "double"
        else:
            return "string"
        if kind is None or kind == k:
            kind = k
        elif {kind, k} <= {"int", "long", "double"}:
            kind = "double" if "double" in (kind, k) else "long"
        else:
            return "string"
    return kind or "string"


def property_columns(features: Sequence[Any]) -> List[Tuple[str, str, List[Tuple[str, str]]]]:
    """(column, kind, [(class, key)...]) for every property key seen in the features."""
    sources: Dict[str, List[Tuple[Optional[str], str]]] = {}
    values: Dict[str, List[Any]] = {}
    for f in features:
        cls = f.feature_class
        for key, value in f.properties.items():
            col = property_column(key, cls)
            src = (cls, key)
            lst = sources.setdefault(col, [])
            if src not in lst:
                lst.append(src)
            vals = values.setdefault(col, [])
            if len(vals) < 200:
                vals.append(value)
    out = []
    for col in sorted(sources):
        vals = values[col]
        kind = "string" if any(isinstance(v, (dict, list)) for v in vals) else _kind_of(vals)
        out.append((col, kind, sources[col]))
    return out


def map_feature_fields(features: Sequence[Any]) -> Tuple[QgsFields, list]:
    """Fields for map features (base, flattened properties, raw JSON) and the property plan."""
    plan = property_columns(features)
    spec = list(MAP_FEATURE_BASE) + [(c, k) for c, k, _ in plan] + [("properties", "string")]
    return make_fields(spec), plan


def _convert(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "string":
        return value if isinstance(value, str) else to_json(value)
    if kind == "double":
        try:
            return float(value)
        except (TypeError, ValueError):
            return None
    if kind in ("int", "long"):
        try:
            return int(value)
        except (TypeError, ValueError):
            return None
    return value


def map_feature_features(features: Sequence[Any], fields: QgsFields, plan: list,
                         image_paths: Optional[Dict[str, str]] = None) -> Iterator[QgsFeature]:
    """QgsFeatures for map features, in the order of map_feature_fields."""
    image_paths = image_paths or {}
    lookup: Dict[Tuple[Optional[str], str], Tuple[int, str]] = {}
    n_base = len(MAP_FEATURE_BASE)
    for i, (_col, kind, srcs) in enumerate(plan):
        for src in srcs:
            lookup[src] = (n_base + i, kind)
    n_props = len(plan)
    for f in features:
        bbox = f.bbox or (None, None, None, None)
        attrs = [
            f.id, f.feature_class, f.status, f.confidence, f.azimuth,
            qdatetime(f.first_seen), qdatetime(f.last_seen), f.n_detections,
            f.lat, f.lon, f.image_url, image_paths.get(f.id) if f.id else None,
            bbox[0], bbox[1], bbox[2], bbox[3],
        ]
        if n_props:
            attrs.extend([None] * n_props)
            cls = f.feature_class
            for key, value in f.properties.items():
                slot = lookup.get((cls, key))
                if slot is not None:
                    attrs[slot[0]] = _convert(value, slot[1])
        attrs.append(to_json(f.properties))
        feat = QgsFeature(fields)
        feat.setAttributes(attrs)
        if f.lon is not None and f.lat is not None:
            feat.setGeometry(QgsGeometry(QgsPoint(f.lon, f.lat)))
        yield feat


# ---------------------------------------------------------------------- frames

IMU_KEYS = ("acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z")
FRAME_SPEC = [
    ("sequence", "string"), ("idx", "int"), ("timestamp", "datetime"), ("device", "string"),
    ("heading", "double"), ("gdop", "double"), ("hdop", "double"), ("pdop", "double"),
    ("eph", "double"), ("lat", "double"), ("lon", "double"),
    ("lat_ref", "double"), ("lon_ref", "double"), ("mount_position", "string"),
    ("width", "int"), ("height", "int"),
] + [(k, "double") for k in IMU_KEYS] + [
    ("url", "string"), ("image_path", "string"), ("week", "date"),
]


def frame_fields(extra: Sequence[Tuple[str, str]] = ()) -> QgsFields:
    """Fields of an imagery frame layer (plus extra trailing fields)."""
    return make_fields(list(FRAME_SPEC) + list(extra))


def _float_or_none(value: Any) -> Optional[float]:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def frame_key(frame: Any) -> str:
    """Stable text key of a frame, used to match downloaded images to frames."""
    return f"{frame.sequence}_{frame.idx}" if frame.sequence is not None else str(frame.url)


def frame_features(frames: Iterable[Any], fields: QgsFields,
                   image_paths: Optional[Dict[str, str]] = None,
                   extra: Optional[Callable[[Any], list]] = None) -> Iterator[QgsFeature]:
    """QgsFeatures for imagery frames, in the order of frame_fields."""
    image_paths = image_paths or {}
    for fr in frames:
        imu = fr.imu or {}
        attrs = [
            fr.sequence, fr.idx, qdatetime(fr.timestamp), fr.device,
            fr.heading, fr.gdop, fr.hdop, fr.pdop, fr.eph, fr.lat, fr.lon,
            _number(fr.lat_ref),
            _number(fr.lon_ref),
            fr.mount_position, fr.width, fr.height,
        ]
        attrs.extend(_float_or_none(imu.get(k)) for k in IMU_KEYS)
        attrs.extend([fr.url, image_paths.get(frame_key(fr)), qdate(fr.week)])
        if extra is not None:
            attrs.extend(extra(fr))
        feat = QgsFeature(fields)
        feat.setAttributes(attrs)
        if fr.lon is not None and fr.lat is not None:
            feat.setGeometry(QgsGeometry(QgsPoint(fr.lon, fr.lat)))
        yield feat


def _number(value):
    """A float for a number or numeric text, else None (a reference must not break a row)."""
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None
