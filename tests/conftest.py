"""Shared fixtures: the emulator, the provider, clean Fleet Street settings, strict skips.

pytest-qgis keeps its QGIS configuration (settings and auth database) in <repo>/.qgis-settings
across runs, so tests must clean up what they save there.
"""

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
    """FLEETSTREET_* variables pointing at the emulator, with a fresh response cache.

    Retries are few and quick so that tests of server errors do not wait for the
    production back-off.
    """
    for name, value in emulator.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("FLEETSTREET_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FLEETSTREET_MAX_ATTEMPTS", "3")
    monkeypatch.setenv("FLEETSTREET_BACKOFF_S", "0.05")
    return emulator


@pytest.fixture(autouse=True)
def no_saved_fleet_street_settings(qgis_app):
    """No saved Fleet Street settings before or after each test.

    The settings file outlives the run (pytest-qgis keeps it in .qgis-settings), and saved
    addresses take precedence over the FLEETSTREET_* variables that fs_env sets.
    """
    from qgis.core import QgsSettings

    from fleet_street.processing_provider.connection import SETTINGS_GROUP

    QgsSettings().remove(SETTINGS_GROUP)
    yield
    QgsSettings().remove(SETTINGS_GROUP)


NO_SKIPS_ENV = "FLEETSTREET_NO_SKIPS"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With FLEETSTREET_NO_SKIPS=1 (CI, `make test`), a skipped test is a failure.

    Skips here mean a missing tool (qgis_process, QGIS desktop, Xvfb, PostgreSQL): a run
    that is meant to cover everything must not pass without them.
    """
    outcome = yield
    report = outcome.get_result()
    if os.environ.get(NO_SKIPS_ENV) != "1" or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    reason = reason.removeprefix("Skipped: ")
    report.outcome = "failed"
    report.longrepr = (f"{item.nodeid} was skipped ({reason}), and {NO_SKIPS_ENV}=1 turns "
                       "skips into failures: install what it needs, or unset "
                       f"{NO_SKIPS_ENV} to allow skips.")


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
