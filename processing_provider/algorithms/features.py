"""Map features within an area."""

from __future__ import annotations

from qgis.core import (
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterNumber,
)

from ..compat import (
    NUMBER_DOUBLE,
    TYPE_VECTOR_POINT,
)
from .street_base import (
    FEATURE_CLASSES,
    StreetAlgorithm,
    enum_values,
)


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
        return {"OUTPUT": dest, **self.finish(partial, feedback, result)}
