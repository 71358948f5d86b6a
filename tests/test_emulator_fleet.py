"""Contract tests of the emulated fleet API."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from pyproj import Geod

from emulator.polyline_codec import decode

DEVICE_FIELDS = {"id", "serialNumber", "name", "description", "deviceModel", "firmwareVersion",
                 "vehiclePlate", "imei"}
ISO_MS = "%Y-%m-%dT%H:%M:%S.%fZ"


def _get(emu, path, key=None, **params):
    key = emu.fleet_key if key is None else key
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.get(f"{emu.fleet_url}{path}", params=params, headers=headers, timeout=30)


def _iso(text: str) -> dt.datetime:
    assert text.endswith("Z") and len(text.split(".")[-1]) == 4, text
    return dt.datetime.strptime(text, ISO_MS).replace(tzinfo=dt.timezone.utc)


def _devices(emu):
    return _get(emu, "/v1/devices").json()["devices"]


def test_devices_shape(emulator):
    devices = _devices(emulator)
    assert 3 <= len(devices) <= 10
    for d in devices:
        assert set(d) == DEVICE_FIELDS
        assert all(isinstance(v, str) and v for v in d.values())


@pytest.mark.parametrize("key", ["", "wrong"])
def test_bad_key_is_401(emulator, key):
    r = _get(emulator, "/v1/devices", key=key)
    assert r.status_code == 401
    assert "error" in r.json()


def test_location(emulator):
    dev = _devices(emulator)[0]
    loc = _get(emulator, "/v1/location", deviceId=dev["id"]).json()
    assert loc["device"] == {"id": dev["id"], "name": dev["name"]}
    assert abs(loc["lat"] - 52.52) < 0.3 and abs(loc["lon"] - 13.40) < 0.5
    assert isinstance(loc["speedKmH"], (int, float))
    assert _iso(loc["timestamp"]) <= dt.datetime.now(dt.timezone.utc)


def test_location_errors(emulator):
    assert _get(emulator, "/v1/location").status_code == 400
    r = _get(emulator, "/v1/location", deviceId="nope")
    assert r.status_code == 404 and "error" in r.json()


def _week_range():
    end = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    start = end - dt.timedelta(days=7)
    return start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_trips_shape_and_polyline(emulator):
    dev = _devices(emulator)[0]
    start, end = _week_range()
    res = _get(emulator, "/v1/trips", deviceId=dev["id"], startDate=start, endDate=end).json()
    assert set(res) == {"device", "startDate", "endDate", "totalDistanceKm", "trips"}
    assert res["device"]["id"] == dev["id"]
    _iso(res["startDate"]), _iso(res["endDate"])
    assert res["trips"], "a week of a busy fleet has trips"
    geod = Geod(ellps="WGS84")
    total = 0.0
    for t in res["trips"]:
        assert set(t) == {"id", "firstStop", "secondStop", "distanceKm", "durationMs", "polyline"}
        for stop in (t["firstStop"], t["secondStop"]):
            assert set(stop) == {"lat", "lon", "stopBeganAt", "stopEndedAt"}
            assert _iso(stop["stopBeganAt"]) <= _iso(stop["stopEndedAt"])
        pts = decode(t["polyline"])
        assert pts[0] == pytest.approx((t["firstStop"]["lat"], t["firstStop"]["lon"]), abs=1e-5)
        assert pts[-1] == pytest.approx((t["secondStop"]["lat"], t["secondStop"]["lon"]), abs=1e-5)
        km = geod.line_length([p[1] for p in pts], [p[0] for p in pts]) / 1000
        assert t["distanceKm"] == pytest.approx(km, abs=0.01)
        hours = t["durationMs"] / 3.6e6
        assert 10 <= t["distanceKm"] / hours <= 80
        trip_start = _iso(t["firstStop"]["stopEndedAt"])
        trip_end = _iso(t["secondStop"]["stopBeganAt"])
        elapsed_ms = (trip_end - trip_start).total_seconds() * 1000
        assert elapsed_ms == pytest.approx(t["durationMs"], abs=2)
        total += t["distanceKm"]
    assert res["totalDistanceKm"] == pytest.approx(total, abs=0.01)


def _pop_open_stop_ends(res):
    """stopEndedAt of stops still open at the request (they end at 'now', so they move)."""
    now = dt.datetime.now(dt.timezone.utc)
    return [_iso(t["secondStop"].pop("stopEndedAt")) for t in res["trips"]
            if now - _iso(t["secondStop"]["stopEndedAt"]) < dt.timedelta(seconds=30)]


def test_trips_deterministic(emulator):
    dev = _devices(emulator)[1]
    start, end = _week_range()
    a = _get(emulator, "/v1/trips", deviceId=dev["id"], startDate=start, endDate=end).json()
    b = _get(emulator, "/v1/trips", deviceId=dev["id"], startDate=start, endDate=end).json()
    open_a, open_b = _pop_open_stop_ends(a), _pop_open_stop_ends(b)
    assert a == b
    assert len(open_a) == len(open_b) <= 1 and all(x <= y for x, y in zip(open_a, open_b))


def test_no_stop_ends_in_the_future(emulator):
    start, end = _week_range()
    open_stops = 0
    for dev in _devices(emulator):
        res = _get(emulator, "/v1/trips", deviceId=dev["id"], startDate=start,
                   endDate=end).json()
        now = dt.datetime.now(dt.timezone.utc)
        for t in res["trips"]:
            for stop in (t["firstStop"], t["secondStop"]):
                assert _iso(stop["stopEndedAt"]) <= now, stop
        last = res["trips"][-1]["secondStop"]
        if now - _iso(last["stopEndedAt"]) < dt.timedelta(seconds=30):
            open_stops += 1  # parked since its last trip: the stop lasts until now
    assert open_stops >= 1


def test_trips_errors(emulator):
    dev = _devices(emulator)[0]["id"]
    assert _get(emulator, "/v1/trips", deviceId=dev, startDate="2024-01-01").status_code == 400
    r = _get(emulator, "/v1/trips", deviceId=dev, startDate="2024-01-01", endDate="2024-01-20")
    assert r.status_code == 400 and "7" in r.json()["error"]
    r = _get(emulator, "/v1/trips", deviceId=dev, startDate="yesterday", endDate="2024-01-02")
    assert r.status_code == 400
    r = _get(emulator, "/v1/trips", deviceId="x", startDate="2024-01-01", endDate="2024-01-02")
    assert r.status_code == 404


def test_max_trip_days_knob(emulator):
    emulator.configure(max_trip_days=30)
    dev = _devices(emulator)[0]["id"]
    r = _get(emulator, "/v1/trips", deviceId=dev, startDate="2024-01-01", endDate="2024-01-20")
    assert r.status_code == 200


def test_rewards_follow_km(emulator):
    today = dt.date.today()
    monday = today - dt.timedelta(days=today.weekday() + 7)
    res = _get(emulator, "/v1/networkRewards", rewardPeriod=monday.isoformat()).json()
    assert res["periodStart"] == monday.isoformat()
    assert res["periodEnd"] == (monday + dt.timedelta(days=6)).isoformat()
    devices = _devices(emulator)
    assert len(res["devicesWithRewards"]) == len(devices)
    for rw in res["devicesWithRewards"]:
        assert set(rw) == {"deviceId", "deviceName", "rewardAmountToken", "rewardedTotalKms",
                           "rewardMountRating"}
        assert isinstance(rw["rewardMountRating"], int) and 1 <= rw["rewardMountRating"] <= 5
        start = f"{monday.isoformat()}T00:00:00.000Z"
        end = f"{(monday + dt.timedelta(days=7)).isoformat()}T00:00:00.000Z"
        trips = _get(emulator, "/v1/trips", deviceId=rw["deviceId"], startDate=start,
                     endDate=end).json()
        assert rw["rewardedTotalKms"] == pytest.approx(trips["totalDistanceKm"], abs=0.01)
        assert rw["rewardAmountToken"] == pytest.approx(rw["rewardedTotalKms"] * 0.05, rel=1e-3)


@pytest.mark.parametrize("period", ["2024-01-02", "2024-13-01", ""])
def test_rewards_bad_period(emulator, period):
    r = _get(emulator, "/v1/networkRewards", rewardPeriod=period)
    assert r.status_code == 400 and "error" in r.json()
