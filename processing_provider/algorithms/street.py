"""Street-level data group: map features, imagery, bursts, AI events, credits, intrinsics."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsFeature,
    QgsFeatureRequest,
    QgsGeometry,
    QgsPoint,
    QgsProcessingException,
    QgsProcessingOutputBoolean,
    QgsProcessingOutputNumber,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterDateTime,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterFile,
    QgsProcessingParameterNumber,
    QgsProcessingParameterString,
    QgsProcessingUtils,
    QgsWkbTypes,
)

from ...core.errors import FetchCancelled, FleetStreetError, PartialFetchError
from ..compat import (
    DATETIME_DATE,
    FILE_FOLDER,
    GEOMETRY_POINT,
    NUMBER_DOUBLE,
    REQUEST_NO_GEOMETRY,
    TYPE_VECTOR,
    TYPE_VECTOR_LINE,
    TYPE_VECTOR_POINT,
    TYPE_VECTOR_POLYGON,
    WKB_LINESTRING,
    WKB_NO_GEOMETRY,
    WKB_POINT,
)
from ..fields import (
    frame_features,
    frame_fields,
    frame_key,
    line,
    make_fields,
    map_feature_features,
    map_feature_fields,
    qdatetime,
    to_json,
    write_features,
)
from .base import FleetStreetAlgorithm, ProgressAdapter, advanced, default_cache_dir
from .fleet import py_date

FEATURE_CLASSES = [
    "speed-sign", "stop-sign", "parking-restriction-sign", "turn-restriction-sign",
    "highway-sign", "fire-hydrant", "traffic-light", "lane-line",
]
AI_EVENT_TYPES = [
    "HARSH_BRAKING", "AGGRESSIVE_ACCELERATION", "SWERVING", "HIGH_SPEED", "HIGH_G_FORCE",
    "STOP_SIGN_VIOLATION", "TRAFFIC_LIGHT_VIOLATION", "TAILGATING",
]
BURST_COST = 125.0

BURST_SPEC = [
    ("id", "string"), ("status", "string"), ("is_hit", "bool"),
    ("valid_from", "datetime"), ("valid_until", "datetime"),
    ("amount", "double"), ("credits", "double"), ("created_by", "string"),
    ("hash", "string"), ("geometry_type", "string"), ("geojson", "string"),
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
INTRINSICS_SPEC = [
    ("model", "string"), ("focal", "double"), ("k1", "double"), ("k2", "double"),
    ("k3", "double"), ("k4", "double"), ("p1", "double"), ("p2", "double"),
]


def geometry_from_geojson(geo: Optional[Dict[str, Any]]) -> Optional[QgsGeometry]:
    """A QgsGeometry from a GeoJSON geometry (Point, LineString, Polygon and multi types)."""
    if not isinstance(geo, dict):
        return None
    kind = geo.get("type")
    coords = geo.get("coordinates")
    try:
        if kind == "Point":
            return QgsGeometry(QgsPoint(float(coords[0]), float(coords[1])))
        if kind == "LineString":
            return line([(c[0], c[1]) for c in coords])
        if kind in ("Polygon", "MultiPolygon"):
            from shapely.geometry import shape

            return QgsGeometry.fromWkt(shape(geo).wkt)
    except (TypeError, ValueError, IndexError):
        return None
    return None


def enum_values(alg, parameters, name, context, options: List[str]) -> List[str]:
    """Chosen options of a multiple enum parameter (every option when none is chosen)."""
    chosen = alg.parameterAsEnums(parameters, name, context)
    return [options[i] for i in chosen if 0 <= i < len(options)]


class StreetAlgorithm(FleetStreetAlgorithm):
    """Base of the data API algorithms: fetch engine, images, partial results."""

    GROUP = "streetlevel"
    API = "data"

    def add_download_parameters(self) -> None:
        """DOWNLOAD_IMAGES and IMAGE_FOLDER."""
        self.addParameter(QgsProcessingParameterBoolean(
            "DOWNLOAD_IMAGES", "Download the images (signed URLs expire)", False))
        self.addParameter(QgsProcessingParameterFile(
            "IMAGE_FOLDER", "Image folder (default: a temporary folder)",
            behavior=FILE_FOLDER, optional=True))

    def engine(self, cancel, feedback, parameters=None, context=None):
        """A FetchEngine for this run, with the response cache and the credit budget."""
        from ...core.fetch import FetchEngine

        budget = None
        refresh = False
        if parameters is not None:
            if "MAX_CREDITS" in parameters:
                budget = self.parameterAsDouble(parameters, "MAX_CREDITS", context) or None
            if "REFRESH" in parameters:
                refresh = self.parameterAsBool(parameters, "REFRESH", context)
        client = self.data_client(cancel)
        return FetchEngine(client, cache=self.response_cache(),
                           concurrency=self.profile.concurrency,
                           progress=ProgressAdapter(feedback), cancel=cancel, budget=budget,
                           refresh=refresh)

    def response_cache(self):
        """The response cache, or None when it cannot be opened."""
        from ...core.cache import ResponseCache

        folder = default_cache_dir(self.profile)
        try:
            os.makedirs(folder, exist_ok=True)
            cache = ResponseCache.in_folder(folder)
        except Exception:  # a broken cache must not stop a fetch; it only costs credits
            return None
        self.closables.append(cache)
        return cache

    def fetch(self, call):
        """Run a fetch; on a partial failure return what was fetched plus the error.

        When no request succeeded at all the error is raised: an empty layer must never
        stand in for a failure.
        """
        try:
            return call(), None
        except PartialFetchError as exc:
            result = exc.result
            got = result is not None and (result.tiles_fetched or result.tiles_from_cache)
            if not got:
                # nothing to keep: the underlying error is the whole story
                cause = exc.cause if exc.cause is not None else exc
                raise QgsProcessingException(f"Nothing was fetched. {cause}") from None
            return result, exc

    @staticmethod
    def report(feedback, result, what: str) -> None:
        """Log counts and credits of a FetchResult."""
        items = getattr(result, "items", None) or []
        parts = [f"{len(items)} {what}"]
        total = getattr(result, "tiles_total", None)
        if total is not None:
            parts.append(f"{getattr(result, 'tiles_fetched', 0)}/{total} tiles fetched, "
                         f"{getattr(result, 'tiles_from_cache', 0)} from cache")
        used = getattr(result, "credits_used", None)
        if used is not None:
            parts.append(f"{used:g} credits used")
        remaining = getattr(result, "credits_remaining", None)
        if remaining is not None:
            parts.append(f"{remaining:g} credits remaining")
        feedback.pushInfo(", ".join(parts) + ".")

    def image_folder(self, parameters, context, sub: str) -> str:
        """Folder for downloaded images."""
        folder = self.parameterAsString(parameters, "IMAGE_FOLDER", context)
        if not folder:
            folder = os.path.join(QgsProcessingUtils.tempFolder(), sub)
        os.makedirs(folder, exist_ok=True)
        return folder

    def download(self, parameters, context, feedback, cancel, jobs: Dict[str, str],
                 folder: str) -> Dict[str, str]:
        """Download {key: url} into folder; return {key: local path} of the files written."""
        from .imaging import download_all

        if not jobs:
            return {}
        feedback.pushInfo(f"Downloading {len(jobs)} images to {folder}.")
        return download_all(self.data_client(cancel), jobs, folder, cancel, feedback,
                            self.profile.concurrency)

    def add_refresh_parameter(self) -> None:
        """REFRESH: ask the service again instead of reusing cached answers."""
        self.addParameter(advanced(QgsProcessingParameterBoolean(
            "REFRESH", "Ignore cached answers (latest imagery and features are cached for "
            "24 hours, past weeks for good)", False)))

    def add_complete_output(self) -> None:
        """COMPLETE: whether every request succeeded within the budget."""
        self.addOutput(QgsProcessingOutputBoolean(
            "COMPLETE", "Every tile fetched (false: budget reached, cancelled or a tile failed)"))

    def finish(self, partial, feedback, result=None) -> bool:
        """Report an incomplete fetch after its results are written; True when complete.

        An incomplete fetch still returns its outputs: failing the algorithm would make
        Processing drop a temporary layer holding results that were paid for.
        """
        cancelled = bool(result is not None and getattr(result, "cancelled", False))
        if cancelled:
            feedback.pushWarning("Cancelled: the layer holds what was fetched before.")
        if partial is None:
            return not cancelled
        feedback.reportError(
            f"{partial} Answers already received are cached: running it again costs credits "
            "only for the rest.", False)
        return False

    def write_frames(self, parameters, context, feedback, cancel, frames, name="Imagery frames",
                     key="OUTPUT", extra_spec=(), extra=None, download=False):
        """Write frames (downloading images first when asked); return the destination id."""
        paths: Dict[str, str] = {}
        if download and frames:
            folder = self.image_folder(parameters, context, "frames")
            paths = self.download(parameters, context, feedback, cancel,
                                  {frame_key(f): f.url for f in frames if f.url}, folder)
        fields = frame_fields(extra_spec)
        sink, dest = self.sink(parameters, context, fields, WKB_POINT, name,
                               style="frames", key=key)
        write_features(sink, frame_features(frames, fields, paths, extra), feedback)
        return dest

    def write_map_features(self, parameters, context, feedback, cancel, features,
                           name="Map features", key="OUTPUT", download=False):
        """Write map features (downloading their images when asked); return the dest id."""
        paths: Dict[str, str] = {}
        if download and features:
            folder = self.image_folder(parameters, context, "features")
            paths = self.download(parameters, context, feedback, cancel,
                                  {f.id: f.image_url for f in features if f.id and f.image_url},
                                  folder)
        fields, plan = map_feature_fields(features)
        sink, dest = self.sink(parameters, context, fields, WKB_POINT, name,
                               style="map_features", key=key)
        write_features(sink, map_feature_features(features, fields, plan, paths), feedback)
        return dest


class FetchMapFeatures(StreetAlgorithm):
    """Map features (signs, hydrants, lane lines...) within an area."""

    ALG_ID = "fetchmapfeatures"
    DISPLAY = "Fetch map features"
    HELP = ("Calls POST /mapFeatures/poly once per tile of the area (tiles stay under the "
            "5 km² limit; answers are cached, so a re-run of the same area is free). Costs "
            "credits per detection returned; MAX_CREDITS stops before the budget is exceeded "
            "(the price is learnt from the first request, which is always sent). "
            "Polygons are used as they are, lines are buffered by BUFFER metres and points get "
            "RADIUS metres. Outputs points (EPSG:4326) with class, confidence, azimuth, "
            "first/last seen, the image URL and bounding box, the feature properties as "
            "columns (e.g. speed_limit) and as raw JSON, and image_path when images are "
            "downloaded.")

    def init_parameters(self):
        """INPUT area, CLASSES, MIN_CONFIDENCE, images, budget, OUTPUT."""
        self.add_area_parameters()
        self.addParameter(QgsProcessingParameterEnum(
            "CLASSES", "Feature classes (none chosen = all)", FEATURE_CLASSES,
            allowMultiple=True, optional=True, defaultValue=[]))
        self.addParameter(QgsProcessingParameterNumber(
            "MIN_CONFIDENCE", "Minimum confidence (0-1)", NUMBER_DOUBLE,
            0.0, minValue=0.0, maxValue=1.0))
        self.add_download_parameters()
        self.add_budget_parameter()
        self.add_refresh_parameter()
        self.add_complete_output()
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Map features", TYPE_VECTOR_POINT))

    def work(self, parameters, context, feedback, cancel):
        """Fetch, filter and write the features."""
        area = self.query_area(parameters, context, feedback)
        feedback.pushInfo(f"Query area: {area.area_km2:.3f} km².")
        classes = enum_values(self, parameters, "CLASSES", context, FEATURE_CLASSES) or None
        min_conf = self.parameterAsDouble(parameters, "MIN_CONFIDENCE", context) or 0.0
        engine = self.engine(cancel, feedback, parameters, context)
        result, partial = self.fetch(lambda: engine.map_features(area, classes, min_conf))
        self.report(feedback, result, "map features")
        dest = self.write_map_features(
            parameters, context, feedback, cancel, list(result.items),
            download=self.parameterAsBool(parameters, "DOWNLOAD_IMAGES", context))
        return {"OUTPUT": dest, "COMPLETE": self.finish(partial, feedback, result)}


class FetchLatestImagery(StreetAlgorithm):
    """Most recent imagery frames within an area."""

    ALG_ID = "fetchlatestimagery"
    DISPLAY = "Fetch latest imagery"
    HELP = ("Calls POST /latest/poly once per tile of the area (cached). Costs credits per "
            "image returned; MAX_CREDITS caps the spend. Outputs frame points (EPSG:4326) with "
            "sequence, idx, timestamp, camera, heading (when HEADINGS), GPS accuracy, IMU "
            "values, the signed image URL and, when DOWNLOAD_IMAGES, image_path.")

    def init_parameters(self):
        """INPUT area, HEADINGS, images, budget, OUTPUT."""
        self.add_area_parameters()
        self.addParameter(QgsProcessingParameterBoolean(
            "HEADINGS", "Include frame headings", True))
        self.add_download_parameters()
        self.add_budget_parameter()
        self.add_refresh_parameter()
        self.add_complete_output()
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Imagery frames", TYPE_VECTOR_POINT))

    def work(self, parameters, context, feedback, cancel):
        """Fetch and write the frames."""
        area = self.query_area(parameters, context, feedback)
        headings = self.parameterAsBool(parameters, "HEADINGS", context)
        engine = self.engine(cancel, feedback, parameters, context)
        result, partial = self.fetch(lambda: engine.latest_imagery(area, headings))
        self.report(feedback, result, "frames")
        dest = self.write_frames(
            parameters, context, feedback, cancel, list(result.items),
            download=self.parameterAsBool(parameters, "DOWNLOAD_IMAGES", context))
        return {"OUTPUT": dest, "COMPLETE": self.finish(partial, feedback, result)}


class FetchImageryByWeek(StreetAlgorithm):
    """Historical imagery, one query per ISO week of a date range."""

    ALG_ID = "fetchimagerybyweek"
    DISPLAY = "Fetch imagery by week"
    HELP = ("Calls POST /imagery/poly with week=<Monday> once per tile and per ISO week "
            "touched by START_DATE..END_DATE (END_DATE empty: the week of START_DATE only; "
            "answers are cached). Costs credits per image returned; MAX_CREDITS caps the "
            "spend. Outputs frame points (EPSG:4326) with a `week` date field (the Monday).")

    def init_parameters(self):
        """INPUT area, dates, images, budget, OUTPUT."""
        self.add_area_parameters()
        self.addParameter(QgsProcessingParameterDateTime(
            "START_DATE", "Start date (any day of the first week)",
            DATETIME_DATE))
        self.addParameter(QgsProcessingParameterDateTime(
            "END_DATE", "End date (empty = only the start week)",
            DATETIME_DATE, optional=True))
        self.add_download_parameters()
        self.add_budget_parameter()
        self.add_refresh_parameter()
        self.add_complete_output()
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Imagery frames by week", TYPE_VECTOR_POINT))

    def work(self, parameters, context, feedback, cancel):
        """Fetch each week's frames and write them."""
        from ...core.weeks import weeks_between

        start = py_date(self.parameterAsDateTime(parameters, "START_DATE", context))
        if start is None:
            raise QgsProcessingException("START_DATE must be a date (YYYY-MM-DD).")
        end = None
        if parameters.get("END_DATE") not in (None, ""):
            end = py_date(self.parameterAsDateTime(parameters, "END_DATE", context))
        weeks = weeks_between(start, end or start)
        feedback.pushInfo(f"{len(weeks)} weeks: {weeks[0]} .. {weeks[-1]}.")
        area = self.query_area(parameters, context, feedback)
        engine = self.engine(cancel, feedback, parameters, context)
        result, partial = self.fetch(lambda: engine.imagery_by_week(area, weeks))
        self.report(feedback, result, "frames")
        dest = self.write_frames(
            parameters, context, feedback, cancel, list(result.items),
            name="Imagery frames by week",
            download=self.parameterAsBool(parameters, "DOWNLOAD_IMAGES", context))
        return {"OUTPUT": dest, "COMPLETE": self.finish(partial, feedback, result)}


