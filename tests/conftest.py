"""Shared fixtures: the emulator plugin and a throw-away QGIS configuration."""

import os

import pytest
from qgis.core import QgsApplication

os.environ.setdefault("PROJ_DATA", "/usr/share/proj")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest_plugins = ["emulator.pytest_plugin"]


@pytest.fixture
def fs_provider(qgis_processing):
    """The Fleet Street provider registered in the processing registry."""
    from fleet_street.processing_provider.provider import FleetStreetProvider

    registry = QgsApplication.processingRegistry()
    provider = registry.providerById("fleetstreet")
    added = None
    if provider is None:
        added = FleetStreetProvider()
        registry.addProvider(added)
        provider = added
    yield provider
    if added is not None:
        registry.removeProvider(added)


@pytest.fixture
def fs_env(emulator, monkeypatch, tmp_path):
    """FLEETSTREET_* variables pointing at the emulator, with a fresh response cache."""
    for name, value in emulator.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("FLEETSTREET_CACHE_DIR", str(tmp_path / "cache"))
    return emulator


@pytest.fixture(autouse=True, scope="session")
def release_plugin_objects(qgis_app):
    """Drop Python-held QGIS objects while QGIS is still up (its teardown runs after this)."""
    yield
    import gc

    from fleet_street.processing_provider import styling

    QgsApplication.taskManager().cancelAll()
    styling.release_post_processors()
    gc.collect()
    flush_canvas_refreshes()
    delete_python_owned_layers()


def delete_python_owned_layers() -> None:
    """Delete layers Python still owns (tracebacks of expected errors keep test frames).

    Left to interpreter shutdown, they would be destroyed after exitQgis has closed GDAL.
    """
    import gc

    from qgis.core import QgsMapLayer
    from qgis.PyQt import sip

    for obj in gc.get_objects():
        try:
            if isinstance(obj, QgsMapLayer) and not sip.isdeleted(obj) and sip.ispyowned(obj):
                sip.delete(obj)
        except (RuntimeError, ReferenceError):
            continue


def flush_canvas_refreshes(seconds: float = 0.3) -> None:
    """Let queued map canvas refreshes run now, while the project they read still exists."""
    import time

    from qgis.utils import iface

    if iface is not None:
        iface.mapCanvas().setLayers([])
        iface.mapCanvas().stopRendering()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        QgsApplication.processEvents()
        time.sleep(0.01)
