"""Fetch engine, response cache and image downloads against the emulator."""

from __future__ import annotations

import threading
import time
from datetime import date, timedelta

import httpx
import numpy as np
import pytest

from fleet_street.core import errors
from fleet_street.core.area import QueryArea
from fleet_street.core.cache import ResponseCache, cache_key
from fleet_street.core.cancel import CancelToken
from fleet_street.core.data_client import DataClient
from fleet_street.core.fetch import FetchEngine
from fleet_street.core.http import HttpTransport
from fleet_street.core.images import download_images
from fleet_street.core.models import CameraIntrinsics
from fleet_street.core.profile import ConnectionProfile
from fleet_street.core.signed_urls import is_stale, url_expiry
from fleet_street.core.undistort import undistort

CENTRE = (13.40, 52.52)


def area_km2(km2: float) -> QueryArea:
    import math

    from shapely.geometry import Point

    return QueryArea.from_shapely(Point(*CENTRE), radius_m=math.sqrt(km2 * 1e6 / math.pi))


def client_for(emulator, **kw) -> DataClient:
    profile = ConnectionProfile.from_env(emulator.env()).replace(**kw)
    http = HttpTransport(profile, backoff_base=0.02, backoff_cap=0.2, retry_after_cap=1.0)
    return DataClient(profile, http=http)


def sleep_past_expiry(urls) -> None:
    """Sleep until every signed URL has really expired (their Expires is whole seconds)."""
    expiries = [url_expiry(u) for u in urls]
    assert expiries and None not in expiries
    time.sleep(max(0.0, max(expiries) - time.time()) + 0.2)
    assert all(httpx.get(u).status_code == 403 for u in urls[:3])


def endpoint(stats, key):
    return stats["endpoints"].get(key, {"requests": 0, "credits": 0})


def test_map_features_tiled_merged_and_tallied(emulator):
    area = area_km2(12)
    with client_for(emulator) as client:
        reports = []
        result = FetchEngine(client, progress=reports.append).map_features(area)
    stats = emulator.stats()
    assert result.tiles_total == 3 and result.tiles_fetched == 3 and result.complete
    assert endpoint(stats, "POST /api/developer/mapFeatures/poly")["requests"] == 3
    assert result.credits_used == stats["credits_used"]
    assert result.balance_before - result.credits_used == result.credits_remaining
    assert result.items and len({f.id for f in result.items}) == len(result.items)
    assert all(area.covers(f.lon, f.lat) for f in result.items)
    assert reports[-1].tiles_done == 3
    subset = FetchEngine(client_for(emulator)).map_features(
        area, classes=["speed-sign"], min_confidence=0.8)
    assert subset.items and all(f.feature_class == "speed-sign" and f.confidence >= 0.8
                                for f in subset.items)


def test_cache_makes_rerun_free_and_renews_expired_urls(emulator, tmp_path):
    emulator.configure(url_lifetime_s=2)
    area = area_km2(0.3)
    cache = ResponseCache(str(tmp_path / "c.sqlite"))
    with client_for(emulator) as client:
        first = FetchEngine(client, cache=cache).latest_imagery(area)
        assert first.items
        spent = emulator.stats()["credits_used"]
        sleep_past_expiry([f.url for f in first.items])
        second = FetchEngine(client, cache=cache).latest_imagery(area)
    stats = emulator.stats()
    assert len(second.items) == len(first.items)
    assert second.tiles_from_cache == second.tiles_total and second.credits_used == 0
    assert stats["credits_used"] == spent
    assert endpoint(stats, "POST /api/developer/latest/poly")["requests"] == first.tiles_total
    assert endpoint(stats, "POST /api/developer/renew/{url}")["requests"] >= len(second.items)
    assert [f.key for f in first.items] == [f.key for f in second.items]
    assert all(f.url != g.url for f, g in zip(first.items, second.items))


def test_faults_are_survived_and_results_match(emulator):
    area = area_km2(15)
    with client_for(emulator) as client:
        clean = FetchEngine(client).map_data(area)
        emulator.configure(fault_rate=0.3)
        faulty = FetchEngine(client, concurrency=4).map_data(area)
    assert emulator.stats()["faults"]
    assert faulty and all(r.complete for r in faulty)
    assert [f.id for f in clean[0].items] == [f.id for f in faulty[0].items]
    assert [f.key for f in clean[1].items] == [f.key for f in faulty[1].items]
    assert clean[0].items and clean[1].items


