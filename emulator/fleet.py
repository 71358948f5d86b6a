"""The fleet: devices, their daily trips along the arterial streets, location and rewards."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from typing import Any

from emulator import grid
from emulator.errors import ApiError
from emulator.geometry import GEOD
from emulator.polyline_codec import encode
from emulator.util import UTC, hash_hex, hash_int, iso_ms, parse_iso, rng

MODELS = ("Bee", "HDC-S", "HDC")
VEHICLES = ("Delivery van", "Service car", "Taxi", "Box truck", "Pool car", "Pickup")
TOKEN_PER_KM = 0.05
LOCATION_LOOKBACK_DAYS = 30


@dataclasses.dataclass(frozen=True)
class Trip:
    """One trip: start/end instants (epoch s), the route points (lat, lon) and length."""

    device: int
    day: dt.date
    index: int
    start: float
    end: float
    points: tuple[tuple[float, float], ...]
    distance_km: float

    @property
    def id(self) -> str:
        """Stable trip id."""
        h = hash_hex(32, "trip", self.device, self.day.toordinal(), self.index)
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class Fleet:
    """Deterministic fleet around a home point; trips depend only on (seed, device, day)."""

    def __init__(self, seed: int, n_devices: int, home_lon: float, home_lat: float):
        self.seed = seed
        self.home_cell = grid.cell_of(home_lon, home_lat)
        self.devices = [self._device(k) for k in range(max(1, n_devices))]
        self.day_trips = functools.lru_cache(maxsize=4096)(self._day_trips)

    def _device(self, k: int) -> dict[str, Any]:
        r = rng(self.seed, "device", k)
        h = hash_hex(32, self.seed, "device-id", k)
        model = MODELS[k % len(MODELS)]
        letters = "".join(r.choice("ABCDEFGHJKLMNPRSTUVWXZ") for _ in range(2))
        return {
            "id": f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}",
            "serialNumber": f"{model.replace('-', '')}-{hash_hex(10, self.seed, 'sn', k).upper()}",
            "name": f"Vehicle {k + 1:02d}",
            "description": r.choice(VEHICLES),
            "deviceModel": model,
            "firmwareVersion": f"{r.randint(4, 6)}.{r.randint(0, 9)}.{r.randint(0, 30)}",
            "vehiclePlate": f"B-{letters} {r.randint(100, 9999)}",
            "imei": "35" + "".join(str(r.randint(0, 9)) for _ in range(13)),
        }

    def device_index(self, device_id: str) -> int:
        """Return the index of a device id or raise a 404."""
        for k, d in enumerate(self.devices):
            if d["id"] == device_id:
                return k
        raise ApiError(404, f"Device not found: {device_id}")

    def ref(self, k: int) -> dict[str, str]:
        """Device reference embedded in location and trips results."""
        return {"id": self.devices[k]["id"], "name": self.devices[k]["name"]}

    # routes ------------------------------------------------------------------------
    def _node(self, i: int, j: int) -> tuple[float, float]:
        band = self.home_cell.band
        return (
            round(grid.arterial_lat(self.seed, j), 5),
            round(grid.arterial_lon(self.seed, band, i), 5),
        )

    def _clamp_row(self, j: int) -> int:
        lo = self.home_cell.band * grid.ROWS_PER_BAND
        return min(max(j, lo), lo + grid.ROWS_PER_BAND - 1)

    def _home_node(self, k: int) -> tuple[int, int]:
        r = rng(self.seed, "home", k)
        return (
            self.home_cell.i + r.randint(-3, 3),
            self._clamp_row(self.home_cell.j + r.randint(-3, 3)),
        )

    def _route(self, a: tuple[int, int], b: tuple[int, int]) -> list[tuple[float, float]]:
        (i1, j1), (i2, j2) = a, b
        pts = [self._node(i1, j1)]
        step = 1 if i2 >= i1 else -1
        pts += [self._node(i, j1) for i in range(i1 + step, i2 + step, step)] if i1 != i2 else []
        step = 1 if j2 >= j1 else -1
        pts += [self._node(i2, j) for j in range(j1 + step, j2 + step, step)] if j1 != j2 else []
        return pts

    def _day_trips(self, k: int, day: dt.date) -> tuple[Trip, ...]:
        r = rng(self.seed, "day", k, day.toordinal())
        weekend = day.weekday() >= 5
        n = r.randint(1, 3) if weekend else r.randint(2, 6)
        home = self._home_node(k)
        t = dt.datetime.combine(day, dt.time(), UTC).timestamp() + r.uniform(6, 9) * 3600
        day_end = dt.datetime.combine(day, dt.time(), UTC).timestamp() + 22 * 3600
        here, trips = home, []
        for idx in range(n):
            if idx == n - 1 and here != home:
                there = home
            else:
                there = (
                    home[0] + r.randint(-8, 8),
                    self._clamp_row(home[1] + r.randint(-8, 8)),
                )
                if there == here:
                    there = (there[0] + 1, there[1])
            pts = self._route(here, there)
            lats = [p[0] for p in pts]
            lons = [p[1] for p in pts]
            km = GEOD.line_length(lons, lats) / 1000.0
            speed_kmh = r.uniform(24.0, 42.0)
            end = t + km / speed_kmh * 3600.0
            if end > day_end:
                break
            trips.append(Trip(k, day, idx, t, end, tuple(pts), round(km, 3)))
            here = there
            t = end + r.uniform(15, 150) * 60
        return tuple(trips)

    # queries -----------------------------------------------------------------------
    def trips_in(self, k: int, start: float, end: float, now: float) -> list[Trip]:
        """Trips of device k starting within [start, end] and finished by now."""
        d0 = dt.datetime.fromtimestamp(start, UTC).date()
        d1 = dt.datetime.fromtimestamp(min(end, now), UTC).date()
        out = []
        day = d0
        while day <= d1:
            out += [
                tr for tr in self.day_trips(k, day)
                if start <= tr.start <= end and tr.end <= now
            ]
            day += dt.timedelta(days=1)
        return out

    def _neighbour(self, tr: Trip, direction: int) -> Trip | None:
        trips = self.day_trips(tr.device, tr.day)
        idx = tr.index + direction
        if 0 <= idx < len(trips):
            return trips[idx]
        day = tr.day
        for _ in range(14):
            day += dt.timedelta(days=direction)
            others = self.day_trips(tr.device, day)
            if others:
                return others[-1] if direction < 0 else others[0]
        return None

    def trip_json(self, tr: Trip, now: float | None = None) -> dict[str, Any]:
        """Trip record as the fleet API returns it; no stop ends after `now`."""
        prev, nxt = self._neighbour(tr, -1), self._neighbour(tr, 1)
        began = prev.end if prev else tr.start - 12 * 3600
        ended = nxt.start if nxt else tr.end + 12 * 3600
        if now is not None:
            # A device still parked at `now` has a stop that ends, so far, at `now`.
            ended = min(ended, max(now, tr.end))
        (lat1, lon1), (lat2, lon2) = tr.points[0], tr.points[-1]
        return {
            "id": tr.id,
            "firstStop": {
                "lat": lat1, "lon": lon1,
                "stopBeganAt": iso_ms(began), "stopEndedAt": iso_ms(tr.start),
            },
            "secondStop": {
                "lat": lat2, "lon": lon2,
                "stopBeganAt": iso_ms(tr.end), "stopEndedAt": iso_ms(ended),
            },
            "distanceKm": tr.distance_km,
            "durationMs": int(round((tr.end - tr.start) * 1000)),
            "polyline": encode(tr.points),
        }

    def trips_result(self, device_id, start_text, end_text, max_days, now) -> dict[str, Any]:
        """The /v1/trips result, validating the range."""
        k = self.device_index(device_id)
        start, end = parse_date(start_text, "startDate"), parse_date(end_text, "endDate")
        if end < start:
            raise ApiError(400, "endDate must not be before startDate")
        if end - start > dt.timedelta(days=max_days):
            raise ApiError(400, f"Date range too long: the maximum is {max_days} days")
        trips = self.trips_in(k, start.timestamp(), end.timestamp(), now)
        return {
            "device": self.ref(k),
            "startDate": iso_ms(start),
            "endDate": iso_ms(end),
            "totalDistanceKm": round(sum(t.distance_km for t in trips), 3),
            "trips": [self.trip_json(t, now) for t in trips],
        }

    def location(self, device_id: str, now: float) -> dict[str, Any]:
        """Latest known location: the end of the last trip finished before now."""
        k = self.device_index(device_id)
        day = dt.datetime.fromtimestamp(now, UTC).date()
        for _ in range(LOCATION_LOOKBACK_DAYS):
            done = [t for t in self.day_trips(k, day) if t.end <= now]
            if done:
                lat, lon = done[-1].points[-1]
                return {"device": self.ref(k), "lat": lat, "lon": lon, "speedKmH": 0.0,
                        "timestamp": iso_ms(done[-1].end)}
            day -= dt.timedelta(days=1)
        lat, lon = self._node(*self._home_node(k))
        return {"device": self.ref(k), "lat": lat, "lon": lon, "speedKmH": 0.0,
                "timestamp": iso_ms(now - LOCATION_LOOKBACK_DAYS * 86400)}

    def rewards(self, period: str, now: float) -> dict[str, Any]:
        """Rewards of every device for the calendar week starting on the Monday period."""
        try:
            monday = dt.date.fromisoformat(period)
        except (TypeError, ValueError):
            raise ApiError(400, "rewardPeriod must be a date YYYY-MM-DD") from None
        if monday.weekday() != 0:
            raise ApiError(400, f"rewardPeriod must be a Monday; {period} is not")
        start = dt.datetime.combine(monday, dt.time(), UTC).timestamp()
        end = start + 7 * 86400 - 0.001
        out = []
        for k, d in enumerate(self.devices):
            km = round(sum(t.distance_km for t in self.trips_in(k, start, end, now)), 3)
            rating = 1 + hash_int(self.seed, "rating", k, monday.toordinal()) % 5
            out.append({
                "deviceId": d["id"],
                "deviceName": d["name"],
                "rewardAmountToken": round(km * TOKEN_PER_KM, 6),
                "rewardedTotalKms": km,
                "rewardMountRating": rating,
            })
        return {
            "periodStart": monday.isoformat(),
            "periodEnd": (monday + dt.timedelta(days=6)).isoformat(),
            "devicesWithRewards": out,
        }


def parse_date(text: Any, name: str) -> dt.datetime:
    """Parse a required ISO 8601 query value or raise a 400 naming the parameter."""
    if text is None or text == "":
        raise ApiError(400, f"Missing required parameter: {name}")
    try:
        return parse_iso(text)
    except ValueError:
        raise ApiError(400, f"Invalid ISO 8601 date for {name}: {text}") from None
