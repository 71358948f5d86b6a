"""The Fleet Street dock panel: pick an area and what to fetch, run it in the background."""

from __future__ import annotations

import contextlib

from qgis.core import (
    Qgis,
    QgsApplication,
    QgsCoordinateTransform,
    QgsGeometry,
    QgsProcessingOutputLayerDefinition,
    QgsProject,
    QgsSettings,
)
from qgis.gui import QgsDateEdit, QgsDockWidget, QgsFileWidget
from qgis.PyQt.QtCore import QDate, Qt
from qgis.PyQt.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..core.tiling import tile_count
from ..processing_provider.algorithms.street_base import FEATURE_CLASSES
from .area_source import AREA_CHOICES, DRAWN, DRAWN_CRS, AreaError, area_input, area_km2
from .draw_tool import PolygonDrawTool
from .job_runner import Job, JobRunner

TEMPORARY = "TEMPORARY_OUTPUT"
DOCK_SETTINGS = "fleet_street/dock"
# what the panel does not cover itself: opened in their Processing dialogs
MORE_ALGORITHMS = [
    ("fleetstreet:createbursts", "Create bursts…"),
    ("fleetstreet:listbursts", "List bursts…"),
    ("fleetstreet:fetchburstimagery", "Burst imagery…"),
    ("fleetstreet:searchaievents", "AI events…"),
    ("fleetstreet:fetchmapdata", "Map data…"),
    ("fleetstreet:undistortimages", "Undistort…"),
    ("fleetstreet:listdevices", "Fleet devices…"),
    ("fleetstreet:cameraintrinsics", "Intrinsics…"),
]


def free_table_name(gpkg: str, wanted: str) -> str:
    """`wanted`, or `wanted_2`, `wanted_3`... so that an earlier fetch is never overwritten."""
    import os

    from osgeo import ogr

    if not os.path.exists(gpkg):
        return wanted
    source = ogr.Open(gpkg)
    if source is None:
        return wanted
    taken = {source.GetLayer(i).GetName() for i in range(source.GetLayerCount())}
    source = None  # closes the file before Processing writes to it
    name, n = wanted, 1
    while name in taken:
        n += 1
        name = f"{wanted}_{n}"
    return name