def test_weekly_imagery_tags_frames(emulator):
    area = area_km2(4)
    weeks = [date.today() - timedelta(days=7 * i) for i in range(1, 4)]
    with client_for(emulator) as client:
        result = FetchEngine(client).imagery_by_week(area, weeks)
    assert result.tiles_total == 3
    assert result.items and all(f.week is not None and f.week.weekday() == 0
                                for f in result.items)
    for f in result.items:
        assert f.week <= f.timestamp.date() < f.week + timedelta(days=7)


def test_cancel_stops_soon_keeping_what_is_done(emulator):
    emulator.configure(latency_ms=400)
    cancel = CancelToken()
    cancelled_at = []

    def cancel_after_first_tile(report):
        # Cancel on an event, not a timer, so a slow machine cannot cancel before any tile.
        if report.tiles_done >= 1 and not cancel.cancelled:
            cancelled_at.append(time.monotonic())
            cancel.cancel()

    with client_for(emulator) as client:
        engine = FetchEngine(client, concurrency=2, cancel=cancel,
                             progress=cancel_after_first_tile)
        result = engine.map_features(area_km2(60))
        stopped_at = time.monotonic()
    # Requests sent before the cancel may still be answered (and charged): let them land
    # now rather than in the next test.
    assert emulator.wait_idle(10.0)
    assert cancelled_at and result.cancelled
    assert 0 < result.tiles_fetched < result.tiles_total
    # Behaviour first (stopped with tiles left undone); the time bound is a generous sanity
    # bound for busy CI machines: at most one 0.4 s request per worker is awaited.
    assert stopped_at - cancelled_at[0] < 5.0


def test_budget_stops_before_it_is_exceeded(emulator):
    with client_for(emulator) as client, pytest.raises(errors.BudgetExceeded) as info:
        FetchEngine(client, budget=1500).map_features(area_km2(30))
    partial = info.value.result
    assert partial.credits_used <= 1500 and partial.items
    assert partial.tiles_fetched < partial.tiles_total


def test_failed_tile_raises_partial_with_result():
    calls = {"n": 0}

    def handler(request):
        if request.url.path.endswith("/balance"):
            return httpx.Response(200, json={"balance": 100})
        calls["n"] += 1
        import json

        body = json.loads(request.content)
        lon, lat = body["coordinates"][0][0][0], body["coordinates"][0][0][1]
        if calls["n"] <= 6:  # the first tile asked keeps failing through all its attempts
            return httpx.Response(500, json={"error": "Internal server error"})
        return httpx.Response(200, json={"features": [
            {"id": f"{lon:.6f}", "class": "stop-sign", "position": {"lat": lat, "lon": lon}}],
            "creditsUsed": 1, "creditsRemaining": 99})

    profile = ConnectionProfile(data_url="http://d.test", data_key="K", max_attempts=6)
    http = HttpTransport(profile, transport=httpx.MockTransport(handler), backoff_base=0.001,
                         backoff_cap=0.001)
    with pytest.raises(errors.PartialFetchError) as info:
        FetchEngine(DataClient(profile, http=http), concurrency=1).map_features(area_km2(12))
    result = info.value.result
    assert result.failed_tiles == [0] and result.tiles_fetched == 2
    assert isinstance(info.value.cause, errors.ServerError)
    assert not result.complete


def test_cache_key_ignores_keys_and_order(tmp_path):
    a = cache_key("POST", "http://x/p", {"b": 1, "a": [1, 2]}, {"apiKey": "S", "week": "w"})
    b = cache_key("post", "http://x/p", {"a": [1, 2], "b": 1}, {"week": "w", "apiKey": "T"})
    assert a == b
    cache = ResponseCache(str(tmp_path / "x.sqlite"))
    cache.put("POST", "http://x/p", {"a": 1}, None, {"frames": []})
    assert cache.get("POST", "http://x/p", {"a": 1}) == {"frames": []}


def test_signed_url_expiry_formats():
    assert url_expiry("http://h/f.jpg?Expires=100&Signature=x") == 100
    amz = "http://h/f?X-Amz-Date=20260101T000000Z&X-Amz-Expires=60&X-Amz-Signature=s"
    assert url_expiry(amz) == pytest.approx(1767225660)
    assert is_stale("http://h/f.jpg", fetched_at=0, now=10_000)
    assert not is_stale("http://h/f.jpg", fetched_at=10_000, now=10_001)


