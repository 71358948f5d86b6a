"""The procedural world: streets, map features and imagery frames per grid cell.

Everything in a cell depends only on (seed, density, cell, week), so overlapping or tiled
queries see the same objects with the same ids. Cells are cached in an LRU.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import math
from typing import Any

import numpy as np

from emulator import grid
from emulator.grid import Cell
from emulator.regions import feature_region, urbanity
from emulator.util import UTC, hash_hex, rng

FRAME_W, FRAME_H = 640, 360
DEVICES = ("hdc", "hdc-s", "bee")
FEATURE_CLASSES = (
    ("speed-sign", 0.15), ("stop-sign", 0.10), ("parking-restriction-sign", 0.12),
    ("turn-restriction-sign", 0.08), ("highway-sign", 0.05), ("fire-hydrant", 0.15),
    ("traffic-light", 0.12), ("lane-line", 0.23),
)
_CLASS_P = np.array([w for _, w in FEATURE_CLASSES]) / sum(w for _, w in FEATURE_CLASSES)
_LANE_IDX = [c for c, _ in FEATURE_CLASSES].index("lane-line")
FRAME_SPACING_M = 15.0
LATEST_LOOKBACK_WEEKS = 26
FIRST_SEEN_FROM = dt.datetime(2023, 1, 2, tzinfo=UTC)

Segment = tuple[float, float, float, float, str]


@dataclasses.dataclass
class Objects:
    """Objects of one cell: positions as arrays for fast membership, plus their records."""

    lons: np.ndarray
    lats: np.ndarray
    items: list[dict[str, Any]]
    paths: list[str]
    times: np.ndarray  # epoch seconds; frames only

    @classmethod
    def empty(cls) -> Objects:
        """Return a cell without objects."""
        z = np.zeros(0)
        return cls(z, z, [], [], z)


def bearing(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Return the initial compass bearing in degrees from point 1 to point 2 (local plane)."""
    dx = (lon2 - lon1) * grid.metres_per_deg_lon(lat1)
    dy = (lat2 - lat1) * grid.M_PER_DEG_LAT
    return math.degrees(math.atan2(dx, dy)) % 360.0


def segment_length_m(seg: Segment) -> float:
    """Return the planar length of a street segment in metres."""
    lon1, lat1, lon2, lat2, _ = seg
    dx = (lon2 - lon1) * grid.metres_per_deg_lon((lat1 + lat2) / 2)
    dy = (lat2 - lat1) * grid.M_PER_DEG_LAT
    return math.hypot(dx, dy)


