"""Fleet and data clients: request building with a mock transport, behaviour on the emulator."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import httpx
import pytest

from fleet_street.core import errors
from fleet_street.core.data_client import DataClient
from fleet_street.core.fleet_client import FleetClient
from fleet_street.core.http import HttpTransport
from fleet_street.core.profile import ConnectionProfile

PROFILE = ConnectionProfile(fleet_url="http://fleet.test", data_url="http://data.test/api",
                            fleet_key="FK", data_key="DK", max_trip_days=7)
#: Every tool the emulator's MCP server offers, each once.
MCP_TOOLS = ["get_balance", "get_map_features", "get_latest_imagery", "get_imagery_by_week",
             "get_map_data", "create_burst", "list_bursts", "search_ai_events", "get_ai_event",
             "get_camera_intrinsics"]


def fleet_with(handler):
    return FleetClient(PROFILE, http=HttpTransport(PROFILE, transport=httpx.MockTransport(handler)))


def test_trips_split_into_windows_merged_and_deduped():
    seen = []

    def handler(request):
        assert request.headers["Authorization"] == "Bearer FK"
        q = request.url.params
        seen.append((q["startDate"], q["endDate"]))
        trips = [{"id": "shared", "distanceKm": 5.0}, {"id": q["startDate"], "distanceKm": 1.0}]
        return httpx.Response(200, json={"device": {"id": "d"}, "startDate": q["startDate"],
                                         "endDate": q["endDate"], "totalDistanceKm": 6.0,
                                         "trips": trips})

    result = fleet_with(handler).trips("d", date(2026, 1, 1), date(2026, 1, 20))
    assert len(seen) == 3
    assert seen[0][0] == "2026-01-01T00:00:00.000Z" and seen[-1][1] == "2026-01-20T23:59:59.999Z"
    for (_, end), (start, _) in zip(seen, seen[1:]):
        assert end == start
    assert len(result.trips) == 4  # "shared" once plus one per window
    assert result.total_distance_km == pytest.approx(8.0)


def test_trips_validate_before_calling():
    def handler(request):
        raise AssertionError("no request expected")

    client = fleet_with(handler)
    with pytest.raises(errors.ValidationError):
        client.trips("", date(2026, 1, 1), date(2026, 1, 2))
    with pytest.raises(errors.ValidationError):
        client.trips("d", date(2026, 1, 2), date(2026, 1, 1))
    with pytest.raises(errors.ValidationError):
        client.trips("d", "not a date", date(2026, 1, 1))
    with pytest.raises(errors.ValidationError):
        client.network_rewards(date(2026, 1, 7))


def test_rewards_snap_returns_note():
    def handler(request):
        assert request.url.params["rewardPeriod"] == "2026-01-05"
        return httpx.Response(200, json={"periodStart": "2026-01-05", "periodEnd": "2026-01-11",
                                         "devicesWithRewards": []})

    result = fleet_with(handler).network_rewards(date(2026, 1, 7), snap=True)
    assert result.period_start == date(2026, 1, 5) and "Monday" in result.note


def test_ai_event_search_windows_pages_and_dedupes():
    bodies = []

    def handler(request):
        import json

        body = json.loads(request.content)
        bodies.append(body)
        offset = body["offset"]
        # Window one has 600 events (two pages); both windows hold event "dup".
        n = 600 if body["startDate"].startswith("2026-01-01") else 3
        ids = ["dup"] + [f"{body['startDate'][:10]}-{i}" for i in range(n - 1)]
        events = [{"id": i, "type": "HARSH_BRAKING"} for i in ids[offset:offset + 500]]
        return httpx.Response(200, json={"events": events, "pagination": {
            "total": n, "limit": 500, "offset": offset}})

    client = DataClient(PROFILE, http=HttpTransport(PROFILE,
                                                    transport=httpx.MockTransport(handler)))
    events = client.search_ai_events(date(2026, 1, 1), date(2026, 2, 15), types=["HARSH_BRAKING"])
    starts = {b["startDate"] for b in bodies}
    assert len(starts) == 2 and bodies and all(b["limit"] == 500 for b in bodies)
    assert len(events) == 599 + 2 + 1
    assert len({e.id for e in events}) == len(events)


def data_with(handler):
    return DataClient(PROFILE, http=HttpTransport(PROFILE, transport=httpx.MockTransport(handler)))


def capped_bursts(n, cap, with_total=True):
    """A /bursts handler holding n bursts that never returns more than cap per page."""
    asked = []

    def handler(request):
        skip = int(request.url.params["skip"])
        limit = min(int(request.url.params["limit"]), cap)
        asked.append(skip)
        page = [{"id": f"b{i}", "status": "active"} for i in range(skip, min(n, skip + limit))]
        body = {"limit": limit, "skip": skip, "bursts": page}
        if with_total:
            body["total"] = n
        return httpx.Response(200, json=body)

    return handler, asked


@pytest.mark.parametrize("with_total", [True, False])
def test_all_bursts_follows_total_and_the_servers_page_size(with_total):
    handler, asked = capped_bursts(120, cap=50, with_total=with_total)
    bursts = data_with(handler).all_bursts(page_size=100)
    assert [b.id for b in bursts] == [f"b{i}" for i in range(120)]
    assert asked == [0, 50, 100]


def test_paging_stops_on_an_empty_page_despite_a_larger_total():
    calls = []

    def handler(request):
        calls.append(request)
        if request.url.path.endswith("/bursts"):
            skip = int(request.url.params["skip"])
            page = [{"id": "only"}] if skip == 0 else []
            return httpx.Response(200, json={"total": 1000, "limit": 100, "skip": skip,
                                             "bursts": page})
        return httpx.Response(200, json={"events": [], "pagination": {"total": 1000,
                                                                      "limit": 500}})

    client = data_with(handler)
    assert [b.id for b in client.all_bursts()] == ["only"] and len(calls) == 2
    assert client.search_ai_events("2026-01-01", "2026-01-02") == [] and len(calls) == 3


def test_ai_event_search_follows_total_with_a_smaller_server_page():
    offsets = []

    def handler(request):
        import json

        body = json.loads(request.content)
        offset = body["offset"]
        offsets.append(offset)
        events = [{"id": f"e{i}", "type": "HIGH_SPEED"} for i in range(offset, min(250, offset
                                                                                    + 100))]
        return httpx.Response(200, json={"events": events, "pagination": {
            "total": 250, "limit": 100, "offset": offset}})

    events = data_with(handler).search_ai_events("2026-01-01", "2026-01-10")
    assert sorted(e.id for e in events) == sorted(f"e{i}" for i in range(250))
    assert offsets == [0, 100, 200]


# -- against the emulator -------------------------------------------------------------------


def profile_of(emulator, **kw):
    return ConnectionProfile.from_env(emulator.env()).replace(**kw)


def test_fleet_endpoints_on_emulator(emulator):
    with FleetClient(profile_of(emulator)) as client:
        devices = client.devices()
        assert devices and devices[0].id
        loc = client.location(devices[0].id)
        assert loc.timestamp.tzinfo is not None and -90 <= loc.lat <= 90
        end = datetime.now(timezone.utc)
        trips = client.trips(devices[0].id, end - timedelta(days=20), end)
        assert trips.trips and all(t.coordinates() for t in trips.trips)
        assert len({t.id for t in trips.trips}) == len(trips.trips)
        today = date.today()
        monday = today - timedelta(days=today.weekday() + 7)
        assert client.network_rewards(monday).period_start == monday
        with pytest.raises(errors.NotFoundError):
            client.location("no-such-device")


def test_bad_keys_on_emulator(emulator):
    with DataClient(profile_of(emulator, data_key="wrong")) as client, \
            pytest.raises(errors.AuthError) as info:
        client.balance()
    assert "wrong" not in str(info.value)
    with FleetClient(profile_of(emulator, fleet_key="wrong")) as client, \
            pytest.raises(errors.AuthError):
        client.devices()


def test_data_endpoints_on_emulator(emulator):
    poly = {"type": "Polygon", "coordinates": [[[13.39, 52.51], [13.41, 52.51], [13.41, 52.52],
                                                [13.39, 52.52], [13.39, 52.51]]]}
    with DataClient(profile_of(emulator)) as client:
        before = client.balance()
        feats = client.map_features_poly(poly)
        assert feats and feats.credits_used is None  # the documented answer has none
        latest = client.latest_poly(poly, headings=True)
        assert latest.frames and latest.credits_remaining is not None
        week = client.imagery_poly(poly, date.today() - timedelta(days=10))
        assert week.frames and all(f.week == week.frames[0].week for f in week.frames)
        md = client.map_data({"type": "Point", "coordinates": [13.40, 52.515]}, radius_m=300)
        assert md.features or md.frames
        assert client.balance() < before
        intr = client.camera_intrinsics()
        assert intr and all(i.focal > 0 for i in intr.values())
        created = client.create_bursts([{"type": "Point", "coordinates": [13.4, 52.5]}])
        assert created.success and created.bursts
        assert any(b.id == created.bursts[0].id for b in client.all_bursts())
        fresh = client.renew_url(latest.frames[0].url)
        assert fresh.startswith("http")
        assert sorted(client.mcp_tools()) == sorted(MCP_TOOLS)
        with pytest.raises(errors.BadRequestError):
            client.call("POST", "/latest/poly", body={"type": "Polygon", "coordinates": [
                [[13, 52], [13.2, 52], [13.2, 52.2], [13, 52]]]})


def test_ai_events_on_emulator(emulator):
    with DataClient(profile_of(emulator)) as client:
        events = client.search_ai_events(date.today() - timedelta(days=45), date.today())
        assert events and len({e.id for e in events}) == len(events)
        one = client.ai_event(events[0].id)
        assert one.id == events[0].id and one.gnss
