"""Bursts: create them after a cost check, list them, fetch the imagery of mapped ones."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsFeature,
    QgsFeatureRequest,
    QgsGeometry,
    QgsProcessingException,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterNumber,
    QgsProcessingParameterString,
    QgsWkbTypes,
)

from ...core.errors import FleetStreetError
from ..compat import (
    GEOMETRY_POINT,
    NUMBER_DOUBLE,
    TYPE_VECTOR_POINT,
    TYPE_VECTOR_POLYGON,
    WKB_POINT,
)
from ..fields import (
    frame_key,
    make_fields,
    qdatetime,
    to_json,
    write_features,
)
from .base import stop_requested
from .street_base import (
    StreetAlgorithm,
    geometry_from_geojson,
)

BURST_COST = 125.0

BURST_SPEC = [
    ("id", "string"), ("status", "string"), ("is_hit", "bool"),
    ("valid_from", "datetime"), ("valid_until", "datetime"),
    ("amount", "double"), ("credits", "double"), ("created_by", "string"),
    ("hash", "string"), ("geometry_type", "string"), ("geojson", "string"),
]


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
            if stop_requested(feedback):
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
        return {"OUTPUT": dest, **self.finish(partial, feedback, result, credits_used=spent)}