class World:
    """Generator of streets, features and frames for any place, cached per cell."""

    def __init__(self, seed: int, density: float):
        self.seed = seed
        self.density = max(0.0, density)
        self.streets = functools.lru_cache(maxsize=8192)(self._streets)
        self.features = functools.lru_cache(maxsize=2048)(self._features)
        self.frames = functools.lru_cache(maxsize=4096)(self._frames)
        self.frame_count = functools.lru_cache(maxsize=65536)(self._frame_count)

    # streets -------------------------------------------------------------------------
    def cell_urbanity(self, cell: Cell) -> float:
        """Urban share of a cell, from its centre."""
        lon0, lat0, lon1, lat1 = grid.cell_bounds(cell)
        return urbanity(self.seed, (lon0 + lon1) / 2, (lat0 + lat1) / 2)

    def _streets(self, cell: Cell) -> tuple[Segment, ...]:
        lon0, lat0, lon1, lat1 = grid.cell_bounds(cell)
        hlat = grid.arterial_lat(self.seed, cell.j)
        vlon = grid.arterial_lon(self.seed, cell.band, cell.i)
        segs: list[Segment] = [
            (lon0, hlat, lon1, hlat, "arterial"),
            (vlon, lat0, vlon, lat1, "arterial"),
        ]
        u = self.cell_urbanity(cell)
        r = rng(self.seed, "streets", cell)
        n_local = int(round(u * 5 + r.random() * 1.2))
        for k in range(n_local):
            f = 0.05 + 0.9 * r.random()
            if k % 2 == 0:
                lat = lat0 + f * (lat1 - lat0)
                segs.append((lon0, lat, lon1, lat, "local"))
            else:
                lon = lon0 + f * (lon1 - lon0)
                segs.append((lon, lat0, lon, lat1, "local"))
        return tuple(segs)

    # map features ----------------------------------------------------------------------
    def _features(self, cell: Cell) -> Objects:
        lon0, lat0, lon1, lat1 = grid.cell_bounds(cell)
        region = feature_region((lon0 + lon1) / 2, (lat0 + lat1) / 2)
        if region is None:
            return Objects.empty()
        u = self.cell_urbanity(cell)
        r = rng(self.seed, "features", cell)
        per_km2 = self.density * (12.0 + 190.0 * u)
        n = _poisson(r, per_km2 * grid.cell_area_km2(cell))
        if n == 0:
            return Objects.empty()
        g = np.random.default_rng(r.getrandbits(64))
        streets = self.streets(cell)
        seg_arr = np.array([s[:4] for s in streets])
        lengths = np.array([segment_length_m(s) for s in streets])
        seg_idx = g.choice(len(streets), size=n, p=lengths / lengths.sum())
        cls_idx = g.choice(len(FEATURE_CLASSES), size=n, p=_CLASS_P)
        is_lane = cls_idx == _LANE_IDX
        t = g.random(n)
        s = seg_arr[seg_idx]
        lon = s[:, 0] + t * (s[:, 2] - s[:, 0])
        lat = s[:, 1] + t * (s[:, 3] - s[:, 1])
        mlon = grid.metres_per_deg_lon((lat0 + lat1) / 2)
        road = np.degrees(
            np.arctan2((s[:, 2] - s[:, 0]) * mlon, (s[:, 3] - s[:, 1]) * grid.M_PER_DEG_LAT)
        ) % 360.0
        side = np.where(g.random(n) < 0.5, 1.0, -1.0)
        offset = np.where(is_lane, g.uniform(0.0, 1.8, n), g.uniform(5.0, 9.0, n))
        # Offset to the right of the travel direction for side=1.
        perp = np.radians(road + 90.0 * side)
        lat = np.round(lat + offset * np.cos(perp) / grid.M_PER_DEG_LAT, 7)
        lon = np.round(lon + offset * np.sin(perp) / mlon, 7)
        # A sign faces the traffic that drives past it on its side of the road.
        azimuth = np.round(np.where(is_lane, road, road + 90.0 + 90.0 * side) % 360.0, 1)
        first = FIRST_SEEN_FROM.timestamp() + g.uniform(0, 700 * 86400, n)
        last = first + g.uniform(0, 300 * 86400, n)
        first_s, last_s = iso_array(first), iso_array(last)
        conf = np.round(g.uniform(0.5, 0.99, n), 3).tolist()
        n_det = g.integers(1, 61, n).tolist()
        status = np.where(g.random(n) < 0.95, "active", "inactive").tolist()
        lon_l, lat_l, az_l = lon.tolist(), lat.tolist(), azimuth.tolist()
        items, paths = [], []
        for k in range(n):
            cls = FEATURE_CLASSES[cls_idx[k]][0]
            kind = streets[seg_idx[k]][4]
            bbox = _bbox(cls, r)
            fid = hash_hex(24, self.seed, "feature", cell.j, cell.i, k)
            items.append({
                "id": fid,
                "class": cls,
                "status": status[k],
                "position": {"lat": lat_l[k], "lon": lon_l[k], "azimuth": az_l[k]},
                "properties": _properties(cls, region, kind, u, r),
                "confidence": conf[k],
                "observed": {"firstSeen": first_s[k], "lastSeen": last_s[k]},
                "n_detections": n_det[k],
                "image": {"bbox": bbox},
            })
            b = bbox
            paths.append(f"/files/feature/{cls}/{b['x']}_{b['y']}_{b['w']}_{b['h']}/{fid}.jpg")
        return Objects(lon, lat, items, paths, np.zeros(n))

    # imagery ------------------------------------------------------------------------
    def _sequence_plan(self, cell: Cell, monday: dt.date) -> tuple[int, Any]:
        u = self.cell_urbanity(cell)
        r = rng(self.seed, "frames", cell, monday.toordinal())
        lam = self.density * (0.25 + 4.0 * u)
        return _poisson(r, lam), r

    def _frame_count(self, cell: Cell, monday: dt.date) -> int:
        return self._sequence_plan(cell, monday)[0]

    def _frames(self, cell: Cell, monday: dt.date) -> Objects:
        n_seq, r = self._sequence_plan(cell, monday)
        if n_seq == 0:
            return Objects.empty()
        streets = self.streets(cell)
        week_start = dt.datetime.combine(monday, dt.time(), UTC).timestamp()
        lons, lats, times, items, paths = [], [], [], [], []
        for s in range(n_seq):
            seg = streets[r.randrange(len(streets))]
            if r.random() < 0.5:
                seg = (seg[2], seg[3], seg[0], seg[1], seg[4])
            seq_id = hash_hex(32, self.seed, "seq", cell.j, cell.i, monday.toordinal(), s)
            seq_id = f"{seq_id[:8]}-{seq_id[8:12]}-{seq_id[12:16]}-{seq_id[16:20]}-{seq_id[20:]}"
            start = week_start + r.uniform(6 * 3600, 7 * 86400 - 3 * 3600)
            device = r.choice(DEVICES)
            recs = sequence_frames(seq_id, seg, start, device, r)
            for rec, t, path in recs:
                lons.append(rec["position"]["lon"])
                lats.append(rec["position"]["lat"])
                times.append(t)
                items.append(rec)
                paths.append(path)
        return Objects(np.array(lons), np.array(lats), items, paths, np.array(times))

    def latest_week(self, cell: Cell, now_monday: dt.date, min_monday: dt.date | None):
        """Return the most recent Monday (not after now) with frames in the cell, or None."""
        for w in range(LATEST_LOOKBACK_WEEKS):
            monday = now_monday - dt.timedelta(weeks=w)
            if min_monday is not None and monday < min_monday:
                return None
            if self.frame_count(cell, monday) > 0:
                return monday
        return None


