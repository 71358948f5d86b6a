"""Fetch engine on the emulator: wall time against ideal concurrency, and a run under faults."""

from __future__ import annotations

import math
import time

from shapely.geometry import Point

from emulator.testing import start_emulator
from fleet_street.core.area import QueryArea
from fleet_street.core.data_client import DataClient
from fleet_street.core.fetch import FetchEngine
from fleet_street.core.http import HttpTransport
from fleet_street.core.profile import ConnectionProfile

LATENCY_MS = 150.0
AREA_KM2 = 100.0
TARGET = 1.3
DENSITY = 0.1


def _area() -> QueryArea:
    radius = math.sqrt(AREA_KM2 * 1e6 / math.pi)
    return QueryArea.from_shapely(Point(13.40, 52.52), radius_m=radius)


def _client(emu, concurrency: int) -> DataClient:
    profile = ConnectionProfile.from_env(emu.env()).replace(concurrency=concurrency)
    return DataClient(profile, http=HttpTransport(profile))


def _round_trip(emu) -> float:
    """Median time of a warm /balance round trip: the emulator's floor per request."""
    with _client(emu, 1) as client:
        client.balance()
        times = []
        for _ in range(9):
            start = time.perf_counter()
            client.balance()
            times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main() -> None:
    """Print wall time per concurrency, then a 30 % fault run compared object for object."""
    area = _area()
    with start_emulator(latency_ms=0, density=DENSITY) as emu:
        tiles = len(FetchEngine(_client(emu, 1)).tiles(area))
        floor = _round_trip(emu)
        emu.configure(latency_ms=LATENCY_MS)
        print(f"area {area.area_km2:.1f} km², {tiles} tiles, injected latency "
              f"{LATENCY_MS:.0f} ms, emulator round trip without latency {floor * 1000:.0f} ms")
        print(f"ideal = ceil(tiles / concurrency) x latency; target: the tile requests take "
              f"<= {TARGET} x ideal.\nwall also counts the balance reads around them (before, "
              "and after when answers carry no credit figures) and the merge.")
        print(f"{'concurrency':>11}{'requests s':>11}{'ideal s':>9}{'ratio':>8}{'wall s':>8}"
              f"{'objects':>9}{'credits':>9}  ok")
        baseline = None
        for concurrency in (1, 2, 4, 8, 12):
            emu.reset()
            with _client(emu, concurrency) as client:
                start = time.perf_counter()
                result = FetchEngine(client).map_features(area)
                wall = time.perf_counter() - start
            ideal = math.ceil(tiles / concurrency) * LATENCY_MS / 1000
            baseline = baseline or result
            requests = result.timings["requests"]
            ok = requests / ideal <= TARGET
            print(f"{concurrency:>11}{requests:>11.2f}{ideal:>9.2f}{requests / ideal:>8.2f}"
                  f"{wall:>8.2f}{len(result.items):>9}{result.credits_used:>9.0f}"
                  f"  {'yes' if ok else 'NO'}")

        emu.reset()
        emu.configure(fault_rate=0.3)
        with _client(emu, 4) as client:
            start = time.perf_counter()
            faulty = FetchEngine(client).map_features(area)
            wall = time.perf_counter() - start
            retries = client.http.retries
        stats = emu.stats()
        same = [f.id for f in faulty.items] == [f.id for f in baseline.items]
        print(f"\nunder 30 % injected faults (concurrency 4): {wall:.2f} s, "
              f"{retries} retries, faults injected: {dict(stats['faults'])}")
        print(f"tiles fetched {faulty.tiles_fetched}/{faulty.tiles_total}; objects "
              f"{len(faulty.items)} vs {len(baseline.items)} fault-free; identical object for "
              f"object: {'yes' if same else 'NO'}")
        print(f"credits tallied from responses {faulty.credits_used:.0f}; charged by the "
              f"emulator {stats['credits_used']} (a response cut off after charging is paid "
              "for but never seen)")


if __name__ == "__main__":
    main()