class FetchMapData(StreetAlgorithm):
    """Features and imagery in one /map-data query per tile."""

    ALG_ID = "fetchmapdata"
    DISPLAY = "Fetch map data (features and imagery)"
    HELP = ("Calls POST /map-data (features and/or imagery in one request per tile; cached). "
            "Costs credits per detection and per image; MAX_CREDITS caps the spend. Outputs "
            "map feature points (OUTPUT) and imagery frame points (OUTPUT_IMAGERY), EPSG:4326.")

    def init_parameters(self):
        """INPUT area, FEATURES, IMAGERY, budget, OUTPUT and OUTPUT_IMAGERY."""
        self.add_area_parameters()
        self.addParameter(QgsProcessingParameterBoolean("FEATURES", "Retrieve map features",
                                                        True))
        self.addParameter(QgsProcessingParameterBoolean("IMAGERY", "Retrieve imagery", True))
        self.add_budget_parameter()
        self.add_refresh_parameter()
        self.add_complete_output()
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Map features", TYPE_VECTOR_POINT))
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT_IMAGERY", "Imagery frames", TYPE_VECTOR_POINT))

    def work(self, parameters, context, feedback, cancel):
        """Fetch and write both layers."""
        features = self.parameterAsBool(parameters, "FEATURES", context)
        imagery = self.parameterAsBool(parameters, "IMAGERY", context)
        if not features and not imagery:
            raise QgsProcessingException("Choose map features, imagery or both.")
        area = self.query_area(parameters, context, feedback)
        engine = self.engine(cancel, feedback, parameters, context)
        pair, partial = self.fetch(lambda: engine.map_data(area, features, imagery))
        feat_result, frame_result = pair
        feats = list(feat_result.items) if features else []
        frames = list(frame_result.items) if imagery else []
        self.report(feedback, feat_result, "map features")
        feedback.pushInfo(f"{len(frames)} frames.")
        dest = self.write_map_features(parameters, context, feedback, cancel, feats)
        dest_img = self.write_frames(parameters, context, feedback, cancel, frames,
                                     key="OUTPUT_IMAGERY")
        return {"OUTPUT": dest, "OUTPUT_IMAGERY": dest_img,
                "COMPLETE": self.finish(partial, feedback)}