def sequence_frames(seq_id: str, seg: Segment, start: float, device: str, r) -> list:
    """Return (frame record, epoch seconds, file path) along a segment, starting at start."""
    lon1, lat1, lon2, lat2, _ = seg
    length = segment_length_m(seg)
    g = np.random.default_rng(r.getrandbits(64))
    speed = g.uniform(30.0, 60.0) / 3.6
    head = round(bearing(lon1, lat1, lon2, lat2), 1)
    offset0 = g.uniform(0, FRAME_SPACING_M)
    n = max(1, int((length - offset0) // FRAME_SPACING_M) + 1)
    d = offset0 + np.arange(n) * FRAME_SPACING_M
    f = np.minimum(d / length, 1.0) if length > 0 else np.zeros(n)
    lon = np.round(lon1 + f * (lon2 - lon1), 7)
    lat = np.round(lat1 + f * (lat2 - lat1), 7)
    t = start + d / speed
    hdop = np.round(g.uniform(0.6, 1.6, n), 2)
    eph = np.round(hdop * g.uniform(1.5, 3.0, n), 2)
    err = eph / grid.M_PER_DEG_LAT
    cols = {
        "lat": lat,
        "lon": lon,
        "lat_ref": np.round(lat + g.uniform(-1, 1, n) * err, 7),
        "lon_ref": np.round(lon + g.uniform(-1, 1, n) * err, 7),
        "gdop": np.round(hdop * g.uniform(1.4, 2.0, n), 2),
        "hdop": hdop,
        "pdop": np.round(hdop * g.uniform(1.1, 1.5, n), 2),
        "eph": eph,
    }
    imu = {
        "acc_x": np.round(g.normal(0, 0.3, n), 3),
        "acc_y": np.round(g.normal(0, 0.3, n), 3),
        "acc_z": np.round(9.81 + g.normal(0, 0.1, n), 3),
        "gyro_x": np.round(g.normal(0, 0.01, n), 4),
        "gyro_y": np.round(g.normal(0, 0.01, n), 4),
        "gyro_z": np.round(g.normal(0, 0.02, n), 4),
    }
    cols_l = {k: v.tolist() for k, v in cols.items()}
    imu_l = {k: v.tolist() for k, v in imu.items()}
    stamps = iso_array(t)
    out = []
    for idx in range(n):
        pos = {k: v[idx] for k, v in cols_l.items()}
        pos["heading"] = head
        rec = {
            "timestamp": stamps[idx],
            "sequence": seq_id,
            "idx": idx,
            "device": device,
            "position": pos,
            "width": FRAME_W,
            "height": FRAME_H,
            "imu": {k: v[idx] for k, v in imu_l.items()},
        }
        out.append((rec, float(t[idx]), f"/files/frame/{seq_id}/{idx}.jpg"))
    return out


def iso_array(epoch_s: np.ndarray) -> list[str]:
    """Format epoch seconds as ISO 8601 UTC strings with milliseconds and Z."""
    ms = np.round(np.asarray(epoch_s) * 1000).astype("datetime64[ms]")
    return [s + "Z" for s in np.datetime_as_string(ms, unit="ms").tolist()]


def _bbox(cls: str, r) -> dict[str, int]:
    if cls == "lane-line":
        w, h = r.randint(200, 420), r.randint(40, 90)
        x, y = r.randint(10, FRAME_W - w - 10), r.randint(FRAME_H // 2, FRAME_H - h - 5)
        return {"x": x, "y": y, "w": w, "h": h}
    w = r.randint(28, 100)
    h = int(w * (2.4 if cls == "traffic-light" else r.uniform(0.9, 1.3)))
    x, y = r.randint(10, FRAME_W - w - 10), r.randint(15, FRAME_H // 2 - h // 2)
    return {"x": x, "y": y, "w": w, "h": h}


def _poisson(r, lam: float) -> int:
    if lam <= 0:
        return 0
    if lam > 30:
        return max(0, int(round(r.gauss(lam, math.sqrt(lam)))))
    limit, k, p = math.exp(-lam), 0, r.random()
    while p > limit:
        k += 1
        p *= r.random()
    return k


def _properties(cls: str, region: str, kind: str, u: float, r) -> dict[str, Any]:
    if cls == "speed-sign":
        if region == "EU":
            choices = [30, 50] if u > 0.5 and kind == "local" else [50, 70, 100]
            return {"speedLimit": r.choice(choices), "unit": "km/h"}
        choices = [20, 25, 30] if u > 0.5 and kind == "local" else [35, 45, 55]
        return {"speedLimit": r.choice(choices), "unit": "mph"}
    if cls == "stop-sign":
        return {"text": "STOP"}
    if cls == "parking-restriction-sign":
        kind_p = r.choice(["no-parking", "no-stopping", "time-limited"])
        props: dict[str, Any] = {"restriction": kind_p}
        if kind_p == "time-limited":
            props["maxDurationMin"] = r.choice([30, 60, 120])
        return props
    if cls == "turn-restriction-sign":
        direction = r.choice(["left", "right", "u-turn", "straight"])
        return {"direction": direction, "type": f"no-{direction}-turn"}
    if cls == "highway-sign":
        num = r.randint(1, 999)
        route = {"US": f"I-{num}", "UK": f"M{num % 99 + 1}", "EU": f"A{num}"}[region]
        return {"text": f"{route} {r.choice(['North', 'South', 'East', 'West'])}", "route": route}
    if cls == "fire-hydrant":
        return {"color": r.choice(["red", "yellow", "silver"])}
    if cls == "traffic-light":
        return {"heads": r.choice([1, 2, 3])}
    lanes = r.randint(1, 4) if kind == "arterial" else r.randint(1, 2)
    lane_w = round(r.uniform(2.9, 3.6), 2)
    return {
        "laneCount": lanes,
        "laneWidth": lane_w,
        "width": round(lanes * lane_w, 2),
        "lineType": r.choice(["solid", "dashed"]),
    }
