"""Bursts (create, hit after delay, charged, new imagery, expiry) and AI events."""

from __future__ import annotations

import datetime as dt
import re

import httpx
import pytest

BURST_FIELDS = {"geojson", "createdBy", "validFrom", "validUntil", "amount", "credits", "hash",
                "status", "isHit"}
TYPES = {"HARSH_BRAKING", "AGGRESSIVE_ACCELERATION", "SWERVING", "HIGH_SPEED", "HIGH_G_FORCE",
         "STOP_SIGN_VIOLATION", "TRAFFIC_LIGHT_VIOLATION", "TAILGATING"}
# A rural spot far from the demo city, so any frames there came from the burst.
SPOT = (-3.95, 40.05)


def _req(emu, method, path, body=None, **params):
    return httpx.request(method, f"{emu.data_url}{path}", json=body,
                         params={"apiKey": emu.data_key, **params}, timeout=30)


def _around(lon, lat, d=0.003):
    return {"type": "Polygon", "coordinates": [[[lon - d, lat - d], [lon + d, lat - d],
                                                [lon + d, lat + d], [lon - d, lat + d],
                                                [lon - d, lat - d]]]}


def test_burst_lifecycle(emulator):
    # No timing window: the burst cannot be hit until the delay is dropped to zero below.
    emulator.configure(burst_hit_delay_s=1e9)
    start = _req(emulator, "GET", "/balance").json()["balance"]
    before = _req(emulator, "POST", "/latest/poly", _around(*SPOT)).json()["frames"]
    body = [{"geojson": {"type": "Point", "coordinates": list(SPOT)}},
            {"geojson": _around(SPOT[0] + 0.1, SPOT[1], 0.001)}]
    res = _req(emulator, "POST", "/burst/create", body).json()
    assert res["success"] is True and len(res["bursts"]) == 2
    for b in res["bursts"]:
        assert set(b) >= BURST_FIELDS
        assert b["status"] == "active" and b["isHit"] is False
    listed = _req(emulator, "GET", "/bursts", limit=1, skip=0).json()
    assert listed["total"] == 2 and listed["limit"] == 1 and listed["skip"] == 0
    assert len(listed["bursts"]) == 1
    mid = _req(emulator, "GET", "/balance").json()["balance"]
    assert mid == start - len(before)  # not charged before the hit
    still = _req(emulator, "GET", "/bursts").json()["bursts"]
    assert len(still) == 2 and all(b["status"] == "active" and not b["isHit"] for b in still)
    emulator.configure(burst_hit_delay_s=0)
    listed = _req(emulator, "GET", "/bursts").json()["bursts"]
    assert len(listed) == 2
    assert all(b["isHit"] and b["status"] == "completed" for b in listed)
    assert _req(emulator, "GET", "/balance").json()["balance"] == mid - 250
    after = _req(emulator, "POST", "/latest/poly", _around(*SPOT)).json()["frames"]
    assert len(after) > len(before)
    new = {f["sequence"] for f in after} - {f["sequence"] for f in before}
    assert new


def test_burst_expires_uncaptured(emulator):
    emulator.configure(burst_hit_delay_s=1e9)
    _req(emulator, "POST", "/burst/create", [{"geojson": {"type": "Point",
                                                          "coordinates": list(SPOT)}}])
    emulator.configure(clock_offset_s=8 * 86400)
    b = _req(emulator, "GET", "/bursts").json()["bursts"][0]
    assert b["status"] == "expired" and b["isHit"] is False


@pytest.mark.parametrize("body", [[], {"geojson": 1}, [{"geojson": {"type": "LineString",
                                                                    "coordinates": [[0, 0]]}}]])
def test_burst_bad_body(emulator, body):
    assert _req(emulator, "POST", "/burst/create", body).status_code == 400


