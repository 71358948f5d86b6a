"""AI events (driving events with video) that happen along the fleet's trips.

An event id encodes where it comes from (day, device, trip, event number) plus a check
value, so GET /aievents/{id} needs no index and survives restarts.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from typing import Any

from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry

from emulator.errors import ApiError
from emulator.fleet import Fleet, Trip, parse_date
from emulator.geometry import parse_geometry
from emulator.util import hash_hex, iso_ms, rng

TYPES = (
    "HARSH_BRAKING", "AGGRESSIVE_ACCELERATION", "SWERVING", "HIGH_SPEED",
    "HIGH_G_FORCE", "STOP_SIGN_VIOLATION", "TRAFFIC_LIGHT_VIOLATION", "TAILGATING",
)
MAX_RANGE_DAYS = 31
MAX_LIMIT = 500
EVENTS_PER_TRIP = 0.8


def _check(seed: int, prefix: str) -> str:
    return hash_hex(14, seed, "aievent", prefix)


def event_id(seed: int, tr: Trip, n: int) -> str:
    """Return the 24-hex id of event n of a trip."""
    prefix = f"{tr.day.toordinal():05x}{tr.device:02x}{tr.index:02x}{n:01x}"
    return prefix + _check(seed, prefix)


def _along(tr: Trip, f: float) -> tuple[float, float]:
    """Point (lat, lon) at a fraction f of the trip's length (planar per leg)."""
    pts = tr.points
    legs = [math.dist(a, b) for a, b in zip(pts, pts[1:])]
    total = sum(legs) or 1.0
    target = f * total
    for (a, b), leg in zip(zip(pts, pts[1:]), legs):
        if target <= leg and leg > 0:
            g = target / leg
            return a[0] + g * (b[0] - a[0]), a[1] + g * (b[1] - a[1])
        target -= leg
    return pts[-1]