class FleetStreetDock(QgsDockWidget):
    """Panel from which the fetch algorithms are run on an area."""

    def __init__(self, iface, parent=None):
        super().__init__("Fleet Street", parent)
        self.iface = iface
        self.runner = JobRunner(self)
        self.runner.progress.connect(self._on_progress)
        self.runner.message.connect(self._on_message)
        self.runner.job_finished.connect(self._on_job_finished)
        self.runner.all_finished.connect(self._on_all_finished)
        self._drawn: QgsGeometry | None = None
        self._draw_tool = None
        self._area_layers = []
        self._done: list[str] = []
        self._incomplete = False
        self._spent = 0.0
        self._build()
        self.restore_choices()
        self._watched_layer = None
        iface.currentLayerChanged.connect(self._on_layer_changed)

    # --- layout -------------------------------------------------------------------------

    def _build(self) -> None:
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self._area_group())
        layout.addWidget(self._data_group())
        layout.addWidget(self._fleet_group())
        layout.addWidget(self._output_group())
        layout.addWidget(self._more_group())

        buttons = QHBoxLayout()
        self.fetch_button = QPushButton(QgsApplication.getThemeIcon("/mActionStart.svg"), "Fetch")
        self.fetch_button.setObjectName("FleetStreetFetch")
        self.fetch_button.clicked.connect(self.fetch)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.runner.cancel)
        buttons.addWidget(self.fetch_button, 1)
        buttons.addWidget(self.cancel_button)
        layout.addLayout(buttons)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        layout.addWidget(self.progress)
        self.status = QLabel("Choose an area and what to fetch.")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)

        balance = QHBoxLayout()
        self.balance_label = QLabel("Credits: —")
        refresh = QPushButton("Check balance")
        refresh.clicked.connect(self.check_balance)
        balance.addWidget(self.balance_label, 1)
        balance.addWidget(refresh)
        layout.addLayout(balance)
        layout.addStretch(1)

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        self.setWidget(scroll)

    def _area_group(self) -> QGroupBox:
        group = QGroupBox("Area")
        form = QFormLayout(group)
        row = QHBoxLayout()
        self.area_choice = QComboBox()
        self.area_choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.area_choice.setMinimumContentsLength(14)
        for key, label in AREA_CHOICES:
            self.area_choice.addItem(label, key)
        self.draw_button = QPushButton("Draw")
        self.draw_button.setToolTip("Click the corners of the area on the map; "
                                    "right-click or Enter to finish")
        self.draw_button.clicked.connect(self.start_drawing)
        row.addWidget(self.area_choice, 1)
        row.addWidget(self.draw_button)
        form.addRow(row)
        self.buffer_m = QDoubleSpinBox()
        self.buffer_m.setRange(1, 1000)
        self.buffer_m.setValue(25)
        self.buffer_m.setSuffix(" m")
        self.radius_m = QDoubleSpinBox()
        self.radius_m.setRange(1, 1200)
        self.radius_m.setValue(100)
        self.radius_m.setSuffix(" m")
        form.addRow("Buffer around lines", self.buffer_m)
        form.addRow("Radius around points", self.radius_m)
        self.area_label = QLabel("")
        self.area_label.setWordWrap(True)
        form.addRow(self.area_label)
        self.area_choice.currentIndexChanged.connect(self.update_area_label)
        return group

    def _data_group(self) -> QGroupBox:
        group = QGroupBox("Street-level data")
        form = QFormLayout(group)
        self.want_features = QCheckBox("Map features")
        self.want_features.setChecked(True)
        form.addRow(self.want_features)
        self.classes = QListWidget()
        self.classes.setMaximumHeight(110)
        for name in FEATURE_CLASSES:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.classes.addItem(item)
        form.addRow("Classes", self.classes)
        self.min_confidence = QDoubleSpinBox()
        self.min_confidence.setRange(0, 1)
        self.min_confidence.setSingleStep(0.05)
        self.min_confidence.setValue(0.5)
        form.addRow("Minimum confidence", self.min_confidence)
        self.want_latest = QCheckBox("Latest imagery (frame points)")
        self.want_latest.setChecked(True)
        form.addRow(self.want_latest)
        self.want_weeks = QCheckBox("Imagery by week")
        form.addRow(self.want_weeks)
        self.week_from = QgsDateEdit()
        self.week_from.setDate(QDate.currentDate().addDays(-28))
        self.week_to = QgsDateEdit()
        self.week_to.setDate(QDate.currentDate())
        form.addRow("Weeks from", self.week_from)
        form.addRow("to", self.week_to)
        self.download_images = QCheckBox("Download images (signed links expire)")
        self.download_images.setChecked(True)
        form.addRow(self.download_images)
        return group

    def _fleet_group(self) -> QGroupBox:
        group = QGroupBox("Fleet")
        form = QFormLayout(group)
        self.devices = QLineEdit()
        self.devices.setPlaceholderText("all devices (or ids, comma-separated)")
        form.addRow("Devices", self.devices)
        self.want_locations = QCheckBox("Latest device locations")
        self.want_trips = QCheckBox("Trips")
        form.addRow(self.want_locations)
        form.addRow(self.want_trips)
        self.trips_from = QgsDateEdit()
        self.trips_from.setDate(QDate.currentDate().addDays(-7))
        self.trips_to = QgsDateEdit()
        self.trips_to.setDate(QDate.currentDate())
        form.addRow("Dates from", self.trips_from)
        form.addRow("to", self.trips_to)
        self.want_rewards = QCheckBox("Weekly rewards for these dates")
        form.addRow(self.want_rewards)
        return group

    def _output_group(self) -> QGroupBox:
        group = QGroupBox("Output")
        form = QFormLayout(group)
        self.to_memory = QRadioButton("Temporary layers")
        self.to_gpkg = QRadioButton("GeoPackage")
        self.to_memory.setChecked(True)
        choice = QHBoxLayout()
        choice.addWidget(self.to_memory)
        choice.addWidget(self.to_gpkg)
        form.addRow(choice)
        self.gpkg = QgsFileWidget()
        self.gpkg.setStorageMode(QgsFileWidget.StorageMode.SaveFile)
        self.gpkg.setFilter("GeoPackage (*.gpkg)")
        form.addRow("File", self.gpkg)
        self.max_credits = QSpinBox()
        self.max_credits.setRange(0, 10_000_000)
        self.max_credits.setSpecialValueText("no limit")
        self.max_credits.setSuffix(" credits")
        form.addRow("Budget", self.max_credits)
        return group

    def _more_group(self) -> QGroupBox:
        group = QGroupBox("More (Processing dialogs)")
        grid = QGridLayout(group)
        for i, (alg_id, label) in enumerate(MORE_ALGORITHMS):
            button = QPushButton(label)
            button.setObjectName(f"FleetStreetOpen_{alg_id.split(':')[1]}")
            button.setToolTip(f"Open the {alg_id} algorithm")
            button.clicked.connect(lambda _checked=False, a=alg_id: self.open_algorithm(a))
            grid.addWidget(button, i // 2, i % 2)
        return group

    def open_algorithm(self, algorithm_id: str) -> None:
        """Open a Fleet Street algorithm in the standard Processing dialog."""
        from processing import execAlgorithmDialog

        execAlgorithmDialog(algorithm_id, {})

    # --- drawing ------------------------------------------------------------------------

    def start_drawing(self) -> None:
        """Let the user click the corners of a polygon on the map canvas."""
        canvas = self.iface.mapCanvas()
        if self._draw_tool is None:
            self._draw_tool = PolygonDrawTool(canvas)
            self._draw_tool.finished.connect(self._on_drawn)
        canvas.setMapTool(self._draw_tool)
        self.status.setText("Click the corners of the area; right-click or Enter to finish, "
                            "Escape to start again.")

    def _on_drawn(self, geometry: QgsGeometry) -> None:
        drawn = QgsGeometry(geometry)
        to_lonlat = QgsCoordinateTransform(self.iface.mapCanvas().mapSettings().destinationCrs(),
                                           DRAWN_CRS, QgsProject.instance())
        drawn.transform(to_lonlat)
        self._drawn = drawn
        self.area_choice.setCurrentIndex(self.area_choice.findData(DRAWN))
        self.iface.mapCanvas().unsetMapTool(self._draw_tool)
        self.update_area_label()
        self.status.setText("Area drawn. Press Fetch.")

    def _on_layer_changed(self, layer) -> None:
        """Follow the active layer's selection so the size estimate stays current."""
        if self._watched_layer is not None:
            with contextlib.suppress(TypeError, RuntimeError):
                self._watched_layer.selectionChanged.disconnect(self.update_area_label)
        self._watched_layer = layer if hasattr(layer, "selectionChanged") else None
        if self._watched_layer is not None:
            self._watched_layer.selectionChanged.connect(self.update_area_label)
        self.update_area_label()

    def update_area_label(self, *_args) -> None:
        """Show the size of the chosen area and the requests it takes per query."""
        try:
            km2 = area_km2(self.area_choice.currentData(), self.iface.activeLayer(),
                           self.iface.mapCanvas(), self._drawn)
        except Exception:  # noqa: BLE001 - an estimate only; the fetch reports real errors
            km2 = 0.0
        if km2 <= 0:
            self.area_label.setText("")
            return
        tiles, _cap = tile_count(km2)
        self.area_label.setText(
            f"{km2:,.2f} km²: about {tiles} request{'s' if tiles != 1 else ''} per query "
            "(the service takes under 5 km² at a time).")

    # --- running ------------------------------------------------------------------------

    def _destination(self, name: str):
        """An output definition: a temporary layer or a table in the chosen GeoPackage."""
        if self.to_gpkg.isChecked():
            path = self.gpkg.filePath()
            table = free_table_name(path, name.lower().replace(" ", "_"))
            sink = f"ogr:dbname='{path}' table=\"{table}\" (geom)"
        else:
            sink = TEMPORARY
        definition = QgsProcessingOutputLayerDefinition(sink, QgsProject.instance())
        definition.destinationName = name
        return definition

    def _choice_widgets(self) -> dict:
        return {
            "features": self.want_features, "latest": self.want_latest,
            "weeks": self.want_weeks, "locations": self.want_locations,
            "trips": self.want_trips, "rewards": self.want_rewards,
            "download": self.download_images, "to_gpkg": self.to_gpkg,
        }

    def save_choices(self) -> None:
        """Remember the panel's choices for the next session (no data, no keys)."""
        settings = QgsSettings()
        settings.beginGroup(DOCK_SETTINGS)
        for name, box in self._choice_widgets().items():
            settings.setValue(name, box.isChecked())
        settings.setValue("area", self.area_choice.currentData())
        settings.setValue("buffer_m", self.buffer_m.value())
        settings.setValue("radius_m", self.radius_m.value())
        settings.setValue("min_confidence", self.min_confidence.value())
        settings.setValue("classes", ",".join(
            self.classes.item(i).text() for i in range(self.classes.count())
            if self.classes.item(i).checkState() == Qt.CheckState.Checked))
        settings.setValue("gpkg", self.gpkg.filePath())
        settings.setValue("max_credits", self.max_credits.value())
        settings.setValue("devices", self.devices.text())
        settings.endGroup()

    def restore_choices(self) -> None:
        """Put back the choices of the last fetch, when there was one."""
        settings = QgsSettings()
        settings.beginGroup(DOCK_SETTINGS)
        try:
            if not settings.contains("area"):
                return
            for name, box in self._choice_widgets().items():
                box.setChecked(settings.value(name, box.isChecked(), type=bool))
            self.to_memory.setChecked(not self.to_gpkg.isChecked())
            index = self.area_choice.findData(settings.value("area", ""))
            if index >= 0:
                self.area_choice.setCurrentIndex(index)
            self.buffer_m.setValue(settings.value("buffer_m", self.buffer_m.value(), type=float))
            self.radius_m.setValue(settings.value("radius_m", self.radius_m.value(), type=float))
            self.min_confidence.setValue(
                settings.value("min_confidence", self.min_confidence.value(), type=float))
            chosen = set(filter(None, str(settings.value("classes", "")).split(",")))
            for i in range(self.classes.count()):
                item = self.classes.item(i)
                item.setCheckState(Qt.CheckState.Checked if item.text() in chosen
                                   else Qt.CheckState.Unchecked)
            self.gpkg.setFilePath(str(settings.value("gpkg", "")))
            self.max_credits.setValue(settings.value("max_credits", 0, type=int))
            self.devices.setText(str(settings.value("devices", "")))
        finally:
            settings.endGroup()

    def build_jobs(self) -> list[Job]:
        """Jobs for everything ticked; raises AreaError when the area is unusable."""
        if self.to_gpkg.isChecked():
            path = self.gpkg.filePath()
            if not path:
                raise AreaError("Choose the GeoPackage file to write to, or temporary layers.")
            if "'" in path:
                raise AreaError("The GeoPackage path must not contain an apostrophe (').")
        jobs: list[Job] = []
        needs_area = any(b.isChecked() for b in (self.want_features, self.want_latest,
                                                  self.want_weeks))
        area = None
        if needs_area:
            area, keep = area_input(self.area_choice.currentData(), self.iface.activeLayer(),
                                    self.iface.mapCanvas(), self._drawn)
            if keep is not None:
                self._area_layers.append(keep)
        common = {"INPUT": area, "BUFFER": self.buffer_m.value(),
                  "RADIUS": self.radius_m.value()}
        budget = self.max_credits.value() or None
        download = self.download_images.isChecked()
        if self.want_features.isChecked():
            classes = [i for i in range(self.classes.count())
                       if self.classes.item(i).checkState() == Qt.CheckState.Checked]
            if not classes:
                raise AreaError("Tick at least one map feature class.")
            jobs.append(Job("fleetstreet:fetchmapfeatures", {
                **common, "CLASSES": classes, "MIN_CONFIDENCE": self.min_confidence.value(),
                "DOWNLOAD_IMAGES": download, "MAX_CREDITS": budget,
                "OUTPUT": self._destination("Map features")}, "Map features"))
        if self.want_latest.isChecked():
            jobs.append(Job("fleetstreet:fetchlatestimagery", {
                **common, "HEADINGS": True, "DOWNLOAD_IMAGES": download,
                "MAX_CREDITS": budget,
                "OUTPUT": self._destination("Latest imagery")}, "Latest imagery"))
        if self.want_weeks.isChecked():
            jobs.append(Job("fleetstreet:fetchimagerybyweek", {
                **common, "START_DATE": self.week_from.date(), "END_DATE": self.week_to.date(),
                "DOWNLOAD_IMAGES": download, "MAX_CREDITS": budget,
                "OUTPUT": self._destination("Imagery by week")}, "Imagery by week"))
        if self.want_locations.isChecked():
            jobs.append(Job("fleetstreet:latestlocations", {
                "DEVICES": self.devices.text().strip() or None,
                "OUTPUT": self._destination("Device locations")}, "Device locations"))
        if self.want_trips.isChecked():
            jobs.append(Job("fleetstreet:trips", {
                "DEVICES": self.devices.text().strip() or None,
                "START_DATE": self.trips_from.date(), "END_DATE": self.trips_to.date(),
                "OUTPUT": self._destination("Trips")}, "Trips"))
        if self.want_rewards.isChecked():
            jobs.append(Job("fleetstreet:weeklyrewards", {
                "START_WEEK": self.trips_from.date(), "END_WEEK": self.trips_to.date(),
                "OUTPUT": self._destination("Weekly rewards")}, "Weekly rewards"))
        return [self._without_unset(job) for job in jobs]

    @staticmethod
    def _without_unset(job: Job) -> Job:
        job.parameters = {k: v for k, v in job.parameters.items() if v is not None}
        return job

    def fetch(self) -> None:
        """Start the ticked fetches in the background."""
        if self.runner.running:
            return
        try:
            jobs = self.build_jobs()
        except AreaError as exc:
            self._tell(str(exc), Qgis.MessageLevel.Warning)
            return
        if not jobs:
            self._tell("Tick at least one thing to fetch.", Qgis.MessageLevel.Info)
            return
        self.update_area_label()
        self.save_choices()
        self.fetch_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        self.runner.start(jobs)

    def check_balance(self) -> None:
        """Read the credit balance in the background."""
        if self.runner.running:
            return
        self.runner.start([Job("fleetstreet:creditbalance", {}, "Credit balance")])

    def _on_progress(self, value: float) -> None:
        self.progress.setValue(int(value))

    def _on_message(self, text: str) -> None:
        self.status.setText(text)

    def _on_job_finished(self, job: Job, ok: bool, error: str) -> None:
        if job.algorithm_id == "fleetstreet:creditbalance" and ok:
            self.balance_label.setText(f"Credits: {job.results.get('BALANCE', 0):,.0f}")
            return
        if ok:
            self._show_credits(job.results)
            self._done.append(f"{job.title} ({self._feature_count(job)})")
            if error:  # finished with what it could fetch: say what is missing
                self._incomplete = True
                self._tell(f"{job.title} is incomplete: {error}", Qgis.MessageLevel.Warning)
            else:
                self.status.setText(f"{job.title}: done.")
        else:
            self._tell(f"{job.title}: {error}", Qgis.MessageLevel.Critical)

    def _show_credits(self, results: dict) -> None:
        """Show the balance a fetch reported, with what the whole run spent so far."""
        remaining, used = results.get("CREDITS_REMAINING"), results.get("CREDITS_USED")
        if used is not None:
            self._spent += float(used)
        if remaining is None:
            return
        self.balance_label.setText(
            f"Credits: {float(remaining):,.0f} (this fetch used {self._spent:,.0f})")

    @staticmethod
    def _feature_count(job: Job) -> str:
        """'N features' of the job's main output as loaded, or 'saved' when not loaded."""
        output = str(job.results.get("OUTPUT", ""))
        project = QgsProject.instance()
        # a temporary output is a layer id; a file output is the loaded layer's source
        layer = project.mapLayer(output) or next(
            (lyr for lyr in project.mapLayers().values() if lyr.source() == output), None)
        return f"{layer.featureCount():,} features" if layer is not None else "saved"

    def _on_all_finished(self, ok: bool) -> None:
        self.fetch_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setValue(100 if ok else self.progress.value())
        self._area_layers.clear()
        if self._done:
            complete = ok and not self._incomplete
            level = Qgis.MessageLevel.Success if complete else Qgis.MessageLevel.Warning
            self._tell("Fetched " + ", ".join(self._done) + ("." if complete else
                       " (incomplete: see the messages above)."), level)
        self._done, self._incomplete, self._spent = [], False, 0.0

    def _tell(self, text: str, level) -> None:
        self.status.setText(text)
        self.iface.messageBar().pushMessage("Fleet Street", text, level=level, duration=8)

    def shutdown(self) -> None:
        """Cancel running work and release the map tool before the plugin unloads."""
        self.runner.detach()
        with contextlib.suppress(TypeError, RuntimeError):
            self.iface.currentLayerChanged.disconnect(self._on_layer_changed)
        self._on_layer_changed(None)
        if self._draw_tool is not None:
            self.iface.mapCanvas().unsetMapTool(self._draw_tool)
            self._draw_tool = None
