"""Street-level algorithms run through processing.run against the emulator."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from alg_helpers import (
    LAT,
    LON,
    field_types,
    layer,
    out_layer,
    requests,
    run,
    square,
    wait_idle,
)
from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsFeatureRequest,
    QgsGeometry,
    QgsPointXY,
    QgsProcessingContext,
    QgsProcessingFeatureSourceDefinition,
    QgsProcessingFeedback,
    QgsProject,
    QgsWkbTypes,
)

MEM = "TEMPORARY_OUTPUT"


def _features(lyr):
    return list(lyr.getFeatures())


def test_fetch_map_features_polygon(fs_provider, fs_env):  # noqa: F811
    results, ctx = run("fetchmapfeatures", {"INPUT": layer([square()]), "OUTPUT": MEM})
    lyr = out_layer(results, ctx)
    feats = _features(lyr)
    assert feats, "the emulator has map features in central San Francisco"
    assert lyr.crs().authid() == "EPSG:4326"
    assert QgsWkbTypes.geometryType(lyr.wkbType()) == QgsWkbTypes.PointGeometry
    types = field_types(lyr)
    assert types["id"] == "string"
    assert types["confidence"] in ("double", "real")
    assert types["first_seen"] == "datetime"
    assert types["n_detections"] in ("integer", "int")
    for name in ("class", "azimuth", "image_url", "image_path", "bbox_x", "bbox_h",
                 "properties"):
        assert name in types
    area = QgsGeometry.fromWkt(square()).buffer(1e-6, 4)
    for f in feats:
        assert area.contains(f.geometry())
        assert math.isclose(f.geometry().asPoint().x(), f["lon"], abs_tol=1e-9)
        json.loads(f["properties"] or "{}")
    speed = [f for f in feats if f["class"] == "speed-sign"]
    assert speed, "the emulator has speed signs in central San Francisco"
    assert "speed_limit" in types and "speed_unit" in types
    assert any(f["speed_limit"] for f in speed)


def test_fetch_map_features_filters(fs_provider, fs_env):  # noqa: F811
    results, ctx = run("fetchmapfeatures", {
        "INPUT": layer([square()]), "CLASSES": [0, 1], "MIN_CONFIDENCE": 0.8, "OUTPUT": MEM})
    feats = _features(out_layer(results, ctx))
    assert feats, "confident speed and stop signs exist in the square"
    assert all(f["class"] in ("speed-sign", "stop-sign") for f in feats)
    assert all(f["confidence"] >= 0.8 for f in feats)


def test_reprojected_polygon_gives_same_result(fs_provider, fs_env):  # noqa: F811
    geom = QgsGeometry.fromWkt(square())
    tr = QgsCoordinateTransform(QgsCoordinateReferenceSystem("EPSG:4326"),
                                QgsCoordinateReferenceSystem("EPSG:3857"),
                                QgsProject.instance())
    geom.transform(tr)
    r1, c1 = run("fetchmapfeatures", {"INPUT": layer([square()]), "OUTPUT": MEM})
    r2, c2 = run("fetchmapfeatures", {"INPUT": layer([geom.asWkt()], crs="EPSG:3857"),
                                      "OUTPUT": MEM})
    ids1 = {f["id"] for f in out_layer(r1, c1).getFeatures()}
    ids2 = {f["id"] for f in out_layer(r2, c2).getFeatures()}
    assert ids1 and ids1 == ids2
    for f in out_layer(r2, c2).getFeatures():
        p = f.geometry().asPoint()
        assert abs(p.x() - LON) < 0.01 and abs(p.y() - LAT) < 0.01  # lon/lat, not metres


def test_selected_features_only(fs_provider, fs_env):  # noqa: F811
    far = square(LON + 0.05, LAT + 0.05)
    lyr = layer([square(), far])
    QgsProject.instance().addMapLayer(lyr)
    try:
        first = next(lyr.getFeatures())
        lyr.selectByIds([first.id()])
        src = QgsProcessingFeatureSourceDefinition(lyr.id(), True)
        results, ctx = run("fetchmapfeatures", {"INPUT": src, "OUTPUT": MEM})
        feats = _features(out_layer(results, ctx))
        area = QgsGeometry.fromWkt(square()).buffer(1e-6, 4)
        assert feats and all(area.contains(f.geometry()) for f in feats)
    finally:
        QgsProject.instance().removeMapLayer(lyr.id())


def test_line_with_buffer_and_point_with_radius(fs_provider, fs_env):  # noqa: F811
    line = f"LINESTRING({LON - 0.004} {LAT}, {LON + 0.004} {LAT})"
    results, ctx = run("fetchmapfeatures", {"INPUT": layer([line], kind="LineString"),
                                            "BUFFER": 60, "OUTPUT": MEM})
    along_line = _features(out_layer(results, ctx))
    assert along_line, "map features lie within 60 m of the line"
    for f in along_line:
        assert abs(f["lat"] - LAT) < 0.0009  # 60 m is about 0.00054 degrees of latitude
    results, ctx = run("fetchmapfeatures", {"INPUT": layer([f"POINT({LON} {LAT})"],
                                                           kind="Point"),
                                            "RADIUS": 150, "OUTPUT": MEM})
    centre = QgsPointXY(LON, LAT)
    from qgis.core import QgsDistanceArea

    da = QgsDistanceArea()
    da.setEllipsoid("WGS84")
    around_point = _features(out_layer(results, ctx))
    assert around_point, "map features lie within 150 m of the point"
    for f in around_point:
        assert da.measureLine(centre, f.geometry().asPoint()) <= 151


def test_latest_imagery_frames(fs_provider, fs_env):  # noqa: F811
    results, ctx = run("fetchlatestimagery", {"INPUT": layer([square()]), "HEADINGS": True,
                                              "OUTPUT": MEM})
    lyr = out_layer(results, ctx)
    feats = _features(lyr)
    assert feats
    types = field_types(lyr)
    assert types["timestamp"] == "datetime"
    assert types["idx"] in ("integer", "int")
    for name in ("sequence", "device", "heading", "gdop", "hdop", "pdop", "eph", "lat_ref",
                 "lon_ref", "width", "height", "acc_x", "gyro_z", "url", "image_path", "week"):
        assert name in types
    assert any(f["heading"] is not None for f in feats)
    assert all(f["url"] for f in feats)


def test_latest_imagery_download(fs_provider, fs_env, tmp_path):  # noqa: F811
    folder = tmp_path / "img"
    results, ctx = run("fetchlatestimagery", {
        "INPUT": layer([square()]), "DOWNLOAD_IMAGES": True,
        "IMAGE_FOLDER": str(folder), "OUTPUT": MEM})
    feats = _features(out_layer(results, ctx))
    assert feats
    paths = [f["image_path"] for f in feats if f["image_path"]]
    assert paths and all(p.startswith(str(folder)) for p in paths)
    import os

    assert all(os.path.getsize(p) > 0 for p in paths)


def test_imagery_by_week(fs_provider, fs_env):  # noqa: F811
    # Wednesday to Wednesday: three weeks, each with drives in the square (the emulator's
    # world has none there in the week of 4 March, so that week would prove nothing).
    results, ctx = run("fetchimagerybyweek", {"INPUT": layer([square()]),
                                              "START_DATE": "2024-03-13",
                                              "END_DATE": "2024-03-27", "OUTPUT": MEM})
    lyr = out_layer(results, ctx)
    assert field_types(lyr)["week"] == "date"
    weeks = {f["week"].toPyDate().isoformat() for f in lyr.getFeatures()}
    # the Monday of each week touching 13-27 March 2024
    assert weeks == {"2024-03-11", "2024-03-18", "2024-03-25"}
    assert requests(fs_env, "POST", "/imagery/poly") == 3  # one tile, three weeks


def test_map_data_two_outputs(fs_provider, fs_env):  # noqa: F811
    results, ctx = run("fetchmapdata", {"INPUT": layer([square()]), "FEATURES": True,
                                        "IMAGERY": True, "OUTPUT": MEM,
                                        "OUTPUT_IMAGERY": MEM})
    feats = out_layer(results, ctx)
    frames = out_layer(results, ctx, "OUTPUT_IMAGERY")
    assert feats.featureCount() > 0 and frames.featureCount() > 0
    assert "class" in feats.fields().names() and "heading" in frames.fields().names()


def test_credit_balance_and_intrinsics(fs_provider, fs_env):  # noqa: F811
    results, _ = run("creditbalance", {})
    assert isinstance(results["BALANCE"], float) and results["BALANCE"] > 0
    results, ctx = run("cameraintrinsics", {"OUTPUT": MEM})
    lyr = out_layer(results, ctx)
    rows = {f["model"]: f for f in lyr.getFeatures()}
    assert {"hdc", "hdc-s", "bee"} <= set(rows)
    assert all(r["focal"] > 0 for r in rows.values())


def test_bursts_create_list_and_budget(fs_provider, fs_env):  # noqa: F811
    pts = layer([f"POINT({LON} {LAT})", f"POINT({LON + 0.01} {LAT})"], kind="Point")
    with pytest.raises(Exception, match="budget"):
        run("createbursts", {"INPUT": pts, "MAX_CREDITS": 200, "OUTPUT": MEM})
    assert requests(fs_env, "POST", "/burst/create") == 0
    results, ctx = run("createbursts", {"INPUT": pts, "MAX_CREDITS": 250, "OUTPUT": MEM})
    created = _features(out_layer(results, ctx))
    assert len(created) == 2
    results, ctx = run("listbursts", {"OUTPUT": MEM})
    lyr = out_layer(results, ctx)
    assert field_types(lyr)["is_hit"] == "boolean"
    assert {f["id"] for f in created} <= {f["id"] for f in lyr.getFeatures()}
    assert all(f["status"] for f in lyr.getFeatures())


def test_burst_imagery_for_hit_bursts(fs_provider, fs_env):  # noqa: F811
    fs_env.configure(burst_hit_delay_s=0)
    pts = layer([f"POINT({LON} {LAT})"], kind="Point")
    run("createbursts", {"INPUT": pts, "OUTPUT": MEM})
    results, ctx = run("fetchburstimagery", {"RADIUS": 80, "OUTPUT": MEM})
    lyr = out_layer(results, ctx)
    assert "burst_id" in lyr.fields().names()
    feats = _features(lyr)
    assert feats and all(f["burst_id"] for f in feats)


def test_burst_imagery_before_any_burst_is_mapped(fs_provider, fs_env):  # noqa: F811
    fs_env.configure(burst_hit_delay_s=3600)
    run("createbursts", {"INPUT": layer([f"POINT({LON} {LAT})"], kind="Point"),
                         "OUTPUT": MEM})
    feedback = QgsProcessingFeedback()
    import processing

    context = QgsProcessingContext()
    results = processing.run("fleetstreet:fetchburstimagery", {"RADIUS": 80, "OUTPUT": MEM},
                             context=context, feedback=feedback)
    assert out_layer(results, context).featureCount() == 0
    assert results["COMPLETE"] is True
    assert "No burst is mapped yet" in feedback.textLog()


def test_ai_events_with_tracks(fs_provider, fs_env):  # noqa: F811
    results, ctx = run("searchaievents", {
        "START_DATE": "2024-01-01", "END_DATE": "2024-02-10", "TYPES": [],
        "OUTPUT": MEM, "OUTPUT_TRACKS": MEM})
    events = out_layer(results, ctx)
    feats = _features(events)
    assert feats
    assert field_types(events)["timestamp"] == "datetime"
    assert all(f["video_url"] for f in feats)
    tracks = out_layer(results, ctx, "OUTPUT_TRACKS")
    assert tracks.featureCount() == len(feats)
    assert QgsWkbTypes.geometryType(tracks.wkbType()) == QgsWkbTypes.LineGeometry
    assert requests(fs_env, "POST", "/aievents/search") == 2  # 41 days in 31-day windows


def test_ai_events_in_area_and_types(fs_provider, fs_env):  # noqa: F811
    # The emulator's fleet drives in Berlin: a ~7 x 11 km box in its centre.
    berlin = square(13.42, 52.51, dx=0.05, dy=0.05)
    results, ctx = run("searchaievents", {
        "INPUT": layer([berlin]), "START_DATE": "2024-01-01",
        "END_DATE": "2024-01-20", "TYPES": [0], "OUTPUT": MEM})
    events = _features(out_layer(results, ctx))
    assert events, "the fleet brakes harshly in central Berlin in January"
    assert all(f["type"] == "HARSH_BRAKING" for f in events)
    area = QgsGeometry.fromWkt(berlin).buffer(1e-6, 4)
    assert all(area.contains(f.geometry()) for f in events)


def test_undistort_downloaded_images(fs_provider, fs_env, tmp_path):  # noqa: F811
    results, ctx = run("fetchlatestimagery", {
        "INPUT": layer([square()]), "DOWNLOAD_IMAGES": True,
        "IMAGE_FOLDER": str(tmp_path / "img"), "OUTPUT": MEM})
    frames = out_layer(results, ctx)
    n = sum(1 for f in frames.getFeatures(QgsFeatureRequest()) if f["image_path"])
    assert n
    out = tmp_path / "undistorted"
    results, _ = run("undistortimages", {"INPUT": frames, "OUTPUT_FOLDER": str(out)})
    assert results["COUNT"] == n
    assert len(list(out.iterdir())) == n


def test_map_feature_images_and_3d_input(fs_provider, fs_env, tmp_path):  # noqa: F811
    geom = QgsGeometry.fromWkt(square())
    geom.get().addZValue(12.0)
    lyr = layer([geom.asWkt()], kind="PolygonZ")
    folder = tmp_path / "features"
    results, ctx = run("fetchmapfeatures", {"INPUT": lyr, "CLASSES": [0],
                                            "DOWNLOAD_IMAGES": True,
                                            "IMAGE_FOLDER": str(folder), "OUTPUT": MEM})
    feats = _features(out_layer(results, ctx))
    assert feats
    with_image = [f for f in feats if f["image_url"]]
    assert with_image and all(f["image_path"] for f in with_image)
    assert all(Path(f["image_path"]).parent == folder for f in with_image)


def test_cancel_stops_a_slow_fetch(fs_provider, fs_env):  # noqa: F811
    import threading
    import time

    import processing
    from qgis.core import QgsDistanceArea, QgsProcessingException

    from fleet_street.core.tiling import tile_count

    big = square(dx=0.03, dy=0.02)  # ~11 km²: several tiles
    da = QgsDistanceArea()
    da.setEllipsoid("WGS84")
    tiles, _cap = tile_count(da.measureArea(QgsGeometry.fromWkt(big)) / 1e6)
    assert tiles > 1
    fs_env.configure(latency_ms=1500)  # balance + one round of tiles: over 3 s
    feedback = QgsProcessingFeedback()
    context = QgsProcessingContext()
    context.setProject(QgsProject.instance())
    timer = threading.Timer(0.8, feedback.cancel)
    timer.start()
    started = time.monotonic()
    try:
        results = processing.run("fleetstreet:fetchlatestimagery",
                                 {"INPUT": layer([big]), "OUTPUT": MEM},
                                 context=context, feedback=feedback)
    except QgsProcessingException as exc:  # a cancelled run may end with a Processing error
        assert "ancel" in str(exc)
    else:  # or return what it fetched before the cancel, marked incomplete
        assert results["COMPLETE"] is False
    finally:
        timer.cancel()
    elapsed = time.monotonic() - started
    wait_idle(fs_env)  # requests still in flight are logged when answered
    assert requests(fs_env, "POST", "/latest/poly") < tiles, "the cancel stopped the tiles"
    assert elapsed < 5  # a loose bound: speed targets belong in the benchmarks


def test_refresh_ignores_cached_answers(fs_provider, fs_env):  # noqa: F811
    area = layer([square()])
    run("fetchlatestimagery", {"INPUT": area, "OUTPUT": MEM})
    first = fs_env.stats()["credits_used"]
    results, _ = run("fetchlatestimagery", {"INPUT": area, "OUTPUT": MEM})
    assert fs_env.stats()["credits_used"] == first and results["COMPLETE"] is True
    run("fetchlatestimagery", {"INPUT": area, "REFRESH": True, "OUTPUT": MEM})
    assert fs_env.stats()["credits_used"] == 2 * first


def test_curved_and_self_intersecting_areas_are_straightened_and_repaired(
        fs_provider, fs_env):  # noqa: F811
    curved = layer([f"CURVEPOLYGON(CIRCULARSTRING({LON - 0.003} {LAT}, {LON} {LAT + 0.002}, "
                    f"{LON + 0.003} {LAT}, {LON} {LAT - 0.002}, {LON - 0.003} {LAT}))"],
                   kind="CurvePolygon")
    results, ctx = run("fetchmapfeatures", {"INPUT": curved, "OUTPUT": MEM})
    assert results["COMPLETE"] is True and _features(out_layer(results, ctx))
    bowtie = layer([f"POLYGON(({LON - 0.003} {LAT - 0.002}, {LON + 0.003} {LAT + 0.002}, "
                    f"{LON + 0.003} {LAT - 0.002}, {LON - 0.003} {LAT + 0.002}, "
                    f"{LON - 0.003} {LAT - 0.002}))"])
    results, ctx = run("fetchmapfeatures", {"INPUT": bowtie, "OUTPUT": MEM})
    assert results["COMPLETE"] is True and _features(out_layer(results, ctx))
