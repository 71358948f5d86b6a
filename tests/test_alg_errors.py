"""Errors reach the user as Processing errors with the server's message, never as empty layers."""

from __future__ import annotations

import pytest
from alg_helpers import (
    LAT,
    LON,
    layer,
    out_layer,
    run,
    square,
)
from qgis.core import (
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProject,
    QgsVectorLayer,
)


def test_bad_key_gives_server_message_and_no_layer(fs_provider, fs_env, monkeypatch,  # noqa: F811
                                                   tmp_path):
    monkeypatch.setenv("FLEETSTREET_DATA_KEY", "wrong-key")
    out = tmp_path / "features.gpkg"
    before = len(QgsProject.instance().mapLayers())
    with pytest.raises(QgsProcessingException) as info:
        run("fetchmapfeatures", {"INPUT": layer([square()]), "OUTPUT": str(out)})
    message = str(info.value)
    assert "couldn't extract valid API key" in message
    assert "wrong-key" not in message
    assert not out.exists()
    assert len(QgsProject.instance().mapLayers()) == before


def test_bad_fleet_key(fs_provider, fs_env, monkeypatch):  # noqa: F811
    monkeypatch.setenv("FLEETSTREET_FLEET_KEY", "nope")
    with pytest.raises(QgsProcessingException, match="API key"):
        run("listdevices", {"OUTPUT": "TEMPORARY_OUTPUT"})


def test_server_errors_after_retries(fs_provider, fs_env, tmp_path):  # noqa: F811
    fs_env.configure(fault_rate=1.0, fault_kinds=["500"])
    out = tmp_path / "frames.gpkg"
    with pytest.raises(QgsProcessingException, match="Internal server error"):
        run("fetchlatestimagery", {"INPUT": layer([square()]), "OUTPUT": str(out)})
    assert not out.exists()


def test_missing_configuration_is_explained(fs_provider, monkeypatch, tmp_path):  # noqa: F811
    for name in ("FLEETSTREET_DATA_URL", "FLEETSTREET_DATA_KEY", "FLEETSTREET_FLEET_URL",
                 "FLEETSTREET_FLEET_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(QgsProcessingException, match="FLEETSTREET_DATA_URL/FLEETSTREET_DATA_KEY"):
        run("creditbalance", {})
    with pytest.raises(QgsProcessingException, match="FLEETSTREET_FLEET_URL"):
        run("listdevices", {"OUTPUT": "TEMPORARY_OUTPUT"})


def test_empty_area_layer_is_an_error(fs_provider, fs_env):  # noqa: F811
    empty = QgsVectorLayer("Polygon?crs=EPSG:4326", "empty", "memory")
    with pytest.raises(QgsProcessingException, match="no features"):
        run("fetchmapfeatures", {"INPUT": empty, "OUTPUT": "TEMPORARY_OUTPUT"})


def test_budget_keeps_what_was_fetched(fs_provider, fs_env, tmp_path):  # noqa: F811
    big = square(dx=0.03, dy=0.02)  # ~11 km²: several tiles
    out = tmp_path / "partial.gpkg"
    feedback = QgsProcessingFeedback()
    import processing

    results = processing.run("fleetstreet:fetchmapfeatures", {
        "INPUT": layer([big]), "MAX_CREDITS": 30, "OUTPUT": str(out)}, feedback=feedback)
    assert results["COMPLETE"] is False
    assert "budget" in feedback.textLog()
    assert "running it again costs credits only for the rest" in feedback.textLog()
    kept = QgsVectorLayer(str(out), "kept", "ogr")
    assert kept.isValid() and kept.featureCount() > 0
    # The answers are cached: a second run with no budget pays only for the rest.
    before = fs_env.stats()["credits_used"]
    results, _ = run("fetchmapfeatures", {"INPUT": layer([big]),
                                          "OUTPUT": str(tmp_path / "all.gpkg")})
    assert results["COMPLETE"] is True
    full = QgsVectorLayer(results["OUTPUT"], "all", "ogr")
    assert full.featureCount() > kept.featureCount()
    spent = fs_env.stats()["credits_used"] - before
    assert spent <= full.featureCount() - kept.featureCount() + 1


def test_failed_tiles_keep_a_temporary_layer_of_what_was_fetched(fs_provider, fs_env):  # noqa: F811
    """A tile that fails after every retry must not cost the tiles that succeeded."""
    import processing

    big = square(dx=0.03, dy=0.02)  # ~11 km²: several tiles
    first = processing.run("fleetstreet:fetchmapfeatures", {
        "INPUT": layer([big]), "MAX_CREDITS": 30, "OUTPUT": "TEMPORARY_OUTPUT"},
        context=QgsProcessingContext(), feedback=QgsProcessingFeedback())
    assert first["COMPLETE"] is False  # one tile fetched and cached, the rest not
    fs_env.configure(fault_rate=1.0, fault_kinds=["500"])
    context, feedback = QgsProcessingContext(), QgsProcessingFeedback()
    results = processing.run("fleetstreet:fetchmapfeatures", {
        "INPUT": layer([big]), "OUTPUT": "TEMPORARY_OUTPUT"}, context=context,
        feedback=feedback)
    assert results["COMPLETE"] is False
    assert out_layer(results, context).featureCount() > 0
    assert "requests for map features failed" in feedback.textLog()
    assert "Internal server error" in feedback.textLog()


def test_burst_budget_sends_nothing(fs_provider, fs_env):  # noqa: F811
    pts = layer([f"POINT({LON} {LAT})"], kind="Point")
    with pytest.raises(QgsProcessingException, match="125"):
        run("createbursts", {"INPUT": pts, "MAX_CREDITS": 100, "OUTPUT": "TEMPORARY_OUTPUT"})


def test_map_data_budget_keeps_both_layers(fs_provider, fs_env):  # noqa: F811
    import processing

    context, feedback = QgsProcessingContext(), QgsProcessingFeedback()
    results = processing.run("fleetstreet:fetchmapdata", {
        "INPUT": layer([square(dx=0.03, dy=0.02)]), "MAX_CREDITS": 30,
        "OUTPUT": "TEMPORARY_OUTPUT", "OUTPUT_IMAGERY": "TEMPORARY_OUTPUT"},
        context=context, feedback=feedback)
    assert results["COMPLETE"] is False
    assert out_layer(results, context).featureCount() > 0
    assert out_layer(results, context, "OUTPUT_IMAGERY").featureCount() > 0
    assert results["CREDITS_USED"] == fs_env.stats()["credits_used"]
    assert "budget" in feedback.textLog()


def test_fetch_reports_credits_used_and_remaining(fs_provider, fs_env):  # noqa: F811
    results, _ = run("fetchlatestimagery", {"INPUT": layer([square()]),
                                            "OUTPUT": "TEMPORARY_OUTPUT"})
    stats = fs_env.stats()
    assert results["COMPLETE"] is True
    assert results["CREDITS_USED"] == stats["credits_used"] > 0
    assert results["CREDITS_REMAINING"] == stats["balance"]
