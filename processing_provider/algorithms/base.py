"""Shared machinery of the Fleet Street algorithms: connection, errors, progress, cancel, area."""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, Dict, Iterable, List, Optional, Tuple

from qgis.core import (
    QgsApplication,
    QgsFeature,
    QgsFeatureRequest,
    QgsGeometry,
    QgsProcessingAlgorithm,
    QgsProcessingException,
    QgsProcessingParameterAuthConfig,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterNumber,
    QgsWkbTypes,
)
from qgis.PyQt.QtGui import QIcon

from ...core.cancel import CancelToken
from ...core.errors import FetchCancelled, FleetStreetError
from ..compat import (
    GEOMETRY_LINE,
    GEOMETRY_POINT,
    NUMBER_DOUBLE,
    PARAMETER_ADVANCED,
    SKIP_VALIDITY_CHECKS,
    TYPE_VECTOR_ANY,
    WKT2_2019,
)
from ..connection import resolve_profile
from ..provider import ICON_PATH
from ..styling import StylePostProcessor

GROUPS = {
    "streetlevel": "Street-level data",
    "fleet": "Fleet",
}

MISSING = {
    "data": ("Set the data API address and key in Fleet Street › Connection Settings, "
             "or FLEETSTREET_DATA_URL/FLEETSTREET_DATA_KEY"),
    "fleet": ("Set the fleet API address and key in Fleet Street › Connection Settings, "
              "or FLEETSTREET_FLEET_URL/FLEETSTREET_FLEET_KEY"),
}


def advanced(param: QgsProcessingParameterDefinition) -> QgsProcessingParameterDefinition:
    """Mark a parameter as advanced, across the QGIS 3.x/4 flag renames."""
    param.setFlags(param.flags() | PARAMETER_ADVANCED)
    return param


def default_cache_dir(profile) -> str:
    """Folder of the response cache: the profile's, else one under the QGIS settings folder."""
    if getattr(profile, "cache_dir", None):
        return profile.cache_dir
    return os.path.join(QgsApplication.qgisSettingsDirPath(), "fleet_street", "cache")


def stop_requested(feedback) -> bool:
    """True when the run should stop: cancelled, or asked to stop and keep what it has.

    A feedback may carry `stop_requested = True` (the panel's Cancel): the algorithm then
    ends normally with what it fetched, whereas Processing discards the outputs of a
    cancelled run.
    """
    if feedback is None:
        return False
    return feedback.isCanceled() or bool(getattr(feedback, "stop_requested", False))


class CancelWatcher:
    """Turns feedback.isCanceled() into a CancelToken without relying on queued signals."""

    def __init__(self, feedback, token: Optional[CancelToken] = None, interval: float = 0.2):
        self.feedback = feedback
        self.token = token or CancelToken()
        self.interval = interval
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if stop_requested(self.feedback):
                self.token.cancel()
                return

    def __enter__(self) -> CancelToken:
        self._thread = threading.Thread(target=self._run, name="fleetstreet-cancel", daemon=True)
        self._thread.start()
        return self.token

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)


