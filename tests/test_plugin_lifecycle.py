"""The plugin loads, shows its entry points, unloads cleanly and loads again."""

import pytest
from qgis.core import QgsApplication
from qgis.PyQt.QtWidgets import QDockWidget

import fleet_street

PROVIDER_ID = "fleetstreet"


def _registered() -> bool:
    return QgsApplication.processingRegistry().providerById(PROVIDER_ID) is not None


@pytest.fixture
def plugin(qgis_iface, qgis_processing):
    """A started plugin, unloaded at the end if the test did not."""
    instance = fleet_street.classFactory(qgis_iface)
    instance.initGui()
    yield instance
    if instance.provider is not None:
        instance.unload()


def test_init_gui_adds_dock_actions_toolbar_and_provider(plugin, qgis_iface):
    assert _registered()
    assert plugin.dock is not None and isinstance(plugin.dock, QDockWidget)
    assert [a.objectName() for a in plugin.actions] == [
        "FleetStreetPanelAction", "FleetStreetSettingsAction"]
    assert plugin.toolbar.actions() == [plugin.actions[0]]
    assert not plugin.actions[0].icon().isNull()
    menu_calls = qgis_iface.addPluginToWebMenu.call_args_list
    assert [c.args[0] for c in menu_calls[-2:]] == ["&Fleet Street", "&Fleet Street"]


@pytest.fixture
def shown_main_window(qgis_iface):
    """The main window on screen, so that its docks really show and hide.

    A dock emits visibilityChanged only when it becomes visible or hidden on screen, which
    a child of a hidden window never does.
    """
    window = qgis_iface.mainWindow()
    was_visible = window.isVisible()
    window.show()
    QgsApplication.processEvents()
    yield window
    if not was_visible:
        window.hide()
        QgsApplication.processEvents()


def test_panel_action_toggles_the_dock(plugin, shown_main_window):
    panel = plugin.actions[0]
    panel.setChecked(True)
    QgsApplication.processEvents()
    assert plugin.dock.isVisible()
    panel.setChecked(False)
    QgsApplication.processEvents()
    assert not plugin.dock.isVisible()
    # showing the dock (as QGIS does when it restores the layout) checks the action
    plugin.dock.show()
    QgsApplication.processEvents()
    assert panel.isChecked()
    # closing the dock by its title bar button unchecks the action
    plugin.dock.close()
    QgsApplication.processEvents()
    assert not plugin.dock.isVisible()
    assert not panel.isChecked()


def test_unload_removes_everything_and_loads_again(plugin, qgis_iface):
    actions = list(plugin.actions)
    plugin.unload()
    assert not _registered()
    assert plugin.dock is None and plugin.toolbar is None and plugin.actions == []
    removed = [c.args[1] for c in qgis_iface.removePluginWebMenu.call_args_list[-2:]]
    assert removed == actions

    again = fleet_street.classFactory(qgis_iface)
    again.initGui()
    assert _registered()
    again.unload()
    assert not _registered()


def test_provider_registers_without_iface(qgis_processing):
    instance = fleet_street.classFactory(None)
    instance.initProcessing()
    try:
        provider = QgsApplication.processingRegistry().providerById(PROVIDER_ID)
        assert provider is not None and provider.name() == "Fleet Street"
    finally:
        instance.unload()
    assert not _registered()


def test_unload_during_a_fetch_leaves_no_callback_behind(plugin, qgis_iface, emulator,
                                                          monkeypatch, tmp_path):
    import time

    from qgis.core import QgsApplication

    for name, value in emulator.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("FLEETSTREET_CACHE_DIR", str(tmp_path / "cache"))
    emulator.configure(latency_ms=700)
    dock = plugin.dock
    dock.area_choice.setCurrentIndex(dock.area_choice.findData("extent"))
    for box in (dock.want_latest, dock.want_weeks, dock.want_locations, dock.want_trips,
                dock.want_rewards):
        box.setChecked(False)
    dock.want_features.setChecked(True)
    from qgis.core import QgsCoordinateReferenceSystem, QgsRectangle

    canvas = qgis_iface.mapCanvas()
    canvas.setDestinationCrs(QgsCoordinateReferenceSystem("EPSG:4326"))
    canvas.setExtent(QgsRectangle(13.40, 52.515, 13.41, 52.521))
    dock.fetch()
    assert dock.runner.running
    callbacks = []
    dock.runner.job_finished.connect(lambda *args: callbacks.append(args))
    plugin.unload()
    # the panel, its runner and their Python objects go now, while the task is mid-request
    import gc

    del dock
    QgsApplication.sendPostedEvents(None, 0)  # deferred deletes
    gc.collect()
    deadline = time.monotonic() + 10
    while QgsApplication.taskManager().countActiveTasks() and time.monotonic() < deadline:
        QgsApplication.processEvents()
        time.sleep(0.02)
    assert QgsApplication.taskManager().countActiveTasks() == 0
    QgsApplication.processEvents()
    assert callbacks == []  # the finished task did not call back into the unloaded panel
