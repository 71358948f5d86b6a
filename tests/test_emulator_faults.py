"""Injected latency, faults, rate limit, the request log and the control API."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest


def _balance(emu, **kw):
    return httpx.get(f"{emu.data_url}/balance", params={"apiKey": emu.data_key}, timeout=30, **kw)


@pytest.mark.parametrize("kind,status", [("500", 500), ("502", 502), ("503", 503),
                                         ("429", 429), ("403", 403), ("html", 502)])
def test_status_faults(emulator, kind, status):
    emulator.configure(fault_rate=1.0, fault_kinds=[kind])
    r = _balance(emulator)
    assert r.status_code == status
    if kind == "429":
        assert r.headers["retry-after"] == "1"
    if kind == "403":
        assert r.json() == {"error": "Rate exceeded"}
    if kind == "html":
        assert r.headers["content-type"].startswith("text/html") and b"<html>" in r.content
    # The control API is never faulted.
    assert emulator.stats()["faults"][kind] == 1


def test_drop_truncate_slow(emulator):
    emulator.configure(fault_rate=1.0, fault_kinds=["drop"])
    with pytest.raises(httpx.TransportError):
        _balance(emulator)
    emulator.configure(fault_kinds=["truncate"])
    r = _balance(emulator)
    assert r.status_code == 200
    with pytest.raises(ValueError):
        r.json()
    emulator.configure(fault_kinds=["slow"], slow_body_s=0.5)
    t0 = time.monotonic()
    r = _balance(emulator)
    assert time.monotonic() - t0 >= 0.45 and r.json()["balance"] > 0
    stats = emulator.stats()
    assert stats["endpoints"]["GET /api/developer/balance"]["statuses"]["dropped"] == 1


def test_fault_rate_mix(emulator):
    emulator.configure(fault_rate=0.5, fault_kinds=["500", "503"])
    codes = [_balance(emulator).status_code for _ in range(60)]
    assert 10 < codes.count(200) < 50
    assert set(codes) <= {200, 500, 503}


def test_rps_limit(emulator):
    emulator.configure(rps_limit=5)

    async def burst():
        # All at once, so they fall in one 1 s window however slow the machine is.
        async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=10)) as c:
            rs = await asyncio.gather(*[
                c.get(f"{emulator.data_url}/balance", params={"apiKey": emulator.data_key})
                for _ in range(10)
            ])
            return [r.status_code for r in rs]

    codes = asyncio.run(burst())
    assert set(codes) <= {200, 429}
    assert codes.count(429) >= 4 and codes.count(200) >= 5
    time.sleep(1.1)
    assert _balance(emulator).status_code == 200


def test_latency_is_concurrent(emulator):
    # A long latency so that all 64 requests overlap even if opening the connections is slow.
    emulator.configure(latency_ms=1000)

    async def burst():
        async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=64)) as c:
            t0 = time.monotonic()
            rs = await asyncio.gather(*[
                c.get(f"{emulator.data_url}/balance", params={"apiKey": emulator.data_key})
                for _ in range(64)
            ])
            return time.monotonic() - t0, rs

    wall, rs = asyncio.run(burst())
    assert all(r.status_code == 200 for r in rs)
    # One by one they would take 64 s; the speed target is benchmarks/bench_emulator.py's.
    assert 1.0 <= wall < 10.0
    assert emulator.stats()["max_in_flight"] == 64


def test_stats_and_reset(emulator):
    _balance(emulator)
    httpx.get(f"{emulator.data_url}/bursts")
    s = emulator.stats()
    assert s["total_requests"] == 2
    assert s["endpoints"]["GET /api/developer/bursts"]["statuses"] == {"403": 1}
    emulator.reset()
    assert emulator.stats()["total_requests"] == 0


def test_fault_pattern_restarts_on_reset(emulator):
    def pattern():
        emulator.configure(fault_rate=0.5, fault_kinds=["500", "503"])
        return [_balance(emulator).status_code for _ in range(30)]

    first = pattern()
    assert len(set(first)) > 1
    emulator.reset(config=True)
    assert pattern() == first  # the same stream whatever ran before the reset


def test_reset_waits_for_requests_in_flight(emulator):
    emulator.configure(latency_ms=1500)
    answers = []
    worker = threading.Thread(target=lambda: answers.append(_balance(emulator)))
    worker.start()
    deadline = time.monotonic() + 10
    while emulator.stats()["in_flight"] == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert emulator.stats()["in_flight"] == 1
    emulator.reset()
    # The late answer landed before the reset, so it is not logged after it.
    assert answers and answers[0].status_code == 200
    stats = emulator.stats()
    assert stats["in_flight"] == 0 and stats["total_requests"] == 0 and stats["endpoints"] == {}
    worker.join()


def test_config_roundtrip_and_errors(emulator):
    cfg = emulator.configure(latency_ms=5, jitter_ms=1)
    assert cfg["latency_ms"] == 5 and cfg["jitter_ms"] == 1
    r = httpx.post(f"{emulator.root_url}/_emulator/config", json={"nope": 1})
    assert r.status_code == 400
    r = httpx.post(f"{emulator.root_url}/_emulator/config", json={"fault_kinds": ["boom"]})
    assert r.status_code == 400
    emulator.reset(config=True)
    assert emulator.config()["latency_ms"] == 0


def test_factory_with_custom_knobs(emulator_factory):
    emu = emulator_factory(data_key="other", balance=77, seed=7)
    assert emu.env()["FLEETSTREET_DATA_KEY"] == "other"
    assert _balance(emu).json() == {"balance": 77}
    assert emu.env()["FLEETSTREET_MCP_URL"] == emu.data_url + "/mcp"