class AiEvents:
    """Generator and search of the AI events of a fleet."""

    def __init__(self, fleet: Fleet):
        self.fleet = fleet
        self.seed = fleet.seed
        self.trip_events = functools.lru_cache(maxsize=8192)(self._trip_events)

    def _trip_events(self, tr: Trip) -> list[dict[str, Any]]:
        # Events of one trip (without signed URLs), ordered by time; callers must not mutate.
        r = rng(self.seed, "aievents", tr.device, tr.day.toordinal(), tr.index)
        n = 0
        while r.random() < EVENTS_PER_TRIP / (1 + EVENTS_PER_TRIP) and n < 15:
            n += 1
        fracs = sorted(r.uniform(0.05, 0.95) for _ in range(n))
        return [self._event(tr, k, f, r) for k, f in enumerate(fracs)]

    def _event(self, tr: Trip, k: int, f: float, r) -> dict[str, Any]:
        etype = r.choice(TYPES)
        t = tr.start + f * (tr.end - tr.start)
        lat, lon = _along(tr, f)
        speed = tr.distance_km * 1000 / max(tr.end - tr.start, 1.0)
        base = speed * r.uniform(0.8, 1.3)
        accel = {
            "HARSH_BRAKING": -r.uniform(3.5, 7.0),
            "AGGRESSIVE_ACCELERATION": r.uniform(3.0, 5.5),
        }.get(etype, r.uniform(-1.5, 1.5))
        ramps = etype in ("HARSH_BRAKING", "AGGRESSIVE_ACCELERATION")
        speeds = []
        for s in range(-5, 5):
            v = base + accel * max(0, s) if ramps else base + r.gauss(0, 0.5)
            speeds.append({"AVG_SPEED_MS": round(max(0.0, v), 2), "TIMESTAMP": int((t + s) * 1000)})
        meta: dict[str, Any] = {"SPEED_ARRAY": speeds, "ACCELERATION_MS2": round(accel, 2)}
        if etype == "HIGH_SPEED":
            meta["SPEED_LIMIT_MS"] = round(base / r.uniform(1.2, 1.5), 2)
        if etype in ("HIGH_G_FORCE", "SWERVING"):
            meta["G_FORCE"] = round(r.uniform(0.4, 0.9), 2)
        if etype == "TAILGATING":
            meta["DISTANCE_TO_LEAD_M"] = round(r.uniform(2.0, 8.0), 1)
        eid = event_id(self.seed, tr, k)
        return {
            "id": eid,
            "type": etype,
            "timestamp": iso_ms(t),
            "location": {"lat": round(lat, 6), "lon": round(lon, 6)},
            "metadata": meta,
            "_t": t,
            "_f": f,
        }

    def search(self, body: Any, now: float) -> tuple[list[dict[str, Any]], int, int, int]:
        """Validate a search body; return (page of events, total, limit, offset)."""
        if not isinstance(body, dict):
            raise ApiError(400, "Request body must be a JSON object")
        start = parse_date(body.get("startDate"), "startDate")
        end = parse_date(body.get("endDate"), "endDate")
        if end < start:
            raise ApiError(400, "endDate must not be before startDate")
        if end - start > dt.timedelta(days=MAX_RANGE_DAYS):
            raise ApiError(400, f"Date range too long: the maximum is {MAX_RANGE_DAYS} days")
        types = body.get("types")
        if types is not None:
            if not isinstance(types, list) or any(t not in TYPES for t in types):
                raise ApiError(400, f"types must be a list out of {', '.join(TYPES)}")
            types = set(types)
        area = _polygon(body.get("polygon")) if body.get("polygon") is not None else None
        limit = _int(body.get("limit", 100), "limit")
        offset = _int(body.get("offset", 0), "offset")
        if limit < 1 or limit > MAX_LIMIT:
            raise ApiError(400, f"limit must be within 1..{MAX_LIMIT}")
        if offset < 0:
            raise ApiError(400, "offset must not be negative")
        found = []
        t0, t1 = start.timestamp(), min(end.timestamp(), now)
        for k in range(len(self.fleet.devices)):
            for tr in self.fleet.trips_in(k, t0 - 86400, t1, now):
                for ev in self.trip_events(tr):
                    if not t0 <= ev["_t"] <= t1:
                        continue
                    if types is not None and ev["type"] not in types:
                        continue
                    loc = ev["location"]
                    if area is not None and not area.intersects(Point(loc["lon"], loc["lat"])):
                        continue
                    found.append(ev)
        found.sort(key=lambda e: (e["_t"], e["id"]))
        return found[offset:offset + limit], len(found), limit, offset

    def lookup(self, eid: str, now: float) -> tuple[dict[str, Any], Trip]:
        """Find an event by id or raise a 404."""
        try:
            if len(eid) != 24:
                raise ValueError
            day = dt.date.fromordinal(int(eid[:5], 16))
            dev, trip_idx, n = int(eid[5:7], 16), int(eid[7:9], 16), int(eid[9], 16)
        except ValueError:
            raise ApiError(404, f"AI event not found: {eid}") from None
        if eid[10:] != _check(self.seed, eid[:10]) or dev >= len(self.fleet.devices):
            raise ApiError(404, f"AI event not found: {eid}")
        trips = self.fleet.day_trips(dev, day)
        if trip_idx >= len(trips) or trips[trip_idx].end > now:
            raise ApiError(404, f"AI event not found: {eid}")
        events = self.trip_events(trips[trip_idx])
        if n >= len(events):
            raise ApiError(404, f"AI event not found: {eid}")
        return events[n], trips[trip_idx]

    def gnss(self, ev: dict[str, Any], tr: Trip) -> list[dict[str, Any]]:
        """1 Hz GNSS track for 10 s either side of the event."""
        out = []
        dur = max(tr.end - tr.start, 1.0)
        r = rng(self.seed, "gnss", ev["id"])
        for s in range(-10, 11):
            f = min(max(ev["_f"] + s / dur, 0.0), 1.0)
            lat, lon = _along(tr, f)
            out.append({"lat": round(lat, 7), "lon": round(lon, 7),
                        "alt": round(35.0 + r.gauss(0, 0.4), 2),
                        "timestamp": int((ev["_t"] + s) * 1000)})
        return out

    def imu(self, ev: dict[str, Any]) -> list[dict[str, Any]]:
        """10 Hz IMU track for 5 s either side of the event."""
        r = rng(self.seed, "imu", ev["id"])
        a = ev["metadata"]["ACCELERATION_MS2"]
        swerve = ev["type"] in ("SWERVING", "HIGH_G_FORCE")
        out = []
        for s in range(-50, 51):
            near = math.exp(-((s / 10.0) ** 2))
            out.append({
                "timestamp": int(ev["_t"] * 1000) + s * 100,
                "acc_x": round(a * near + r.gauss(0, 0.2), 3),
                "acc_y": round((4.0 * near if swerve else 0.0) + r.gauss(0, 0.2), 3),
                "acc_z": round(9.81 + r.gauss(0, 0.1), 3),
                "gyro_x": round(r.gauss(0, 0.01), 4),
                "gyro_y": round(r.gauss(0, 0.01), 4),
                "gyro_z": round((0.3 * near if swerve else 0.0) + r.gauss(0, 0.02), 4),
            })
        return out


def public(ev: dict[str, Any]) -> dict[str, Any]:
    """Drop private helper keys from an event record."""
    return {k: v for k, v in ev.items() if not k.startswith("_")}


def _polygon(value: Any) -> BaseGeometry:
    if isinstance(value, dict):
        return parse_geometry(value, ("Polygon", "MultiPolygon"))
    try:
        ring = [(float(p[0]), float(p[1])) for p in value]
        poly = Polygon(ring)
    except (TypeError, ValueError, IndexError):
        raise ApiError(400, "polygon must be a list of [lon, lat] pairs") from None
    if len(ring) < 3 or not poly.is_valid or poly.area == 0:
        raise ApiError(400, "polygon must be a valid ring of at least 3 [lon, lat] pairs")
    return poly


def _int(value: Any, name: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ApiError(400, f"{name} must be an integer") from None

