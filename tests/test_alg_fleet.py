"""Fleet algorithms run through processing.run against the emulator."""

from __future__ import annotations

import math
from datetime import date, timedelta

from alg_helpers import (
    field_types,
    out_layer,
    requests,
    run,
)
from qgis.core import QgsWkbTypes

MEM = "TEMPORARY_OUTPUT"
DEVICE_FIELDS = ["id", "serial_number", "name", "description", "device_model",
                 "firmware_version", "vehicle_plate", "imei"]


def _recent_monday(weeks_back=2):
    today = date.today()
    return today - timedelta(days=today.weekday() + 7 * weeks_back)


def test_list_devices(fs_provider, fs_env):  # noqa: F811
    results, ctx = run("listdevices", {"OUTPUT": MEM})
    lyr = out_layer(results, ctx)
    assert lyr.fields().names() == DEVICE_FIELDS
    assert all(t == "string" for t in field_types(lyr).values())
    assert lyr.wkbType() == QgsWkbTypes.NoGeometry
    feats = list(lyr.getFeatures())
    assert feats and all(f["id"] and f["name"] for f in feats)


def test_latest_locations_all_and_some(fs_provider, fs_env):  # noqa: F811
    results, ctx = run("latestlocations", {"OUTPUT": MEM})
    lyr = out_layer(results, ctx)
    feats = list(lyr.getFeatures())
    types = field_types(lyr)
    assert types["timestamp"] == "datetime" and types["speed_kmh"] in ("double", "real")
    assert feats and lyr.crs().authid() == "EPSG:4326"
    for f in feats:
        p = f.geometry().asPoint()
        assert math.isclose(p.x(), f["lon"]) and math.isclose(p.y(), f["lat"])
    some = [feats[0]["device_id"]]
    results, ctx = run("latestlocations", {"DEVICES": ",".join(some), "OUTPUT": MEM})
    assert [f["device_id"] for f in out_layer(results, ctx).getFeatures()] == some


def test_trips_lines_and_stops(fs_provider, fs_env):  # noqa: F811
    end = date.today() - timedelta(days=1)
    start = end - timedelta(days=9)  # longer than one 7-day window
    results, ctx = run("trips", {"START_DATE": start.isoformat(), "END_DATE": end.isoformat(),
                                 "OUTPUT": MEM, "OUTPUT_STOPS": MEM})
    lyr = out_layer(results, ctx)
    feats = list(lyr.getFeatures())
    assert feats
    types = field_types(lyr)
    assert types["trip_id"] == "string"
    assert types["start_time"] == "datetime" and types["distance_km"] in ("double", "real")
    assert QgsWkbTypes.geometryType(lyr.wkbType()) == QgsWkbTypes.LineGeometry
    for f in feats[:50]:
        line = f.geometry().asPolyline()
        assert len(line) >= 2
        # Precision-5 decoding puts the first vertex next to the first stop.
        assert abs(line[0].x() - f["start_lon"]) < 1e-3
        assert abs(line[0].y() - f["start_lat"]) < 1e-3
        if f["duration_ms"]:
            expected = f["distance_km"] / (f["duration_ms"] / 3.6e6)
            assert math.isclose(f["avg_speed_kmh"], expected, rel_tol=1e-6)
    assert len({f["trip_id"] for f in feats}) == len(feats)  # windows merged without doubles
    stops = out_layer(results, ctx, "OUTPUT_STOPS")
    assert stops.featureCount() > 0
    assert {f["role"] for f in stops.getFeatures()} <= {"start", "end"}
    assert requests(fs_env, "GET", "/v1/trips") >= 2


def test_weekly_rewards_with_snapping(fs_provider, fs_env):  # noqa: F811
    monday = _recent_monday(3)
    results, ctx = run("weeklyrewards", {
        "START_WEEK": (monday + timedelta(days=2)).isoformat(),  # a Wednesday: snapped
        "END_WEEK": (monday + timedelta(days=7)).isoformat(), "OUTPUT": MEM})
    lyr = out_layer(results, ctx)
    feats = list(lyr.getFeatures())
    types = field_types(lyr)
    assert types["week"] == "date" and types["reward_mount_rating"] in ("integer", "int")
    weeks = {f["week"].toPyDate() for f in feats}
    assert weeks == {monday, monday + timedelta(days=7)}
    assert all(f["device_name"] for f in feats)
    assert requests(fs_env, "GET", "/v1/networkRewards") == 2


def test_dates_as_qdate_values(fs_provider, fs_env):  # noqa: F811
    from qgis.PyQt.QtCore import QDate

    monday = _recent_monday(2)
    qd = QDate(monday.year, monday.month, monday.day)
    results, ctx = run("weeklyrewards", {"START_WEEK": qd, "END_WEEK": qd, "OUTPUT": MEM})
    weeks = {f["week"].toPyDate() for f in out_layer(results, ctx).getFeatures()}
    assert weeks == {monday}
    results, ctx = run("trips", {"START_DATE": qd.addDays(-3), "END_DATE": qd, "OUTPUT": MEM})
    assert out_layer(results, ctx).featureCount() > 0
