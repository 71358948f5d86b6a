"""Shared base of the street-level data algorithms: connection, cache, fetch, writing."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

from qgis.core import (
    QgsGeometry,
    QgsPoint,
    QgsProcessingException,
    QgsProcessingOutputBoolean,
    QgsProcessingOutputNumber,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterFile,
    QgsProcessingUtils,
)

from ...core.errors import PartialFetchError
from ..compat import (
    FILE_FOLDER,
    WKB_POINT,
)
from ..fields import (
    frame_features,
    frame_fields,
    frame_key,
    line,
    map_feature_features,
    map_feature_fields,
    write_features,
)
from .base import FleetStreetAlgorithm, ProgressAdapter, advanced, default_cache_dir

FEATURE_CLASSES = [
    "speed-sign", "stop-sign", "parking-restriction-sign", "turn-restriction-sign",
    "highway-sign", "fire-hydrant", "traffic-light", "lane-line",
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
            # /map-data gives a (features, frames) pair sharing one set of tiles
            tally = result[0] if isinstance(result, tuple) else result
            got = tally is not None and (tally.tiles_fetched or tally.tiles_from_cache)
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
        """COMPLETE, CREDITS_USED and CREDITS_REMAINING outputs of a fetch."""
        self.addOutput(QgsProcessingOutputBoolean(
            "COMPLETE", "Every tile fetched (false: budget reached, cancelled or a tile failed)"))
        self.addOutput(QgsProcessingOutputNumber("CREDITS_USED", "Credits used by this run"))
        self.addOutput(QgsProcessingOutputNumber("CREDITS_REMAINING", "Credits remaining"))

    def finish(self, partial, feedback, result=None, credits_used=None) -> Dict[str, Any]:
        """The COMPLETE and credit outputs, reporting an incomplete fetch after it is written.

        An incomplete fetch still returns its outputs: failing the algorithm would make
        Processing drop a temporary layer holding results that were paid for.
        """
        cancelled = bool(result is not None and getattr(result, "cancelled", False))
        if cancelled:
            feedback.pushWarning("Cancelled: the layer holds what was fetched before.")
        if partial is not None:
            feedback.reportError(
                f"{partial} Answers already received are cached: running it again costs "
                "credits only for the rest.", False)
        if credits_used is None and result is not None:
            credits_used = result.credits_used
        return {"COMPLETE": partial is None and not cancelled,
                "CREDITS_USED": credits_used,
                "CREDITS_REMAINING": getattr(result, "credits_remaining", None)}

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
