"""Keys live in the QGIS auth database; settings keep only ids; profiles resolve from both."""

import pytest
from qgis.core import QgsApplication, QgsSettings

from fleet_street.core.errors import ValidationError
from fleet_street.processing_provider.connection import (
    SETTINGS_GROUP,
    StoredSettings,
    key_from_authcfg,
    resolve_profile,
    store_key,
)

SECRET = "sk-test-0123456789abcdef"


@pytest.fixture
def auth_db(qgis_app):
    """The unlocked auth database; the configurations a test adds are removed after it.

    The database is not throw-away: pytest-qgis keeps it in <repo>/.qgis-settings across
    runs, so whatever a test stores there would pile up.
    """
    manager = QgsApplication.authManager()
    if not manager.masterPasswordIsSet():
        assert manager.setMasterPassword("fleet-street-tests", True)
    before = set(manager.configIds())
    yield manager
    for authcfg in set(manager.configIds()) - before:
        assert manager.removeAuthenticationConfig(authcfg), authcfg


@pytest.fixture
def clean_settings(monkeypatch):
    """No saved Fleet Street settings and no FLEETSTREET_* variables around the test."""
    for name in ("FLEETSTREET_FLEET_URL", "FLEETSTREET_DATA_URL", "FLEETSTREET_FLEET_KEY",
                 "FLEETSTREET_DATA_KEY", "FLEETSTREET_MCP_URL"):
        monkeypatch.delenv(name, raising=False)
    settings = QgsSettings()
    settings.remove(SETTINGS_GROUP)
    yield
    settings.remove(SETTINGS_GROUP)


def _all_settings_text() -> str:
    settings = QgsSettings()
    settings.beginGroup(SETTINGS_GROUP)
    values = {k: settings.value(k) for k in settings.allKeys()}
    settings.endGroup()
    return repr(values)


def test_key_goes_to_auth_db_and_only_its_id_to_settings(auth_db, clean_settings):
    authcfg = store_key(SECRET, "Fleet Street data API")
    assert len(authcfg) == 7
    stored = StoredSettings(data_url="http://127.0.0.1:9/api/developer", data_authcfg=authcfg)
    stored.save()
    assert SECRET not in _all_settings_text()
    assert authcfg in _all_settings_text()
    assert key_from_authcfg(authcfg) == SECRET

    profile = resolve_profile()
    assert profile.data_key == SECRET
    assert profile.data_url == "http://127.0.0.1:9/api/developer"
    assert profile.mcp_url == "http://127.0.0.1:9/api/developer/mcp"
    assert SECRET not in repr(profile)


def test_updating_a_key_keeps_its_id(auth_db, clean_settings):
    authcfg = store_key("old-key", "Fleet Street fleet API")
    assert store_key("new-key", "Fleet Street fleet API", authcfg) == authcfg
    assert key_from_authcfg(authcfg) == "new-key"


def test_auth_parameter_overrides_the_stored_key(auth_db, clean_settings):
    stored_id = store_key("stored-key", "stored")
    other_id = store_key("chosen-key", "chosen")
    StoredSettings(fleet_url="http://127.0.0.1:9", fleet_authcfg=stored_id).save()
    assert resolve_profile(api="fleet").fleet_key == "stored-key"
    assert resolve_profile(other_id, api="fleet").fleet_key == "chosen-key"


def test_environment_applies_when_nothing_is_saved(clean_settings, monkeypatch):
    monkeypatch.setenv("FLEETSTREET_DATA_URL", "http://127.0.0.1:9/api/developer")
    monkeypatch.setenv("FLEETSTREET_DATA_KEY", "env-key")
    profile = resolve_profile()
    assert profile.data_url == "http://127.0.0.1:9/api/developer"
    assert profile.data_key == "env-key"


def test_unknown_auth_id_is_a_clear_error(auth_db, clean_settings):
    with pytest.raises(ValidationError, match="could not be read"):
        key_from_authcfg("zzzzzzz")


def test_settings_dialog_saves_addresses_and_keeps_keys_out_of_settings(
        auth_db, clean_settings, qgis_iface):
    from fleet_street.ui.settings_dialog import STORED_HINT, SettingsDialog

    dialog = SettingsDialog(qgis_iface.mainWindow())
    dialog.data_url.setText("http://127.0.0.1:9/api/developer/")
    dialog.data_key.setText(SECRET)
    dialog.fleet_url.setText("http://127.0.0.1:9")
    dialog.concurrency.setValue(6)
    dialog.accept()
    stored = StoredSettings.load()
    assert stored.data_url == "http://127.0.0.1:9/api/developer/"
    assert stored.concurrency == 6
    assert stored.data_authcfg and not stored.fleet_authcfg
    assert SECRET not in _all_settings_text()
    profile = resolve_profile()
    assert profile.data_url == "http://127.0.0.1:9/api/developer"
    assert profile.data_key == SECRET and profile.concurrency == 6

    reopened = SettingsDialog(qgis_iface.mainWindow())
    assert reopened.data_key.text() == ""
    assert reopened.data_key.placeholderText() == STORED_HINT


def test_settings_dialog_test_connection_runs_in_the_background(
        auth_db, clean_settings, qgis_iface, emulator):
    import time

    from fleet_street.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(qgis_iface.mainWindow())
    dialog.data_url.setText(emulator.data_url)
    dialog.data_key.setText(emulator.data_key)
    dialog.fleet_url.setText(emulator.fleet_url)
    dialog.fleet_key.setText("wrong-key")
    dialog.test_connection()
    assert dialog.status.text() == "Testing…"
    assert StoredSettings.load().data_url == ""  # testing saves nothing; Save does
    deadline = time.monotonic() + 30
    while dialog._task is not None and time.monotonic() < deadline:
        QgsApplication.processEvents()
        time.sleep(0.02)
    assert dialog._task is None, "the connection test did not finish"
    lines = dialog.status.text().split("<br>")
    assert lines[0] == "Data API: OK, 1,000,000 credits left."
    assert lines[1].startswith("Fleet API: The server refused the API key"), lines
    assert "wrong-key" not in dialog.status.text()


def test_settings_dialog_shows_and_clears_the_response_cache(
        clean_settings, qgis_iface, fs_provider, fs_env):
    from alg_helpers import layer, run, square

    from fleet_street.ui.settings_dialog import SettingsDialog

    run("fetchmapfeatures", {"INPUT": layer([square()]), "OUTPUT": "TEMPORARY_OUTPUT"})
    dialog = SettingsDialog(qgis_iface.mainWindow())
    assert dialog.cache_label.text().startswith("1 answer, ")
    dialog.clear_cache()
    assert dialog.cache_label.text() == "0 answers, 0.0 MB"
    charged = fs_env.stats()["credits_used"]
    run("fetchmapfeatures", {"INPUT": layer([square()]), "OUTPUT": "TEMPORARY_OUTPUT"})
    assert fs_env.stats()["credits_used"] == 2 * charged  # asked (and paid) again