def _burst_rows(fields, bursts) -> List[QgsFeature]:
    rows = []
    for b in bursts:
        geom = geometry_from_geojson(b.geojson)
        f = QgsFeature(fields)
        f.setAttributes([
            b.id, b.status, bool(b.is_hit), qdatetime(b.valid_from), qdatetime(b.valid_until),
            b.amount, b.credits, b.created_by, b.hash,
            (b.geojson or {}).get("type"), to_json(b.geojson),
        ])
        if geom is not None and not geom.isNull():
            if QgsWkbTypes.geometryType(geom.wkbType()) != GEOMETRY_POINT:
                geom = geom.pointOnSurface()
            f.setGeometry(geom)
        rows.append(f)
    return rows


class CreateBursts(StreetAlgorithm):
    """Burst requests: ask drivers to map the given points or polygons."""

    ALG_ID = "createbursts"
    DISPLAY = "Create bursts (request new coverage)"
    HELP = ("Calls POST /burst/create with one burst per input point or polygon (multi-part "
            "features give one burst per part). A burst costs 125 credits, charged only when "
            "a driver captures it (refunded after 7 days otherwise); when the estimate "
            "(125 × bursts) exceeds MAX_CREDITS nothing is sent. Drivers are notified at "
            "once. Outputs the created bursts as points (polygons at a point on their "
            "surface) with status, isHit and validity.")

    def init_parameters(self):
        """INPUT points or polygons, MAX_CREDITS, OUTPUT."""
        self.addParameter(QgsProcessingParameterFeatureSource(
            "INPUT", "Burst locations (points or polygons)",
            [TYPE_VECTOR_POINT, TYPE_VECTOR_POLYGON]))
        self.add_budget_parameter()
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Created bursts", TYPE_VECTOR_POINT))

    def work(self, parameters, context, feedback, cancel):
        """Estimate, check the budget, create and write the bursts."""
        source = self.source(parameters, "INPUT", context)
        if source is None:
            raise QgsProcessingException("Choose a layer of burst locations (INPUT).")
        transform = QgsCoordinateTransform(source.sourceCrs(),
                                           QgsCoordinateReferenceSystem("EPSG:4326"),
                                           context.transformContext())
        geoms: List[Dict[str, Any]] = []
        for feat in source.getFeatures(QgsFeatureRequest().setNoAttributes()):
            g = feat.geometry()
            if g is None or g.isNull() or g.isEmpty():
                continue
            g = QgsGeometry(g)
            g.transform(transform)
            for part in g.asGeometryCollection():
                part = QgsGeometry(part)
                part.get().dropZValue()
                part.get().dropMValue()
                gj = json.loads(part.asJson(7))
                if gj.get("type") not in ("Point", "Polygon"):
                    raise QgsProcessingException("Burst locations must be points or polygons.")
                geoms.append(gj)
        if not geoms:
            raise QgsProcessingException("The burst layer has no features with a geometry.")
        estimate = BURST_COST * len(geoms)
        budget = self.parameterAsDouble(parameters, "MAX_CREDITS", context) or 0.0
        feedback.pushInfo(f"{len(geoms)} bursts, up to {estimate:g} credits when captured.")
        if budget and estimate > budget:
            raise QgsProcessingException(
                f"Creating {len(geoms)} bursts may cost {estimate:g} credits (125 each), more "
                f"than the budget of {budget:g} (MAX_CREDITS); nothing was sent.")
        with self.data_client(cancel) as client:
            answer = client.create_bursts(geoms)
        if not answer.success:
            raise QgsProcessingException("The service did not accept the burst request.")
        fields = make_fields(BURST_SPEC)
        sink, dest = self.sink(parameters, context, fields, WKB_POINT, "Created bursts",
                               style="bursts")
        write_features(sink, _burst_rows(fields, answer.bursts), feedback)
        if answer.credits_remaining is not None:
            feedback.pushInfo(f"{answer.credits_remaining:g} credits remaining.")
        return {"OUTPUT": dest}