def test_download_images_renews_expired_and_reuses(emulator, tmp_path):
    emulator.configure(url_lifetime_s=2)
    with client_for(emulator) as client:
        frames = client.latest_poly({"type": "Polygon", "coordinates": [[
            [13.40, 52.52], [13.405, 52.52], [13.405, 52.523], [13.40, 52.52]]]}).frames[:5]
        assert frames
        sleep_past_expiry([f.url for f in frames])
        urls = {f.url: f"{f.sequence}_{f.idx}.jpg" for f in frames}
        paths = download_images(urls, tmp_path, client, concurrency=3)
        assert len(paths) == len(frames)
        assert all((tmp_path / name).stat().st_size > 0 for name in urls.values())
        renewals = endpoint(emulator.stats(), "POST /api/developer/renew/{url}")["requests"]
        assert renewals == len(frames)
        again = download_images(urls, tmp_path, client)
    assert again == paths
    assert endpoint(emulator.stats(), "POST /api/developer/renew/{url}")["requests"] == renewals


def test_undistort_identity_and_barrel():
    img = (np.arange(40 * 60) % 255).astype(np.uint8).reshape(40, 60)
    flat = CameraIntrinsics("x", focal=0.8)
    assert np.array_equal(undistort(img, flat, "nearest"), img)
    assert np.array_equal(undistort(img, flat), img)
    rgb = np.dstack([img, img, img])
    barrel = undistort(rgb, CameraIntrinsics("x", focal=0.7, k1=-0.2, k2=0.05))
    assert barrel.shape == rgb.shape and barrel.dtype == rgb.dtype
    assert not np.array_equal(barrel, rgb)
    cy, cx = 19, 29  # the centre stays where it is
    assert barrel[cy, cx, 0] == rgb[cy, cx, 0]


def test_estimate_and_mcp(emulator):
    with client_for(emulator) as client:
        engine = FetchEngine(client)
        area = area_km2(12)
        est = engine.estimate(area, "weeks", weeks=[date(2026, 1, 5), date(2026, 1, 7),
                                                    date(2026, 1, 12)])
        assert (est.tiles, est.requests, est.credits) == (3, 6, None)
        assert engine.estimate(area, "bursts", bursts=2).credits == 250
        assert emulator.stats()["total_requests"] == 0
        assert "get_map_features" in client.mcp_tools()


def test_out_of_credits_stops_the_fetch(emulator):
    emulator.configure(balance=50)
    with client_for(emulator) as client, pytest.raises(errors.PartialFetchError) as info:
        FetchEngine(client, concurrency=1).map_features(area_km2(12))
    assert isinstance(info.value.cause, errors.OutOfCreditsError)
    assert info.value.result.tiles_fetched < info.value.result.tiles_total


def test_cached_entry_refetched_when_renewal_fails(tmp_path):
    lon, lat = CENTRE
    stale = {"frames": [{"url": "http://files.test/a.jpg?Expires=1&Signature=x", "sequence": "s",
                         "idx": 0, "position": {"lat": lat, "lon": lon}}],
             "creditsUsed": 1, "creditsRemaining": 9}
    fresh = {"frames": [{"url": "http://files.test/a.jpg?Expires=9999999999&Signature=y",
                         "sequence": "s", "idx": 0, "position": {"lat": lat, "lon": lon}}],
             "creditsUsed": 1, "creditsRemaining": 8}
    seen = []

    def handler(request):
        seen.append(request.url.path)
        if request.url.path.endswith("/balance"):
            return httpx.Response(200, json={"balance": 10})
        if "/renew/" in request.url.path:
            return httpx.Response(400, json={"error": "Not a signed URL of this service"})
        return httpx.Response(200, json=fresh)

    profile = ConnectionProfile(data_url="http://d.test", data_key="K")
    client = DataClient(profile, http=HttpTransport(profile,
                                                    transport=httpx.MockTransport(handler)))
    area = area_km2(1)
    cache = ResponseCache(str(tmp_path / "c.sqlite"))
    engine = FetchEngine(client, cache=cache)
    tile = engine.tiles(area)[0]
    cache.put("POST", "http://d.test/latest/poly", tile.geojson, {"headings": "true"}, stale,
              fetched_at=time.time() - 60)
    result = engine.latest_imagery(area)
    assert result.tiles_fetched == 1 and result.tiles_from_cache == 0
    assert result.items[0].url.endswith("Signature=y")
    assert any("/renew/" in p for p in seen) and seen.count("/latest/poly") == 1
    assert cache.get("POST", "http://d.test/latest/poly", tile.geojson,
                     {"headings": "true"}) == fresh