def test_burst_needs_credits(emulator):
    emulator.configure(balance=100)
    r = _req(emulator, "POST", "/burst/create", [{"geojson": {"type": "Point",
                                                              "coordinates": list(SPOT)}}])
    assert r.status_code == 402 and "Insufficient credits" in r.json()["error"]


def _range(days=30):
    end = dt.datetime.now(dt.timezone.utc)
    return (end - dt.timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S.000Z"), \
        end.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def test_aievents_search_and_pagination(emulator):
    start, end = _range()
    res = _req(emulator, "POST", "/aievents/search",
               {"startDate": start, "endDate": end, "limit": 50}).json()
    total = res["pagination"]["total"]
    assert res["pagination"] == {"total": total, "limit": 50, "offset": 0} and total > 50
    for ev in res["events"]:
        assert {"id", "type", "timestamp", "location", "videoUrl", "metadata"} <= set(ev)
        assert re.fullmatch(r"[0-9a-f]{24}", ev["id"]) and ev["type"] in TYPES
        assert start <= ev["timestamp"] <= end
        sa = ev["metadata"]["SPEED_ARRAY"]
        assert sa and {"AVG_SPEED_MS", "TIMESTAMP"} == set(sa[0])
        assert "ACCELERATION_MS2" in ev["metadata"]
    page2 = _req(emulator, "POST", "/aievents/search",
                 {"startDate": start, "endDate": end, "limit": 50, "offset": 50}).json()
    assert not {e["id"] for e in res["events"]} & {e["id"] for e in page2["events"]}
    braking = _req(emulator, "POST", "/aievents/search",
                   {"startDate": start, "endDate": end, "types": ["HARSH_BRAKING"],
                    "limit": 500}).json()
    assert braking["events"] and all(e["type"] == "HARSH_BRAKING" for e in braking["events"])
    ev = res["events"][0]
    lon, lat = ev["location"]["lon"], ev["location"]["lat"]
    ring = [[lon - 0.001, lat - 0.001], [lon + 0.001, lat - 0.001], [lon + 0.001, lat + 0.001],
            [lon - 0.001, lat + 0.001]]
    near = _req(emulator, "POST", "/aievents/search",
                {"startDate": start, "endDate": end, "polygon": ring}).json()
    assert ev["id"] in {e["id"] for e in near["events"]}
    assert near["pagination"]["total"] < total


@pytest.mark.parametrize("body", [
    {"startDate": "2024-01-01T00:00:00Z", "endDate": "2024-03-01T00:00:00Z"},
    {"startDate": "2024-01-01T00:00:00Z"},
    {"startDate": "x", "endDate": "2024-01-02T00:00:00Z"},
    {"startDate": "2024-01-01T00:00:00Z", "endDate": "2024-01-02T00:00:00Z", "limit": 501},
    {"startDate": "2024-01-01T00:00:00Z", "endDate": "2024-01-02T00:00:00Z", "types": ["X"]},
])
def test_aievents_search_errors(emulator, body):
    assert _req(emulator, "POST", "/aievents/search", body).status_code == 400


def test_aievent_by_id(emulator):
    start, end = _range(7)
    ev = _req(emulator, "POST", "/aievents/search",
              {"startDate": start, "endDate": end, "limit": 1}).json()["events"][0]
    full = _req(emulator, "GET", f"/aievents/{ev['id']}", includeGnssData="true",
                includeImuData="true").json()
    assert full["id"] == ev["id"] and full["type"] == ev["type"]
    assert full["gnssData"] and set(full["gnssData"][0]) == {"lat", "lon", "alt", "timestamp"}
    assert full["imuData"] and set(full["imuData"][0]) == {
        "timestamp", "acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z"}
    bare = _req(emulator, "GET", f"/aievents/{ev['id']}").json()
    assert "gnssData" not in bare and "imuData" not in bare
    assert _req(emulator, "GET", "/aievents/" + "0" * 24).status_code == 404
    assert _req(emulator, "GET", "/aievents/nope").status_code == 404