class ListBursts(StreetAlgorithm):
    """Every burst of the account with its status."""

    ALG_ID = "listbursts"
    DISPLAY = "List bursts"
    HELP = ("Calls GET /bursts page by page (free). Outputs every burst of the account as "
            "points (polygon bursts at a point on their surface) with status (active, "
            "completed, expired, refunded), is_hit (true once mapped), validity and the "
            "burst's GeoJSON.")

    def init_parameters(self):
        """OUTPUT."""
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Bursts", TYPE_VECTOR_POINT))

    def work(self, parameters, context, feedback, cancel):
        """List and write the bursts."""
        with self.data_client(cancel) as client:
            bursts = client.all_bursts()
        fields = make_fields(BURST_SPEC)
        sink, dest = self.sink(parameters, context, fields, WKB_POINT, "Bursts",
                               style="bursts")
        write_features(sink, _burst_rows(fields, bursts), feedback)
        hits = sum(1 for b in bursts if b.is_hit)
        feedback.pushInfo(f"{len(bursts)} bursts, {hits} mapped (isHit).")
        return {"OUTPUT": dest}


class FetchBurstImagery(StreetAlgorithm):
    """Latest imagery for the bursts drivers have mapped."""

    ALG_ID = "fetchburstimagery"
    DISPLAY = "Fetch imagery of mapped bursts"
    HELP = ("Calls GET /bursts (free), then POST /latest/poly over each burst whose isHit is "
            "true (point bursts get RADIUS metres; cached). Costs credits per image returned; "
            "MAX_CREDITS caps the spend. Outputs frame points (EPSG:4326) with the burst_id.")

    def init_parameters(self):
        """BURST_IDS, RADIUS, images, budget, OUTPUT."""
        self.addParameter(QgsProcessingParameterString(
            "BURST_IDS", "Burst ids, comma separated (empty = every mapped burst)",
            optional=True))
        self.addParameter(QgsProcessingParameterNumber(
            "RADIUS", "Radius around point bursts (metres)", NUMBER_DOUBLE,
            50.0, minValue=1.0))
        self.add_download_parameters()
        self.add_budget_parameter()
        self.add_refresh_parameter()
        self.add_complete_output()
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Burst imagery frames", TYPE_VECTOR_POINT))

    def work(self, parameters, context, feedback, cancel):
        """Fetch the frames of every hit burst."""
        from ...core.area import QueryArea
        from .fleet import parse_ids

        wanted = set(parse_ids(self.parameterAsString(parameters, "BURST_IDS", context)))
        radius = self.parameterAsDouble(parameters, "RADIUS", context) or 50.0
        with self.data_client(cancel) as client:
            bursts = client.all_bursts()
        hits = [b for b in bursts if b.is_hit and b.geojson and (not wanted or b.id in wanted)]
        feedback.pushInfo(f"{len(hits)} of {len(bursts)} bursts are mapped.")
        if not hits:
            feedback.pushWarning(
                "No burst is mapped yet (isHit is false for all of them): drivers cover a "
                "burst within hours in cities, days to weeks elsewhere. The layer is empty; "
                "run this again later.")
        engine = self.engine(cancel, feedback, parameters, context)
        budget, spent = engine.budget, 0.0
        frames, burst_of, partial, result = [], {}, None, None
        for i, b in enumerate(hits):
            if feedback.isCanceled():
                break
            if budget is not None:
                engine.budget = budget - spent  # one budget across every burst
            try:
                area = QueryArea.from_geojson(b.geojson, radius_m=radius)
            except FleetStreetError as exc:
                feedback.pushWarning(f"Burst {b.id}: {exc}")
                continue
            result, partial = self.fetch(lambda area=area: engine.latest_imagery(area, True))
            spent += result.credits_used or 0.0
            for fr in result.items:
                k = frame_key(fr)
                if k not in burst_of:
                    burst_of[k] = b.id
                    frames.append(fr)
            if partial is not None:
                break
            feedback.setProgress(90.0 * (i + 1) / max(1, len(hits)))
        feedback.pushInfo(f"{len(frames)} frames, {spent:g} credits used.")
        dest = self.write_frames(
            parameters, context, feedback, cancel, frames, name="Burst imagery frames",
            extra_spec=[("burst_id", "string")], extra=lambda fr: [burst_of.get(frame_key(fr))],
            download=self.parameterAsBool(parameters, "DOWNLOAD_IMAGES", context))
        return {"OUTPUT": dest, "COMPLETE": self.finish(partial, feedback, result)}


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


