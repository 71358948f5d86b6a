"""Contract tests of the emulated data API: auth, geometry, shapes, determinism, tiling."""

from __future__ import annotations

import base64
import datetime as dt

import httpx
import pytest

BERLIN = (13.39, 52.51, 13.41, 52.52)
FRAME_FIELDS = {"url", "timestamp", "sequence", "idx", "device", "position", "width", "height",
                "imu"}
POSITION_FIELDS = {"lat", "lon", "lat_ref", "lon_ref", "gdop", "hdop", "pdop", "eph"}
IMU_FIELDS = {"acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z"}
FEATURE_FIELDS = {"id", "class", "status", "position", "properties", "confidence", "observed",
                  "n_detections", "image"}
CLASSES = {"speed-sign", "stop-sign", "parking-restriction-sign", "turn-restriction-sign",
           "highway-sign", "fire-hydrant", "traffic-light", "lane-line"}
FORBIDDEN = {"error": "Forbidden (couldn't extract valid API key)"}


def box(x0, y0, x1, y1):
    """GeoJSON polygon of a lon/lat box."""
    return {"type": "Polygon",
            "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]}


def post(emu, path, body, key=None, **params):
    """POST JSON to the data API with the apiKey query parameter."""
    params = {"apiKey": emu.data_key if key is None else key, **params}
    return httpx.post(f"{emu.data_url}{path}", json=body, params=params, timeout=30)


def this_week() -> str:
    """A day of the last complete ISO week."""
    return (dt.date.today() - dt.timedelta(days=7)).isoformat()


@pytest.mark.parametrize("path", ["/balance", "/bursts"])
def test_missing_or_wrong_key_is_403(emulator, path):
    r = httpx.get(f"{emulator.data_url}{path}", timeout=10)
    assert r.status_code == 403 and r.json() == FORBIDDEN
    r = httpx.get(f"{emulator.data_url}{path}", params={"apiKey": "bad"}, timeout=10)
    assert r.status_code == 403 and r.json() == FORBIDDEN
    r = post(emulator, "/mapFeatures/poly", box(*BERLIN), key="bad")
    assert r.status_code == 403 and r.json() == FORBIDDEN


def test_basic_header_auth(emulator):
    encoded = base64.b64encode(f"org:{emulator.data_key}".encode()).decode()
    for value in (emulator.data_key, encoded):
        r = httpx.get(f"{emulator.data_url}/balance", headers={"Authorization": f"Basic {value}"})
        assert r.status_code == 200 and r.json() == {"balance": 1_000_000}


def test_devices_needs_no_key(emulator):
    cams = httpx.get(f"{emulator.data_url}/devices").json()
    assert set(cams) == {"hdc", "hdc-s", "bee"}
    for c in cams.values():
        assert {"focal", "k1", "k2"} <= set(c) and 0.3 < c["focal"] < 1.5


def test_features_shape(emulator):
    res = post(emulator, "/mapFeatures/poly", box(*BERLIN)).json()
    feats = res["features"]
    assert len(feats) > 50
    assert {f["class"] for f in feats} == CLASSES
    for f in feats:
        assert set(f) >= FEATURE_FIELDS
        assert set(f["position"]) == {"lat", "lon", "azimuth"}
        assert 0 <= f["confidence"] <= 1 and 0 <= f["position"]["azimuth"] < 360
        assert set(f["observed"]) == {"firstSeen", "lastSeen"}
        assert f["observed"]["firstSeen"] <= f["observed"]["lastSeen"]
        bbox = f["image"]["bbox"]
        assert set(bbox) == {"x", "y", "w", "h"}
        assert bbox["x"] + bbox["w"] <= 640 and bbox["y"] + bbox["h"] <= 360
        assert f["image"]["url"].startswith(emulator.root_url + "/files/")
        assert BERLIN[0] <= f["position"]["lon"] <= BERLIN[2]
        assert BERLIN[1] <= f["position"]["lat"] <= BERLIN[3]
    speed = [f for f in feats if f["class"] == "speed-sign"]
    turns = [f for f in feats if f["class"] == "turn-restriction-sign"]
    lanes = [f for f in feats if f["class"] == "lane-line"]
    assert speed and turns and lanes
    assert all(f["properties"]["unit"] == "km/h" for f in speed)
    assert all("direction" in f["properties"] for f in turns)
    assert all("laneCount" in f["properties"] for f in lanes)
    assert set(res) == {"features"}  # the documented shape: no credit figures
    assert emulator.stats()["credits_used"] == len(feats)  # charged all the same
    emulator.configure(feature_credits_in_body=True)
    res = post(emulator, "/mapFeatures/poly", box(*BERLIN)).json()
    assert res["creditsUsed"] == len(res["features"]) == len(feats)
    assert res["creditsRemaining"] == 1_000_000 - 2 * len(feats)


def test_us_speed_signs_in_mph_and_no_features_outside_coverage(emulator):
    us = post(emulator, "/mapFeatures/poly", box(-74.01, 40.70, -73.99, 40.71)).json()
    signs = [f for f in us["features"] if f["class"] == "speed-sign"]
    assert signs and all(f["properties"]["unit"] == "mph" for f in signs)
    assert post(emulator, "/mapFeatures/poly", box(139.69, 35.68, 139.70, 35.69)).json()[
        "features"] == []
    frames = post(emulator, "/latest/poly", box(139.69, 35.68, 139.71, 35.70)).json()["frames"]
    assert frames, "imagery exists everywhere"


def test_imagery_week_shape(emulator):
    res = post(emulator, "/imagery/poly", box(*BERLIN), week=this_week()).json()
    frames = res["frames"]
    assert frames and res["creditsUsed"] == len(frames)
    monday = dt.date.fromisoformat(this_week())
    monday -= dt.timedelta(days=monday.weekday())
    seqs = {}
    for f in frames:
        assert set(f) == FRAME_FIELDS
        assert set(f["position"]) == POSITION_FIELDS
        assert set(f["imu"]) == IMU_FIELDS
        assert f["device"] in ("hdc", "hdc-s", "bee")
        day = dt.date.fromisoformat(f["timestamp"][:10])
        assert monday <= day < monday + dt.timedelta(days=7)
        seqs.setdefault(f["sequence"], []).append(f)
    for seq in seqs.values():
        seq.sort(key=lambda f: f["idx"])
        stamps = [f["timestamp"] for f in seq]
        assert stamps == sorted(stamps)


def test_imagery_any_day_of_week_same_result(emulator):
    monday = dt.date.fromisoformat(this_week())
    monday -= dt.timedelta(days=monday.weekday())
    a = post(emulator, "/imagery/poly", box(*BERLIN), week=monday.isoformat()).json()["frames"]
    b = post(emulator, "/imagery/poly", box(*BERLIN),
             week=(monday + dt.timedelta(days=5)).isoformat()).json()["frames"]
    assert [f["sequence"] + str(f["idx"]) for f in a] == [f["sequence"] + str(f["idx"]) for f in b]


def test_imagery_week_required(emulator):
    r = post(emulator, "/imagery/poly", box(*BERLIN))
    assert r.status_code == 400 and "week" in r.json()["error"]


def test_latest_headings(emulator):
    plain = post(emulator, "/latest/poly", box(*BERLIN)).json()["frames"]
    with_h = post(emulator, "/latest/poly", box(*BERLIN), headings="true").json()["frames"]
    assert plain and len(plain) == len(with_h) and with_h
    assert all("heading" not in f["position"] for f in plain)
    assert all(0 <= f["position"]["heading"] < 360 for f in with_h)


@pytest.mark.parametrize("body", [
    {"type": "Polygon"},
    {"type": "Polygon", "coordinates": [[[0, 0], [1, 1]]]},
    {"type": "Point", "coordinates": [13.4, 52.5]},
    {"type": "Polygon", "coordinates": [[[200, 0], [201, 0], [201, 1], [200, 0]]]},
    [1, 2, 3],
])
def test_invalid_geojson_is_400(emulator, body):
    r = post(emulator, "/mapFeatures/poly", body)
    assert r.status_code == 400 and r.json()["error"]


def test_area_limit(emulator):
    r = post(emulator, "/latest/poly", box(13.30, 52.50, 13.40, 52.55))
    assert r.status_code == 400
    assert "sq km" in r.json()["error"] and "5" in r.json()["error"]
    parts = [box(*BERLIN)["coordinates"], box(13.42, 52.51, 13.43, 52.52)["coordinates"]]
    multi = {"type": "MultiPolygon", "coordinates": parts}
    assert post(emulator, "/mapFeatures/poly", multi).status_code == 200


def test_determinism(emulator):
    a = post(emulator, "/mapFeatures/poly", box(*BERLIN)).json()["features"]
    b = post(emulator, "/mapFeatures/poly", box(*BERLIN)).json()["features"]
    strip = [{k: v for k, v in f.items() if k != "image"} for f in a]
    assert strip == [{k: v for k, v in f.items() if k != "image"} for f in b]


def _ids(items, key="id"):
    return {i[key] if key == "id" else f"{i['sequence']}/{i['idx']}" for i in items}


def test_overlap_and_tiles_merge_to_single_query(emulator):
    x0, y0, x1, y1 = BERLIN
    xm = (x0 + x1) / 2
    whole = post(emulator, "/mapFeatures/poly", box(*BERLIN)).json()["features"]
    left = post(emulator, "/mapFeatures/poly", box(x0, y0, xm, y1)).json()["features"]
    right = post(emulator, "/mapFeatures/poly", box(xm, y0, x1, y1)).json()["features"]
    assert _ids(left) | _ids(right) == _ids(whole)
    # Overlapping polygons agree on every shared object.
    a = {f["id"]: f for f in post(emulator, "/mapFeatures/poly", box(x0, y0, xm + 0.004, y1))
         .json()["features"]}
    b = {f["id"]: f for f in post(emulator, "/mapFeatures/poly", box(xm - 0.004, y0, x1, y1))
         .json()["features"]}
    shared = set(a) & set(b)
    assert shared
    for fid in shared:
        assert a[fid]["position"] == b[fid]["position"] and a[fid]["class"] == b[fid]["class"]
    week = this_week()
    wf = post(emulator, "/imagery/poly", box(*BERLIN), week=week).json()["frames"]
    lf = post(emulator, "/imagery/poly", box(x0, y0, xm, y1), week=week).json()["frames"]
    rf = post(emulator, "/imagery/poly", box(xm, y0, x1, y1), week=week).json()["frames"]
    assert _ids(lf, "seq") | _ids(rf, "seq") == _ids(wf, "seq")


def test_map_data_point_line_polygon(emulator):
    body = {"type": ["mapFeatures", "imagery"],
            "geometry": {"type": "Point", "coordinates": [13.40, 52.515], "radius": 300}}
    res = post(emulator, "/map-data", body).json()
    assert set(res) == {"totalCreditsUsed", "totalCreditsRemaining", "mapFeatureResults",
                        "imageryResults"}
    mf, im = res["mapFeatureResults"], res["imageryResults"]
    assert mf["type"] == "mapFeatures" and im["type"] == "imagery"
    assert mf["data"] and im["data"]
    assert res["totalCreditsUsed"] == mf["creditsUsed"] + im["creditsUsed"]
    assert mf["creditsUsed"] == len(mf["data"]) and im["creditsUsed"] == len(im["data"])
    assert res["totalCreditsRemaining"] == 1_000_000 - res["totalCreditsUsed"]
    line = {"type": ["mapFeatures"], "geometry": {
        "type": "LineString", "coordinates": [[13.39, 52.515], [13.41, 52.515]], "buffer": 20}}
    res = post(emulator, "/map-data", line).json()
    assert "imageryResults" not in res and res["mapFeatureResults"]["data"]
    r = post(emulator, "/map-data", {"type": ["imagery"], "geometry": box(*BERLIN)})
    assert r.status_code == 200


def test_map_data_geometry_rules(emulator):
    no_radius = {"type": ["imagery"], "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}
    assert post(emulator, "/map-data", no_radius).status_code == 400
    no_buffer = {"type": ["imagery"], "geometry": {
        "type": "LineString", "coordinates": [[13.39, 52.515], [13.41, 52.515]]}}
    assert post(emulator, "/map-data", no_buffer).status_code == 400
    # 1.4 km of line buffered by 2 km on both sides is well over 5 km^2.
    huge = {"type": ["imagery"], "geometry": {
        "type": "LineString", "coordinates": [[13.39, 52.515], [13.41, 52.515]], "buffer": 2000}}
    r = post(emulator, "/map-data", huge)
    assert r.status_code == 400 and "sq km" in r.json()["error"]
    big_circle = {"type": ["imagery"], "geometry": {
        "type": "Point", "coordinates": [13.4, 52.5], "radius": 1300}}
    assert post(emulator, "/map-data", big_circle).status_code == 400


def test_point_radius_membership(emulator):
    from pyproj import Geod

    geod = Geod(ellps="WGS84")
    body = {"type": ["mapFeatures"],
            "geometry": {"type": "Point", "coordinates": [13.40, 52.515], "radius": 250}}
    feats = post(emulator, "/map-data", body).json()["mapFeatureResults"]["data"]
    assert feats, "a 250 m circle in the demo city holds features"
    for f in feats:
        _, _, d = geod.inv(13.40, 52.515, f["position"]["lon"], f["position"]["lat"])
        assert d <= 251