def test_cache_is_thread_safe(tmp_path):
    cache = ResponseCache(str(tmp_path / "t.sqlite"))

    def work(n):
        for i in range(50):
            cache.put("POST", "http://x/p", {"n": n, "i": i}, None, {"v": i})
            assert cache.get("POST", "http://x/p", {"n": n, "i": i}) == {"v": i}

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 400


# -- cache lifetimes, refresh, clear ---------------------------------------------------------


def test_cache_lifetimes_per_endpoint(tmp_path):
    from datetime import datetime, timezone

    from fleet_street.core.cache import CacheLifetimes

    cache = ResponseCache(str(tmp_path / "l.sqlite"))
    base = "http://d.test/api"
    # Wednesday 2026-01-07 noon UTC; its ISO week ends on Monday 2026-01-12.
    wed = datetime(2026, 1, 7, 12, tzinfo=timezone.utc).timestamp()
    next_week = datetime(2026, 1, 13, tzinfo=timezone.utc).timestamp()
    past, current = {"week": "2025-12-29"}, {"week": "2026-01-05"}
    for path, params in [("/imagery/poly", past), ("/imagery/poly", current),
                         ("/latest/poly", {}), ("/mapFeatures/poly", {}), ("/map-data", {})]:
        cache.put("POST", base + path, {"g": 1}, params, {"path": path}, fetched_at=wed)

    def alive(path, params, now):
        return cache.get("POST", base + path, {"g": 1}, params, now=now) is not None

    assert alive("/imagery/poly", past, wed + 10 * 365 * 86400)  # an ended week: forever
    assert alive("/imagery/poly", current, wed + 3500)
    assert not alive("/imagery/poly", current, wed + 3700)  # new frames may have come
    # Fetched mid-week, the answer stays short-lived even after the week has ended.
    assert not alive("/imagery/poly", current, next_week)
    for path in ("/latest/poly", "/mapFeatures/poly", "/map-data"):
        assert alive(path, {}, wed + 23 * 3600), path
        assert not alive(path, {}, wed + 25 * 3600), path
    cache.put("POST", base + "/imagery/poly", {"g": 1}, current, {"late": 1}, fetched_at=next_week)
    assert alive("/imagery/poly", current, next_week + 10 * 365 * 86400)
    short = ResponseCache(str(tmp_path / "l.sqlite"),
                          lifetimes=CacheLifetimes(latest_imagery=60, past_week_imagery=3600))
    assert not short.get("POST", base + "/latest/poly", {"g": 1}, {}, now=wed + 61)
    assert not short.get("POST", base + "/imagery/poly", {"g": 1}, past, now=wed + 3601)


def test_cache_clear_and_size(tmp_path):
    cache = ResponseCache(str(tmp_path / "s.sqlite"))
    entries, empty = cache.size()
    assert entries == 0
    for i in range(200):
        cache.put("POST", "http://x/latest/poly", {"i": i}, None, {"frames": ["x" * 500]})
    entries, full = cache.size()
    assert entries == 200 and full > empty + 200 * 500
    cache.clear()
    entries, cleared = cache.size()
    assert entries == 0 and cleared < full and len(cache) == 0


def test_rerun_after_a_day_fetches_latest_imagery_again_and_refresh_skips_cache(emulator,
                                                                                tmp_path):
    area = area_km2(0.3)
    cache = ResponseCache(str(tmp_path / "c.sqlite"))
    with client_for(emulator) as client:
        first = FetchEngine(client, cache=cache).latest_imagery(area)
        assert FetchEngine(client, cache=cache).latest_imagery(area).tiles_from_cache == 1
        fresh = FetchEngine(client, cache=cache, refresh=True).latest_imagery(area)
        assert fresh.tiles_fetched == 1 and fresh.tiles_from_cache == 0
        tile = FetchEngine(client).tiles(area)[0]
        endpoint_url = client.profile.data_url + "/latest/poly"
        stored, when = cache.get_entry("POST", endpoint_url, tile.geojson, {"headings": "true"})
        assert when > time.time() - 60  # refresh still wrote the cache
        cache.put("POST", endpoint_url, tile.geojson, {"headings": "true"}, stored,
                  fetched_at=time.time() - 25 * 3600)
        later = FetchEngine(client, cache=cache).latest_imagery(area)
    assert later.tiles_fetched == 1 and later.tiles_from_cache == 0
    requests = endpoint(emulator.stats(), "POST /api/developer/latest/poly")["requests"]
    assert requests == 3 and first.tiles_total == 1


# -- /map-data answers, budget, credits without figures ----------------------------------------


