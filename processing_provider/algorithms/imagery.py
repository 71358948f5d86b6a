"""Imagery frames: the latest, by ISO week, and the combined map-data call."""

from __future__ import annotations

from qgis.core import (
    QgsProcessingException,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterDateTime,
    QgsProcessingParameterFeatureSink,
)

from ..compat import (
    DATETIME_DATE,
    TYPE_VECTOR_POINT,
)
from .fleet import py_date
from .street_base import (
    StreetAlgorithm,
)


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
        return {"OUTPUT": dest, **self.finish(partial, feedback, result)}


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
        return {"OUTPUT": dest, **self.finish(partial, feedback, result)}


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
                **self.finish(partial, feedback, feat_result)}
