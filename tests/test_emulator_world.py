"""Unit tests of the procedural world, the polyline codec and the command line."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator import dataapi, grid
from emulator.config import Settings
from emulator.polyline_codec import decode, encode
from emulator.state import EmulatorState
from emulator.testing import REPO_ROOT
from emulator.world import World


def test_same_seed_same_cells_other_seed_differs():
    cell = grid.cell_of(13.40, 52.52)
    a, b, c = World(1, 1.0), World(1, 1.0), World(2, 1.0)
    assert a.features(cell).items == b.features(cell).items
    assert a.features(cell).items != c.features(cell).items


def test_density_scales_counts():
    cells = grid.cells_in_bbox(13.38, 52.50, 13.42, 52.53)
    lo = sum(len(World(3, 0.5).features(c).items) for c in cells)
    hi = sum(len(World(3, 2.0).features(c).items) for c in cells)
    assert 2.5 < hi / lo < 6


def test_realistic_urban_density():
    w = World(42, 1.0)
    cells = grid.cells_in_bbox(13.38, 52.50, 13.42, 52.53)
    area = sum(grid.cell_area_km2(c) for c in cells)
    per_km2 = sum(len(w.features(c).items) for c in cells) / area
    assert 100 <= per_km2 <= 300
    monday = dt.date(2024, 5, 6)
    frames = sum(len(w.frames(c, monday).items) for c in cells) / area
    assert 100 <= frames <= 800


def test_cold_query_of_5_km2_is_not_pathologically_slow():
    state = EmulatorState(Settings(seed=12345))
    geom = dataapi.poly({"type": "Polygon", "coordinates": [[
        [2.30, 48.85], [2.3305, 48.85], [2.3305, 48.87], [2.30, 48.87], [2.30, 48.85]]]}, state)
    t0 = time.perf_counter()
    feats = dataapi.select_features(state, geom)
    frames = dataapi.select_frames(state, geom, dt.date(2024, 5, 6), None, False)
    cold = time.perf_counter() - t0
    assert feats and frames
    # Sanity bounds only, 5x the speed targets (0.25 s cold, typically ~60 ms; 50 ms warm),
    # so a busy CI machine cannot fail it; speed itself is a benchmark's concern.
    assert cold < 1.25
    t0 = time.perf_counter()
    again = dataapi.select_features(state, geom)
    assert time.perf_counter() - t0 < 0.25
    assert [f["id"] for f in again] == [f["id"] for f in feats]  # signed URLs may differ


def test_cells_cover_bbox():
    cells = grid.cells_in_bbox(13.0, 52.0, 13.05, 52.03)
    for lon in (13.0, 13.01, 13.049):
        for lat in (52.0, 52.015, 52.029):
            assert grid.cell_of(lon, lat) in cells


@given(st.lists(st.tuples(st.floats(-89, 89), st.floats(-179, 179)), min_size=1, max_size=20))
def test_polyline_roundtrip(points):
    decoded = decode(encode(points))
    assert len(decoded) == len(points)
    for (a, b), (c, d) in zip(decoded, points):
        assert a == pytest.approx(c, abs=1e-5) and b == pytest.approx(d, abs=1e-5)


def test_polyline_matches_reference_sample():
    # The example of Google's documentation of the algorithm.
    pts = [(38.5, -120.2), (40.7, -120.95), (43.252, -126.453)]
    assert encode(pts) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@"


def test_cli_help():
    out = subprocess.run([sys.executable, "-m", "emulator", "--help"], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    for flag in ("--port", "--seed", "--fleet-key", "--data-key", "--balance", "--latency-ms",
                 "--jitter-ms", "--fault-rate", "--rps-limit", "--url-lifetime-s",
                 "--burst-hit-delay-s", "--density", "--max-trip-days", "--prices",
                 "--price-frame"):
        assert flag in out.stdout


def test_port_zero_prints_both_base_urls():
    proc = subprocess.Popen([sys.executable, "-m", "emulator", "--port", "0"], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        fleet = proc.stdout.readline().strip()
        data = proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert fleet.startswith("fleet API: http://127.0.0.1:")
    port = int(fleet.rsplit(":", 1)[1])
    assert port > 0 and data == f"data API: http://127.0.0.1:{port}/api/developer"


def test_on_off_knob_from_cli_and_config():
    from emulator.config import Settings, build_parser, settings_from_args
    from emulator.testing import knob_args

    assert Settings().feature_credits_in_body is False
    on = settings_from_args(build_parser().parse_args(knob_args({"feature_credits_in_body": True})))
    assert on.feature_credits_in_body is True
    assert knob_args({"feature_credits_in_body": False}) == []
    s = Settings()
    s.update({"feature_credits_in_body": "true"})
    assert s.feature_credits_in_body is True
    s.update({"feature_credits_in_body": "false"})
    assert s.feature_credits_in_body is False
