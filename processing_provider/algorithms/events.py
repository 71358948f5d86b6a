"""AI driving events with their videos and GNSS tracks."""

from __future__ import annotations

from typing import Any, Dict

from qgis.core import (
    QgsFeature,
    QgsGeometry,
    QgsPoint,
    QgsProcessingException,
    QgsProcessingParameterDateTime,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
)

from ...core.errors import FetchCancelled, FleetStreetError
from ..compat import (
    DATETIME_DATE,
    TYPE_VECTOR_LINE,
    TYPE_VECTOR_POINT,
    WKB_LINESTRING,
    WKB_POINT,
)
from ..fields import (
    line,
    make_fields,
    qdatetime,
    to_json,
    write_features,
)
from .fleet import py_date
from .street_base import (
    StreetAlgorithm,
    enum_values,
)

AI_EVENT_TYPES = [
    "HARSH_BRAKING", "AGGRESSIVE_ACCELERATION", "SWERVING", "HIGH_SPEED", "HIGH_G_FORCE",
    "STOP_SIGN_VIOLATION", "TRAFFIC_LIGHT_VIOLATION", "TAILGATING",
]

EVENT_SPEC = [
    ("id", "string"), ("type", "string"), ("timestamp", "datetime"),
    ("lat", "double"), ("lon", "double"), ("video_url", "string"),
    ("avg_speed_kmh", "double"), ("max_speed_kmh", "double"),
    ("acceleration_ms2", "double"), ("metadata", "string"),
]

TRACK_SPEC = [
    ("event_id", "string"), ("type", "string"), ("timestamp", "datetime"),
    ("start_time", "datetime"), ("end_time", "datetime"), ("n_points", "int"),
]


def _speeds(metadata: Dict[str, Any]):
    arr = metadata.get("SPEED_ARRAY")
    values = []
    if isinstance(arr, list):
        for s in arr:
            v = s.get("AVG_SPEED_MS") if isinstance(s, dict) else None
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                values.append(float(v) * 3.6)
    if not values:
        return None, None
    return sum(values) / len(values), max(values)


class SearchAIEvents(StreetAlgorithm):
    """AI driving events (harsh braking, speeding...) with their video URLs."""

    ALG_ID = "searchaievents"
    DISPLAY = "Search AI events"
    HELP = ("Calls POST /aievents/search in 31-day windows over START_DATE..END_DATE, "
            "optionally within the INPUT area (its outline) and for the chosen TYPES; with "
            "OUTPUT_TRACKS also GET /aievents/{id}?includeGnssData=true per event. Outputs "
            "event points (EPSG:4326) with type, time, video URL (signed, expires), speeds in "
            "km/h and the metadata as JSON; optionally the GNSS tracks as lines.")

    def init_parameters(self):
        """Optional INPUT area, dates, TYPES, OUTPUT and optional OUTPUT_TRACKS."""
        self.add_area_parameters(optional=True)
        self.addParameter(QgsProcessingParameterDateTime(
            "START_DATE", "Start date", DATETIME_DATE))
        self.addParameter(QgsProcessingParameterDateTime(
            "END_DATE", "End date (inclusive)", DATETIME_DATE))
        self.addParameter(QgsProcessingParameterEnum(
            "TYPES", "Event types (none chosen = all)", AI_EVENT_TYPES, allowMultiple=True,
            optional=True, defaultValue=[]))
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "AI events", TYPE_VECTOR_POINT))
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT_TRACKS", "AI event tracks", TYPE_VECTOR_LINE, optional=True,
            createByDefault=False))

    def work(self, parameters, context, feedback, cancel):
        """Search, write events and (optionally) their tracks."""
        start = py_date(self.parameterAsDateTime(parameters, "START_DATE", context))
        end = py_date(self.parameterAsDateTime(parameters, "END_DATE", context))
        if start is None or end is None:
            raise QgsProcessingException("START_DATE and END_DATE must be dates.")
        if end < start:
            raise QgsProcessingException("END_DATE is before START_DATE.")
        polygon = None
        if parameters.get("INPUT") not in (None, ""):
            area = self.query_area(parameters, context, feedback, required=False)
            if area is not None:
                from shapely.geometry import mapping

                geom = area.geometry
                if geom.geom_type != "Polygon":
                    geom = geom.convex_hull
                polygon = mapping(geom)
                polygon = {"type": "Polygon",
                           "coordinates": [[list(c) for c in polygon["coordinates"][0]]]}
        types = enum_values(self, parameters, "TYPES", context, AI_EVENT_TYPES) or None
        with self.data_client(cancel) as client:
            events = client.search_ai_events(start, end, types=types, polygon=polygon)
            feedback.pushInfo(f"{len(events)} AI events.")
            fields = make_fields(EVENT_SPEC)
            sink, dest = self.sink(parameters, context, fields, WKB_POINT, "AI events",
                                   style="ai_events")
            rows = []
            for e in events:
                avg, top = _speeds(e.metadata)
                acc = e.metadata.get("ACCELERATION_MS2")
                f = QgsFeature(fields)
                f.setAttributes([e.id, e.type, qdatetime(e.timestamp), e.lat, e.lon,
                                 e.video_url, avg, top,
                                 float(acc) if isinstance(acc, (int, float)) else None,
                                 to_json(e.metadata)])
                if e.lat is not None and e.lon is not None:
                    f.setGeometry(QgsGeometry(QgsPoint(e.lon, e.lat)))
                rows.append(f)
            write_features(sink, rows, feedback)
            out = {"OUTPUT": dest}
            track_fields = make_fields(TRACK_SPEC)
            tsink, tdest = self.sink(parameters, context, track_fields, WKB_LINESTRING,
                                     "AI event tracks", key="OUTPUT_TRACKS", optional=True)
            if tsink is not None:
                from concurrent.futures import ThreadPoolExecutor

                from ...core.timeutil import parse_datetime

                wanted = [e for e in events if e.id]
                feedback.pushInfo(f"Fetching the GNSS tracks of {len(wanted)} events.")

                def track(e):
                    # one event's failure must not discard the events and the other tracks
                    try:
                        return e, client.ai_event(e.id, gnss=True, imu=False)
                    except FetchCancelled:
                        raise
                    except FleetStreetError as exc:
                        return e, exc

                tracks = []
                with ThreadPoolExecutor(max(1, self.profile.concurrency)) as pool:
                    for i, (e, full) in enumerate(pool.map(track, wanted)):
                        if isinstance(full, FleetStreetError):
                            feedback.reportError(f"GNSS track of event {e.id}: {full}", False)
                            continue
                        pts = [(float(g["lon"]), float(g["lat"])) for g in full.gnss
                               if isinstance(g.get("lon"), (int, float))
                               and isinstance(g.get("lat"), (int, float))]
                        times = [g.get("timestamp") for g in full.gnss if g.get("timestamp")]
                        f = QgsFeature(track_fields)
                        f.setAttributes([e.id, e.type, qdatetime(e.timestamp),
                                         qdatetime(parse_datetime(times[0])) if times else None,
                                         qdatetime(parse_datetime(times[-1])) if times else None,
                                         len(pts)])
                        geom = line(pts)
                        if geom is not None:
                            f.setGeometry(geom)
                        tracks.append(f)
                        feedback.setProgress(50 + 50.0 * (i + 1) / max(1, len(wanted)))
                write_features(tsink, tracks, feedback)
                out["OUTPUT_TRACKS"] = tdest
        return out