def mock_client(handler, **kw):
    profile = ConnectionProfile(data_url="http://d.test", data_key="K", max_attempts=2)
    http = HttpTransport(profile, transport=httpx.MockTransport(handler), backoff_base=0.001,
                         backoff_cap=0.001)
    return DataClient(profile, http=http)


@pytest.mark.parametrize("answer", [
    {"totalCreditsUsed": 0, "imageryResults": {"data": []}},
    {"totalCreditsUsed": 0, "mapFeatureResults": {"data": None}, "imageryResults": {"data": []}},
    {"totalCreditsUsed": 0, "mapFeatureResults": {"data": []}, "imageryResults": {"data": {}}},
    {"totalCreditsUsed": 0, "mapFeatureResults": [], "imageryResults": {"data": []}},
])
def test_map_data_answer_missing_a_result_is_invalid(answer):
    def handler(request):
        if request.url.path.endswith("/balance"):
            return httpx.Response(200, json={"balance": 100})
        return httpx.Response(200, json=answer)

    with pytest.raises(errors.PartialFetchError) as info:
        FetchEngine(mock_client(handler)).map_data(area_km2(1))
    assert isinstance(info.value.cause, errors.InvalidResponseError)
    assert info.value.result[0].tiles_fetched == 0
    with pytest.raises(errors.InvalidResponseError):
        mock_client(handler).map_data({"type": "Point", "coordinates": [13.4, 52.5]},
                                      radius_m=50)


def test_map_data_answer_only_needs_the_requested_results():
    def handler(request):
        if request.url.path.endswith("/balance"):
            return httpx.Response(200, json={"balance": 100})
        return httpx.Response(200, json={"totalCreditsUsed": 0, "imageryResults": {"data": []}})

    feats, frames = FetchEngine(mock_client(handler)).map_data(area_km2(1), features=False)
    assert frames.complete and frames.items == [] and feats.items == []


def priced_features(price, balance=1000.0, report=True):
    """A handler charging `price` per /mapFeatures/poly answer (reported in the body or not)."""
    state = {"balance": balance, "tiles": 0}
    lock = threading.Lock()

    def handler(request):
        if request.url.path.endswith("/balance"):
            time.sleep(0.2)  # the balance is read at answer time, after a slow trip
            with lock:
                return httpx.Response(200, json={"balance": state["balance"]})
        with lock:
            state["balance"] -= price
            state["tiles"] += 1
        body = {"features": []}
        if report:
            body.update(creditsUsed=price, creditsRemaining=state["balance"])
        return httpx.Response(200, json=body)

    return handler, state


def test_first_request_over_a_small_budget_is_explained():
    handler, state = priced_features(50)
    with pytest.raises(errors.BudgetExceeded) as info:
        FetchEngine(mock_client(handler), budget=10).map_features(area_km2(12))
    assert state["tiles"] == 1
    assert "first request was sent alone to learn the price" in str(info.value)
    assert info.value.result.notes and info.value.result.credits_used == 50
    handler, _ = priced_features(50)
    single = FetchEngine(mock_client(handler), budget=10).map_features(area_km2(1))
    assert single.complete and "cost 50 credits, more than the budget of 10" in single.notes[0]
    handler, _ = priced_features(5)
    with pytest.raises(errors.BudgetExceeded) as info:
        FetchEngine(mock_client(handler), budget=12).map_features(area_km2(12))
    assert "first request" not in str(info.value) and not info.value.result.notes


def test_credits_without_figures_come_from_the_balance():
    handler, state = priced_features(7, report=False)
    result = FetchEngine(mock_client(handler), concurrency=3).map_features(area_km2(12))
    assert state["tiles"] == 3
    assert result.balance_before == 1000 and result.credits_used == 21
    assert result.credits_remaining == 979
    handler, state = priced_features(7, report=False)
    with pytest.raises(errors.BudgetExceeded) as info:
        FetchEngine(mock_client(handler), budget=15).map_features(area_km2(12))
    assert state["tiles"] == 2 and info.value.result.credits_used == 14


def test_features_without_figures_on_emulator_match_the_charge(emulator):
    with client_for(emulator) as client:
        result = FetchEngine(client, concurrency=3).map_features(area_km2(12))
        balance = client.balance()
    stats = emulator.stats()
    charged = endpoint(stats, "POST /api/developer/mapFeatures/poly")["credits"]
    assert charged > 0 and result.credits_used == charged == stats["credits_used"]
    assert result.credits_remaining == balance == result.balance_before - charged