class CreditBalance(StreetAlgorithm):
    """The account's remaining API credits."""

    ALG_ID = "creditbalance"
    DISPLAY = "Credit balance"
    HELP = "Calls GET /balance (free). Outputs the remaining API credits as the number BALANCE."

    def init_parameters(self):
        """BALANCE output."""
        self.addOutput(QgsProcessingOutputNumber("BALANCE", "Remaining credits"))

    def work(self, parameters, context, feedback, cancel):
        """Read the balance."""
        with self.data_client(cancel) as client:
            balance = client.balance()
        feedback.pushInfo(f"Remaining credits: {balance:g}.")
        return {"BALANCE": balance}


class CameraIntrinsics(StreetAlgorithm):
    """Lens parameters of each camera model."""

    ALG_ID = "cameraintrinsics"
    DISPLAY = "Camera intrinsics"
    NEEDS_KEY = False
    HELP = ("Calls GET /devices (free, no key needed). Outputs a table with one row per "
            "camera model: focal length (normalised by image width) and distortion terms "
            "k1..k4, p1, p2, as used by 'Undistort images'.")

    def init_parameters(self):
        """OUTPUT table."""
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Camera intrinsics", TYPE_VECTOR))

    def work(self, parameters, context, feedback, cancel):
        """Fetch and write the intrinsics."""
        with self.data_client(cancel) as client:
            models = client.camera_intrinsics()
        fields = make_fields(INTRINSICS_SPEC)
        sink, dest = self.sink(parameters, context, fields, WKB_NO_GEOMETRY,
                               "Camera intrinsics")
        rows = []
        for name in sorted(models):
            m = models[name]
            f = QgsFeature(fields)
            f.setAttributes([m.model, m.focal, m.k1, m.k2, m.k3, m.k4, m.p1, m.p2])
            rows.append(f)
        write_features(sink, rows, feedback)
        return {"OUTPUT": dest}


