"""Concurrency of the emulator: 64 requests at once with 150 ms injected latency."""

from __future__ import annotations

import asyncio
import time

import httpx

from emulator.testing import start_emulator

LATENCY_MS = 150
CONCURRENCY = 64
POLYGON = {"type": "Polygon", "coordinates": [[[13.39, 52.51], [13.40, 52.51], [13.40, 52.515],
                                               [13.39, 52.515], [13.39, 52.51]]]}


async def _fire(emu, path: str, body: dict | None) -> tuple[float, list[int]]:
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        url = f"{emu.data_url}{path}"
        params = {"apiKey": emu.data_key}
        t0 = time.perf_counter()
        if body is None:
            calls = [client.get(url, params=params) for _ in range(CONCURRENCY)]
        else:
            calls = [client.post(url, params=params, json=body) for _ in range(CONCURRENCY)]
        responses = await asyncio.gather(*calls)
        return time.perf_counter() - t0, [r.status_code for r in responses]


async def _raw_get(port: int, path: str, start: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await start.wait()
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    await reader.read()
    writer.close()


async def _raw(emu) -> float:
    """Same burst over pre-opened plain sockets: server time without client-pool overhead."""
    start = asyncio.Event()
    path = f"/api/developer/balance?apiKey={emu.data_key}"
    tasks = [asyncio.create_task(_raw_get(emu.port, path, start)) for _ in range(CONCURRENCY)]
    await asyncio.sleep(0.2)
    t0 = time.perf_counter()
    start.set()
    await asyncio.gather(*tasks)
    return time.perf_counter() - t0


def main() -> None:
    """Start an emulator, fire the requests and print wall time and max in-flight count."""
    with start_emulator(latency_ms=LATENCY_MS) as emu:
        for label, path, body in (
            ("GET /balance", "/balance", None),
            ("POST /mapFeatures/poly", "/mapFeatures/poly", POLYGON),
            ("POST /latest/poly", "/latest/poly", POLYGON),
        ):
            emu.reset()
            wall, codes = asyncio.run(_fire(emu, path, body))
            stats = emu.stats()
            ok = sum(c == 200 for c in codes)
            print(
                f"{label:<24} {CONCURRENCY} concurrent at {LATENCY_MS} ms latency: "
                f"wall {wall * 1000:.0f} ms (x{wall * 1000 / LATENCY_MS:.2f} of latency), "
                f"max in flight {stats['max_in_flight']}, {ok}/{CONCURRENCY} ok",
                flush=True,
            )
        emu.reset()
        wall = asyncio.run(_raw(emu))
        print(
            f"{'raw sockets /balance':<24} {CONCURRENCY} concurrent at {LATENCY_MS} ms latency: "
            f"wall {wall * 1000:.0f} ms, max in flight {emu.stats()['max_in_flight']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