class ProgressAdapter:
    """Maps core FetchProgress reports onto a QgsProcessingFeedback (thread-safe calls only)."""

    def __init__(self, feedback, start: float = 0.0, span: float = 90.0, unit: str = "tiles"):
        self.feedback = feedback
        self.start = start
        self.span = span
        self.unit = unit
        self._last_info = -1
        self._lock = threading.Lock()

    def __call__(self, p: Any) -> None:
        """Receive one FetchProgress."""
        fb = self.feedback
        if fb is None:
            return
        total = getattr(p, "tiles_total", None) or getattr(p, "total", None) or 0
        done = getattr(p, "tiles_done", None)
        if done is None:
            done = getattr(p, "done", 0) or 0
        objects = getattr(p, "objects", None)
        if objects is None:
            objects = getattr(p, "items", None)
        credits = getattr(p, "credits_used", None)
        with self._lock:
            if total:
                fb.setProgress(self.start + self.span * min(1.0, done / total))
            # About twenty log lines per run, whatever the number of tiles or files.
            step = max(1, total // 20) if total else 1
            if done != self._last_info and (done % step == 0 or done == total):
                self._last_info = done
                parts = [f"{self.unit} {done}/{total}"]
                if objects is not None and self.unit == "tiles":
                    parts.append(f"{objects} objects")
                if credits and self.unit == "tiles":
                    parts.append(f"{credits:g} credits used")
                message = getattr(p, "message", None)
                if message:
                    parts.append(str(message))
                fb.pushInfo(", ".join(parts))


class FleetStreetAlgorithm(QgsProcessingAlgorithm):
    """Base of every Fleet Street algorithm: ids, help, connection, errors."""

    ALG_ID = ""
    DISPLAY = ""
    GROUP = "streetlevel"
    API = "data"
    NEEDS_KEY = True
    HELP = ""
    AUTH = "AUTH"

    def __init__(self):
        super().__init__()
        self.profile = None
        self.setup_error: Optional[str] = None
        self.post_processors: Dict[str, StylePostProcessor] = {}
        self.closables: List[Any] = []
        self.sources: Dict[str, Any] = {}

    # -- identity -------------------------------------------------------------------------

    def createInstance(self):  # noqa: N802 - QGIS API name
        """A fresh instance: algorithms keep per-run state on the instance only."""
        return type(self)()

    def name(self) -> str:
        """Algorithm id within the provider."""
        return self.ALG_ID

    def displayName(self) -> str:  # noqa: N802 - QGIS API name
        """Name shown in the toolbox."""
        return self.DISPLAY

    def group(self) -> str:
        """Group name shown in the toolbox."""
        return GROUPS[self.GROUP]

    def groupId(self) -> str:  # noqa: N802 - QGIS API name
        """Group id."""
        return self.GROUP

    def shortHelpString(self) -> str:  # noqa: N802 - QGIS API name
        """What the algorithm calls, what it costs and what it outputs."""
        return self.HELP

    def helpString(self) -> str:  # noqa: N802 - QGIS API name
        """Same text as the short help."""
        return self.HELP

    def icon(self) -> QIcon:
        """Provider icon."""
        return QIcon(ICON_PATH)

    def svgIconPath(self) -> str:  # noqa: N802 - QGIS API name
        """Path of the provider icon."""
        return ICON_PATH

    # -- parameters -----------------------------------------------------------------------

    def initAlgorithm(self, config=None):  # noqa: N802 - QGIS API name
        """Declare the algorithm's parameters plus the optional AUTH override."""
        self.init_parameters()
        if self.NEEDS_KEY:
            self.addParameter(advanced(QgsProcessingParameterAuthConfig(
                self.AUTH, "Authentication configuration (overrides the stored key)",
                optional=True)))

    def init_parameters(self) -> None:
        """Subclasses declare their parameters here."""

    def add_area_parameters(self, optional: bool = False) -> None:
        """INPUT area source plus BUFFER (lines) and RADIUS (points) in metres."""
        self.addParameter(QgsProcessingParameterFeatureSource(
            "INPUT", "Query area (polygons; lines are buffered, points get a radius)",
            [TYPE_VECTOR_ANY], optional=optional))
        self.addParameter(QgsProcessingParameterNumber(
            "BUFFER", "Buffer around lines (metres)", NUMBER_DOUBLE,
            25.0, minValue=0.0))
        self.addParameter(QgsProcessingParameterNumber(
            "RADIUS", "Radius around points (metres)", NUMBER_DOUBLE,
            50.0, minValue=0.0))

    def add_budget_parameter(self) -> None:
        """MAX_CREDITS: optional credit budget (0 = no limit)."""
        budget = QgsProcessingParameterNumber(
            "MAX_CREDITS", "Maximum credits to spend (0 = no limit)",
            NUMBER_DOUBLE, 0.0, optional=True, minValue=0.0)
        budget.setMetadata({"widget_wrapper": {"decimals": 0}})
        self.addParameter(budget)

    # -- run ------------------------------------------------------------------------------

    def prepareAlgorithm(self, parameters, context, feedback):  # noqa: N802 - QGIS API name
        """Resolve the connection on the main thread (the auth database lives there)."""
        # A failure is kept for processAlgorithm: an exception raised here reaches
        # processing.run and qgis_process only as a generic "errors executing" message.
        self.profile, self.setup_error = None, None
        self.snapshot_sources(parameters, context)
        authcfg = ""
        if self.NEEDS_KEY and self.AUTH in parameters:
            authcfg = self.parameterAsString(parameters, self.AUTH, context) or ""
        try:
            profile = resolve_profile(authcfg, self.API)
        except FleetStreetError as exc:
            self.setup_error = str(exc)
            return True
        url = profile.data_url if self.API == "data" else profile.fleet_url
        key = profile.data_key if self.API == "data" else profile.fleet_key
        if not url or (self.NEEDS_KEY and not key):
            self.setup_error = MISSING[self.API] + "."
            return True
        self.profile = profile
        return True

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802 - QGIS API name
        """Run the algorithm, turning core errors into readable Processing errors."""
        if self.profile is None and self.setup_error is None:
            self.prepareAlgorithm(parameters, context, feedback)
        if self.setup_error is not None:
            raise QgsProcessingException(self.setup_error)
        # The message is raised outside the except blocks: a chained exception would keep the
        # failed run's frames, and with them its feature sinks, alive until interpreter exit.
        error = None
        try:
            with CancelWatcher(feedback) as token:
                return self.work(parameters, context, feedback, token)
        except FetchCancelled:
            if feedback is None or not feedback.isCanceled():
                raise
            feedback.reportError("Cancelled by the user.")
            error = "Cancelled by the user."
        except (FleetStreetError, QgsProcessingException) as exc:
            error = str(exc)
        finally:
            for item in self.closables:
                # Closing a pool must not hide the run's own outcome.
                with contextlib.suppress(Exception):
                    item.close()
            self.closables = []
        raise QgsProcessingException(error)

    def work(self, parameters, context, feedback, cancel: CancelToken) -> Dict[str, Any]:
        """Subclasses do their work here and return the outputs dict."""
        raise NotImplementedError

    # -- helpers --------------------------------------------------------------------------

    def data_client(self, cancel: CancelToken):
        """A data API client for this run."""
        from ...core.data_client import DataClient

        client = DataClient(self.profile, cancel)
        self.closables.append(client)
        return client

    def fleet_client(self, cancel: CancelToken):
        """A fleet API client for this run."""
        from ...core.fleet_client import FleetClient

        client = FleetClient(self.profile, cancel)
        self.closables.append(client)
        return client

    def sink(self, parameters, context, fields, wkb_type, name: str,
             style: Optional[str] = None, key: str = "OUTPUT", crs=None,
             optional: bool = False):
        """Create an output sink; the loaded layer gets `name` and the QML style `style`."""
        from ..fields import WGS84

        sink, dest_id = self.parameterAsSink(parameters, key, context, fields, wkb_type,
                                             crs or WGS84)
        if sink is None:
            if optional:
                return None, None
            raise QgsProcessingException(self.invalidSinkError(parameters, key))
        if context.willLoadLayerOnCompletion(dest_id):
            details = context.layerToLoadOnCompletionDetails(dest_id)
            # a name the caller chose (the panel, a model) wins over the default one
            if not getattr(parameters.get(key), "destinationName", ""):
                details.name = name
            if style:
                processor = StylePostProcessor(style)
                # Processing keeps only a raw pointer: the instance must hold it.
                self.post_processors[dest_id] = processor
                details.setPostProcessor(processor)
        return sink, dest_id

    def snapshot_sources(self, parameters, context) -> None:
        """Take the feature sources on the main thread, where their layers live.

        A QgsProcessingFeatureSource is a thread-safe snapshot of its layer once made, but
        making it reads the layer, which must not happen on the worker thread.
        """
        self.sources = {}
        for definition in self.parameterDefinitions():
            if (isinstance(definition, QgsProcessingParameterFeatureSource)
                    and parameters.get(definition.name()) not in (None, "")):
                self.sources[definition.name()] = self.parameterAsSource(
                    parameters, definition.name(), context)

    def source(self, parameters, key: str, context):
        """The feature source of parameter key: the main-thread snapshot when there is one."""
        snapshot = self.sources.get(key)
        return snapshot if snapshot is not None else self.parameterAsSource(
            parameters, key, context)

    def write_table(self, parameters, context, feedback, spec, name: str,
                    rows: Iterable[List[Any]]) -> Tuple[str, int]:
        """Write attribute rows (no geometry) to OUTPUT; return (destination id, row count)."""
        from ..compat import WKB_NO_GEOMETRY
        from ..fields import make_fields, write_features

        fields = make_fields(spec)
        sink, dest = self.sink(parameters, context, fields, WKB_NO_GEOMETRY, name)
        features = []
        for attributes in rows:
            feature = QgsFeature(fields)
            feature.setAttributes(list(attributes))
            features.append(feature)
        write_features(sink, features, feedback)
        return dest, len(features)

    def query_area(self, parameters, context, feedback, key: str = "INPUT",
                   required: bool = True):
        """The union of the (selected) input geometries as a core QueryArea in EPSG:4326."""
        from ...core.area import QueryArea

        source = self.source(parameters, key, context)
        if source is None:
            if required:
                raise QgsProcessingException("Choose a query area layer (INPUT).")
            return None
        geoms: List[QgsGeometry] = []
        request = QgsFeatureRequest().setNoAttributes()
        # an area is repaired below rather than refused: a hand-drawn bow-tie is still an area
        for feat in source.getFeatures(request, SKIP_VALIDITY_CHECKS):
            g = feat.geometry()
            if g is not None and not g.isNull() and not g.isEmpty():
                g = QgsGeometry(g)
                # curves to segments: neither the union nor shapely take curved geometries
                g.convertToStraightSegment()
                if not g.isGeosValid():
                    g = g.makeValid()
                geoms.append(g)
        if not geoms:
            raise QgsProcessingException(
                "The query area layer has no features with a geometry"
                " (check the 'selected features only' option and the selection).")
        union = QgsGeometry.unaryUnion(geoms) if len(geoms) > 1 else geoms[0]
        if union is None or union.isNull() or union.isEmpty():
            raise QgsProcessingException("The query area geometries could not be combined.")
        gtype = QgsWkbTypes.geometryType(union.wkbType())
        buffer_m = radius_m = None
        if gtype == GEOMETRY_LINE:
            buffer_m = self.parameterAsDouble(parameters, "BUFFER", context) or None
            if not buffer_m:
                raise QgsProcessingException("Lines need a buffer above 0 metres (BUFFER).")
        elif gtype == GEOMETRY_POINT:
            radius_m = self.parameterAsDouble(parameters, "RADIUS", context) or None
            if not radius_m:
                raise QgsProcessingException("Points need a radius above 0 metres (RADIUS).")
        crs = source.sourceCrs()
        if not crs.isValid():
            raise QgsProcessingException("The query area layer has no valid CRS.")
        authid = crs.authid()
        # USER: and other QGIS-only ids mean nothing to PROJ: send the full definition.
        crs_text = authid if authid.split(":")[0] in ("EPSG", "ESRI", "IGNF", "OGC") \
            else crs.toWkt(WKT2_2019)
        flat = QgsGeometry(union)
        flat.get().dropZValue()  # shapely 1.8 (system Python of qgis_process) reads 2D WKB best
        flat.get().dropMValue()
        try:
            return QueryArea.from_wkb(bytes(flat.asWkb()), crs_text, buffer_m=buffer_m,
                                      radius_m=radius_m)
        except FleetStreetError as exc:
            raise QgsProcessingException(str(exc)) from None


__all__ = [
    "FleetStreetAlgorithm",
    "ProgressAdapter",
    "CancelWatcher",
    "advanced",
    "default_cache_dir",
]