class UndistortImages(StreetAlgorithm):
    """Undistorted copies of downloaded frame images."""

    ALG_ID = "undistortimages"
    DISPLAY = "Undistort images"
    NEEDS_KEY = False
    HELP = ("Calls GET /devices (free) for the camera intrinsics, then undistorts each local "
            "image of the INPUT frame layer (fields image_path and device, as written by the "
            "imagery algorithms with DOWNLOAD_IMAGES) with the model of its camera, using "
            "numpy only. Writes the corrected JPEGs to OUTPUT_FOLDER; outputs the folder and "
            "the number of images written (COUNT).")

    def init_parameters(self):
        """INPUT frame layer, field names, OUTPUT_FOLDER."""
        from qgis.core import QgsProcessingParameterField, QgsProcessingParameterFolderDestination

        self.addParameter(QgsProcessingParameterFeatureSource(
            "INPUT", "Frames with downloaded images", [TYPE_VECTOR]))
        self.addParameter(advanced(QgsProcessingParameterField(
            "PATH_FIELD", "Image path field", "image_path", "INPUT", optional=True)))
        self.addParameter(advanced(QgsProcessingParameterField(
            "DEVICE_FIELD", "Camera model field", "device", "INPUT", optional=True)))
        self.addParameter(QgsProcessingParameterFolderDestination(
            "OUTPUT_FOLDER", "Folder for the undistorted images"))
        self.addOutput(QgsProcessingOutputNumber("COUNT", "Images written"))

    def work(self, parameters, context, feedback, cancel):
        """Undistort every image with a known camera model."""
        from .imaging import undistort_file

        source = self.source(parameters, "INPUT", context)
        if source is None:
            raise QgsProcessingException("Choose the frame layer (INPUT).")
        path_field = self.parameterAsString(parameters, "PATH_FIELD", context) or "image_path"
        device_field = self.parameterAsString(parameters, "DEVICE_FIELD", context) or "device"
        names = source.fields().names()
        for name in (path_field, device_field):
            if name not in names:
                raise QgsProcessingException(f"The INPUT layer has no field '{name}'.")
        folder = self.parameterAsString(parameters, "OUTPUT_FOLDER", context)
        os.makedirs(folder, exist_ok=True)
        jobs = []
        request = QgsFeatureRequest().setFlags(REQUEST_NO_GEOMETRY)
        request.setSubsetOfAttributes([path_field, device_field], source.fields())
        for feat in source.getFeatures(request):
            path, model = feat[path_field], feat[device_field]
            if isinstance(path, str) and path and os.path.exists(path):
                jobs.append((path, str(model) if model else ""))
        if not jobs:
            raise QgsProcessingException(
                "No frame of INPUT has an existing local image (run an imagery algorithm with "
                "DOWNLOAD_IMAGES first).")
        with self.data_client(cancel) as client:
            models = client.camera_intrinsics()
        written = 0
        for i, (path, model) in enumerate(jobs):
            if feedback.isCanceled():
                break
            intr = models.get(model)
            if intr is None:
                feedback.pushWarning(f"No intrinsics for camera '{model}': {path} skipped.")
                continue
            target = os.path.join(folder, os.path.basename(path))
            try:
                undistort_file(path, target, intr)
                written += 1
            except (OSError, ValueError) as exc:
                feedback.pushWarning(f"{path}: {exc}")
            feedback.setProgress(100.0 * (i + 1) / len(jobs))
        feedback.pushInfo(f"{written} images written to {folder}.")
        return {"OUTPUT_FOLDER": folder, "COUNT": written}


STREET_ALGORITHMS = [
    FetchMapFeatures, FetchLatestImagery, FetchImageryByWeek, FetchMapData, CreateBursts,
    ListBursts, FetchBurstImagery, SearchAIEvents, CreditBalance, CameraIntrinsics,
    UndistortImages,
]
