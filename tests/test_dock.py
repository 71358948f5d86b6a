"""The dock panel: area choices, clear messages on bad input, background runs that load layers."""

import time

import pytest
from conftest import flush_canvas_refreshes
from qgis.core import (
    QgsApplication,
    QgsFeature,
    QgsGeometry,
    QgsProject,
    QgsRectangle,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import Qt

from fleet_street.processing_provider.compat import GEOMETRY_POLYGON
from fleet_street.ui.area_source import DRAWN, EXTENT, SELECTED, AreaError
from fleet_street.ui.dock import FleetStreetDock

BERLIN = "POLYGON((13.400 52.515, 13.410 52.515, 13.410 52.521, 13.400 52.521, 13.400 52.515))"


@pytest.fixture
def dock(qgis_iface, qgis_new_project, fs_provider, fs_env):
    """A panel wired to the emulator through the environment variables."""
    panel = FleetStreetDock(qgis_iface, qgis_iface.mainWindow())
    yield panel
    panel.shutdown()
    panel.deleteLater()
    flush_canvas_refreshes()


def _polygon_layer(wkt: str = BERLIN, crs: str = "EPSG:4326") -> QgsVectorLayer:
    layer = QgsVectorLayer(f"Polygon?crs={crs}", "area", "memory")
    feature = QgsFeature()
    feature.setGeometry(QgsGeometry.fromWkt(wkt))
    layer.dataProvider().addFeatures([feature])
    QgsProject.instance().addMapLayer(layer)
    return layer


def _only(dock, *boxes):
    for box in (dock.want_features, dock.want_latest, dock.want_weeks, dock.want_locations,
                dock.want_trips, dock.want_rewards):
        box.setChecked(box in boxes)


def _wait(dock, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while dock.runner.running and time.monotonic() < deadline:
        QgsApplication.processEvents()
        time.sleep(0.02)
    assert not dock.runner.running, "the background run did not finish"


def test_selected_features_without_a_selection_is_a_clear_message(dock, qgis_iface):
    layer = _polygon_layer()
    qgis_iface.setActiveLayer(layer)
    dock.area_choice.setCurrentIndex(dock.area_choice.findData(SELECTED))
    with pytest.raises(AreaError, match="No feature of 'area' is selected"):
        dock.build_jobs()
    dock.fetch()
    assert "No feature of 'area' is selected" in dock.status.text()
    assert not dock.runner.running


def test_drawn_area_is_required_before_fetching(dock):
    dock.area_choice.setCurrentIndex(dock.area_choice.findData(DRAWN))
    with pytest.raises(AreaError, match="Draw the area on the map first"):
        dock.build_jobs()


def _click(canvas, tool, point, button):
    """Send a mouse release at a map coordinate to the tool, as the canvas would."""
    from qgis.gui import QgsMapMouseEvent
    from qgis.PyQt.QtCore import QEvent, Qt

    pixel = canvas.getCoordinateTransform().transform(point).toQPointF().toPoint()
    event = QgsMapMouseEvent(canvas, QEvent.Type.MouseButtonRelease, pixel, button,
                             button, Qt.KeyboardModifier.NoModifier)
    tool.canvasReleaseEvent(event)


def test_drawn_polygon_becomes_the_area_and_is_fetched(dock, qgis_iface):
    from qgis.core import (
        QgsCoordinateReferenceSystem,
        QgsCoordinateTransform,
        QgsDistanceArea,
        QgsPointXY,
    )
    from qgis.PyQt.QtCore import Qt

    # drawn on a Web Mercator map, fetched after the map went back to lon/lat
    canvas = qgis_iface.mapCanvas()
    wgs84, mercator = (QgsCoordinateReferenceSystem("EPSG:4326"),
                       QgsCoordinateReferenceSystem("EPSG:3857"))
    to_map = QgsCoordinateTransform(wgs84, mercator, QgsProject.instance())
    canvas.setDestinationCrs(mercator)
    canvas.setExtent(to_map.transformBoundingBox(QgsRectangle(13.395, 52.512, 13.415, 52.524)))
    dock.start_drawing()
    tool = dock._draw_tool
    assert canvas.mapTool() is tool
    corners = [(13.400, 52.515), (13.410, 52.515), (13.405, 52.521)]
    for lon, lat in corners:
        _click(canvas, tool, to_map.transform(QgsPointXY(lon, lat)), Qt.MouseButton.LeftButton)
    _click(canvas, tool, to_map.transform(QgsPointXY(13.405, 52.521)),
           Qt.MouseButton.RightButton)
    assert dock.area_choice.currentData() == DRAWN
    assert canvas.mapTool() is not tool
    drawn = dock._drawn
    assert drawn.type() == GEOMETRY_POLYGON
    # the triangle's ellipsoidal area, about half of a 0.010° x 0.006° box at 52.5° N
    measure = QgsDistanceArea()
    measure.setEllipsoid("WGS84")
    measure.setSourceCrs(QgsCoordinateReferenceSystem("EPSG:4326"),
                         QgsProject.instance().transformContext())
    triangle = QgsGeometry.fromPolygonXY([[QgsPointXY(lon, lat) for lon, lat in corners]])
    ideal = measure.measureArea(triangle) / 1e6
    assert 0.2 < ideal < 0.25
    km2 = measure.measureArea(drawn) / 1e6  # clicks land on whole pixels
    assert abs(km2 - ideal) < 0.01
    assert dock.area_label.text() == (
        f"{km2:,.2f} km²: about 1 request per query (the service takes under 5 km² at a time).")

    canvas.setDestinationCrs(wgs84)
    _only(dock, dock.want_features)
    dock.fetch()
    _wait(dock)
    features = QgsProject.instance().mapLayersByName("Map features")[0]
    assert features.featureCount() > 0
    for feature in features.getFeatures():
        assert drawn.buffer(1e-6, 4).contains(feature.geometry())


def test_fetch_runs_in_background_and_loads_styled_layers(dock, qgis_iface, fs_env):
    layer = _polygon_layer()
    layer.selectAll()
    qgis_iface.setActiveLayer(layer)
    dock.area_choice.setCurrentIndex(dock.area_choice.findData(SELECTED))
    _only(dock, dock.want_features, dock.want_latest)
    dock.download_images.setChecked(False)
    events = []
    dock.runner.job_finished.connect(lambda job, ok, err: events.append((job.title, ok, err)))
    dock.fetch()
    assert dock.runner.running and not dock.fetch_button.isEnabled(), events
    _wait(dock)
    names = sorted(lyr.name() for lyr in QgsProject.instance().mapLayers().values())
    assert "Map features" in names and "Latest imagery" in names
    features = QgsProject.instance().mapLayersByName("Map features")[0]
    assert features.featureCount() > 0
    assert features.renderer().type() == "categorizedSymbol"
    assert dock.fetch_button.isEnabled()
    frames = QgsProject.instance().mapLayersByName("Latest imagery")[0]
    stats = fs_env.stats()
    assert dock.balance_label.text().startswith(f"Credits: {stats['balance']:,.0f} (")
    assert dock.status.text() == (f"Fetched Map features ({features.featureCount():,} features), "
                                  f"Latest imagery ({frames.featureCount():,} features).")


def test_map_extent_in_a_projected_canvas(dock, qgis_iface):
    from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransform

    canvas = qgis_iface.mapCanvas()
    canvas.setDestinationCrs(QgsCoordinateReferenceSystem("EPSG:3857"))
    # the same Berlin block in Web Mercator metres
    canvas.setExtent(QgsRectangle(1491681, 6893785, 1492794, 6894882))
    dock.area_choice.setCurrentIndex(dock.area_choice.findData(EXTENT))
    _only(dock, dock.want_features)
    dock.fetch()
    _wait(dock)
    features = QgsProject.instance().mapLayersByName("Map features")[0]
    assert features.featureCount() > 0
    extent = features.extent()
    to_wgs84 = QgsCoordinateTransform(canvas.mapSettings().destinationCrs(),
                                      QgsCoordinateReferenceSystem("EPSG:4326"),
                                      QgsProject.instance())
    visible = to_wgs84.transformBoundingBox(canvas.extent())
    assert 13.38 < visible.xMinimum() < visible.xMaximum() < 13.43  # still Berlin, not metres
    tolerance = 1e-6
    assert visible.xMinimum() - tolerance <= extent.xMinimum()
    assert extent.xMaximum() <= visible.xMaximum() + tolerance
    assert visible.yMinimum() - tolerance <= extent.yMinimum()
    assert extent.yMaximum() <= visible.yMaximum() + tolerance


def test_server_error_is_reported_and_no_layer_is_added(dock, qgis_iface, emulator):
    layer = _polygon_layer()
    layer.selectAll()
    qgis_iface.setActiveLayer(layer)
    emulator.configure(fault_rate=1.0, fault_kinds=["500"])
    _only(dock, dock.want_features)
    dock.fetch()
    _wait(dock, 120)
    assert not QgsProject.instance().mapLayersByName("Map features")
    status = dock.status.text()
    assert status.startswith("Map features: Nothing was fetched. The server failed to answer")
    assert status.count("HTTP status 500") == 1
    # the message the emulator sends with its 500, once, and what to do
    assert status.count("The server said: Internal server error.") == 1
    assert status.endswith("The service may be down; try again later.")


def test_geopackage_output_keeps_each_result_as_a_table(dock, qgis_iface, tmp_path):
    layer = _polygon_layer()
    layer.selectAll()
    qgis_iface.setActiveLayer(layer)
    _only(dock, dock.want_features, dock.want_latest)
    dock.download_images.setChecked(False)
    target = tmp_path / "fetch.gpkg"
    dock.to_gpkg.setChecked(True)
    dock.gpkg.setFilePath(str(target))
    dock.fetch()
    _wait(dock)
    for table in ("map_features", "latest_imagery"):
        stored = QgsVectorLayer(f"{target}|layername={table}", table, "ogr")
        assert stored.isValid(), table
        assert stored.featureCount() > 0, table
    loaded = QgsProject.instance().mapLayersByName("Map features")[0]
    assert loaded.source().startswith(str(target))
    assert dock.status.text().startswith(
        f"Fetched Map features ({loaded.featureCount():,} features), Latest imagery (")

    # a second fetch into the same file adds tables instead of replacing the first ones
    first = QgsVectorLayer(f"{target}|layername=map_features", "first", "ogr").featureCount()
    dock.fetch()
    _wait(dock)
    for table in ("map_features_2", "latest_imagery_2"):
        assert QgsVectorLayer(f"{target}|layername={table}", table, "ogr").featureCount() > 0
    assert QgsVectorLayer(f"{target}|layername=map_features", "again",
                          "ogr").featureCount() == first


def test_more_buttons_open_the_processing_dialog_of_each_algorithm(dock, monkeypatch):
    import processing
    from qgis.PyQt.QtWidgets import QPushButton

    opened = []
    monkeypatch.setattr(processing, "execAlgorithmDialog",
                        lambda alg_id, params: opened.append(alg_id))
    registry = QgsApplication.processingRegistry()
    buttons = [b for b in dock.findChildren(QPushButton)
               if b.objectName().startswith("FleetStreetOpen_")]
    assert len(buttons) == 8
    for button in buttons:
        button.click()
    assert len(opened) == 8
    for alg_id in opened:
        assert registry.algorithmById(alg_id) is not None, alg_id


def test_choices_come_back_in_the_next_session(dock, qgis_iface, tmp_path):
    dock.want_weeks.setChecked(True)
    dock.want_latest.setChecked(False)
    dock.min_confidence.setValue(0.8)
    dock.classes.item(1).setCheckState(Qt.CheckState.Unchecked)
    dock.to_gpkg.setChecked(True)
    dock.gpkg.setFilePath(str(tmp_path / "x.gpkg"))
    dock.devices.setText("dev-1, dev-2")
    dock.area_choice.setCurrentIndex(dock.area_choice.findData(EXTENT))
    dock.save_choices()

    again = FleetStreetDock(qgis_iface, qgis_iface.mainWindow())
    try:
        assert again.want_weeks.isChecked() and not again.want_latest.isChecked()
        assert again.min_confidence.value() == pytest.approx(0.8)
        assert again.classes.item(1).checkState() == Qt.CheckState.Unchecked
        assert again.classes.item(0).checkState() == Qt.CheckState.Checked
        assert again.to_gpkg.isChecked() and not again.to_memory.isChecked()
        assert again.gpkg.filePath() == str(tmp_path / "x.gpkg")
        assert again.devices.text() == "dev-1, dev-2"
        assert again.area_choice.currentData() == EXTENT
    finally:
        again.deleteLater()


def test_trips_for_chosen_devices_only(dock, emulator):
    import httpx

    devices = httpx.get(f"{emulator.fleet_url}/v1/devices",
                        headers={"Authorization": f"Bearer {emulator.fleet_key}"}).json()
    chosen = devices["devices"][0]["id"]
    _only(dock, dock.want_trips)
    dock.devices.setText(chosen)
    dock.fetch()
    _wait(dock)
    trips = QgsProject.instance().mapLayersByName("Trips")[0]
    assert trips.featureCount() > 0
    assert {f["device_id"] for f in trips.getFeatures()} == {chosen}


def test_cancel_keeps_the_layer_of_what_was_fetched(dock, qgis_iface, fs_env, monkeypatch):
    monkeypatch.setenv("FLEETSTREET_CONCURRENCY", "1")  # one tile at a time
    fs_env.configure(latency_ms=300)
    layer = _polygon_layer("POLYGON((13.38 52.51, 13.42 52.51, 13.42 52.53, 13.38 52.53, "
                           "13.38 52.51))")  # ~5.5 km²: two tiles
    layer.selectAll()
    qgis_iface.setActiveLayer(layer)
    _only(dock, dock.want_latest)
    dock.download_images.setChecked(False)
    dock.runner.progress.connect(lambda value: value > 0 and dock.runner.cancel())
    dock.fetch()
    _wait(dock)
    frames = QgsProject.instance().mapLayersByName("Latest imagery")
    assert frames and frames[0].featureCount() > 0
    # a request already on its way when Cancel lands may be sent; its answer is not used
    import processing

    full = processing.run("fleetstreet:fetchlatestimagery", {
        "INPUT": layer, "HEADINGS": True, "OUTPUT": "memory:"})["OUTPUT"]
    assert 0 < frames[0].featureCount() < full.featureCount()
    assert dock.status.text().startswith("Fetched Latest imagery (")
    assert dock.status.text().endswith("(incomplete: see the messages above).")


def test_geopackage_without_a_file_is_a_clear_message(dock):
    dock.to_gpkg.setChecked(True)
    dock.gpkg.setFilePath("")
    with pytest.raises(AreaError, match="Choose the GeoPackage file to write to"):
        dock.build_jobs()


def test_size_estimate_follows_the_selection(dock, qgis_iface):
    layer = _polygon_layer()
    dock.area_choice.setCurrentIndex(dock.area_choice.findData(SELECTED))
    qgis_iface.setActiveLayer(layer)
    dock._on_layer_changed(layer)  # what iface.currentLayerChanged does in QGIS
    assert dock.area_label.text() == ""
    layer.selectAll()
    assert dock.area_label.text().endswith("about 1 request per query (the service takes "
                                           "under 5 km² at a time).")
    layer.removeSelection()
    assert dock.area_label.text() == ""
