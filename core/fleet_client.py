"""Client of the fleet API: devices, latest location, trips and weekly rewards."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any, Dict, List, Optional, Union

from .cancel import CancelToken
from .errors import InvalidResponseError, ValidationError
from .http import HttpTransport
from .models import Device, Location, RewardsResult, Trip, TripsResult
from .profile import ConnectionProfile
from .timeutil import iso_z, to_utc
from .weeks import snap_to_monday

DateInput = Union[date, datetime, str]


class FleetClient:
    """Reads the fleet API with Bearer auth over a shared retrying transport."""

    def __init__(self, profile: ConnectionProfile, cancel: Optional[CancelToken] = None,
                 http: Optional[HttpTransport] = None) -> None:
        if not profile.fleet_url:
            raise ValidationError("No fleet API URL is configured")
        self.profile = profile
        self.cancel = cancel or (http.cancel if http is not None else CancelToken())
        self._owns_http = http is None
        self.http = http or HttpTransport(profile, self.cancel)

    def close(self) -> None:
        """Release the connection pool if this client created it."""
        if self._owns_http:
            self.http.close()

    def __enter__(self) -> FleetClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _get(self, path: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        if not self.profile.fleet_key:
            raise ValidationError("No fleet API key is configured")
        body = self.http.request_json(
            "GET", self.profile.fleet_url + path, params=params,
            headers={"Authorization": f"Bearer {self.profile.fleet_key}"}, cancel=self.cancel)
        if not isinstance(body, dict):
            raise InvalidResponseError(f"The fleet API answered {path} with an unexpected body",
                                       request=f"GET {self.profile.fleet_url}{path}")
        return body

    def devices(self) -> List[Device]:
        """Every device of the fleet."""
        body = self._get("/v1/devices")
        items = body.get("devices")
        if not isinstance(items, list):
            raise InvalidResponseError("The fleet API's device list has no 'devices' array",
                                       request=f"GET {self.profile.fleet_url}/v1/devices")
        return [Device.from_json(d) for d in items]

    def location(self, device_id: str) -> Location:
        """Latest known location of one device."""
        _require(device_id, "deviceId")
        return Location.from_json(self._get("/v1/location", {"deviceId": device_id}))

    def trips(self, device_id: str, start: DateInput, end: DateInput) -> TripsResult:
        """Trips of a device in [start, end]; long ranges are split into windows and merged."""
        _require(device_id, "deviceId")
        _require(start, "startDate")
        _require(end, "endDate")
        try:
            start_dt = to_utc(start)
            end_dt = to_utc(end, end_of_day=True)
        except ValueError as exc:
            raise ValidationError(f"Invalid trip date range: {exc}") from None
        if end_dt < start_dt:
            raise ValidationError("The end of the trip range is before its start")
        window = timedelta(days=max(1, self.profile.max_trip_days))
        merged: Dict[str, Trip] = {}
        unnamed: List[Trip] = []
        total = 0.0
        any_total = False
        device = None
        cursor = start_dt
        while cursor < end_dt or cursor == start_dt:
            stop = min(end_dt, cursor + window)
            body = self._get("/v1/trips", {"deviceId": device_id, "startDate": iso_z(cursor),
                                           "endDate": iso_z(stop)})
            part = TripsResult.from_json(body)
            device = device or part.device
            for trip in part.trips:
                if trip.id is None:
                    unnamed.append(trip)
                elif trip.id not in merged:
                    merged[trip.id] = trip
            if part.total_distance_km is not None:
                total += part.total_distance_km
                any_total = True
            if stop >= end_dt:
                break
            cursor = stop
        trips = list(merged.values()) + unnamed
        if not any_total:
            total = sum(t.distance_km or 0.0 for t in trips)
        elif len(trips) and _windows(start_dt, end_dt, window) > 1:
            # Window totals double count trips that straddle a boundary; sum the unique ones.
            total = sum(t.distance_km or 0.0 for t in trips)
        return TripsResult(device=device, start_date=start_dt, end_date=end_dt,
                           total_distance_km=total, trips=trips,
                           raw={"startDate": iso_z(start_dt), "endDate": iso_z(end_dt)})

    def network_rewards(self, period: DateInput, snap: bool = False) -> RewardsResult:
        """Rewards of all devices for the week starting on `period` (a Monday)."""
        _require(period, "rewardPeriod")
        if isinstance(period, str):
            try:
                period = date.fromisoformat(period.strip()[:10])
            except ValueError:
                raise ValidationError(f"rewardPeriod must be a date, got {period!r}") from None
        if isinstance(period, datetime):
            period = period.date()
        monday, note = snap_to_monday(period)
        if note and not snap:
            raise ValidationError(f"rewardPeriod must be a Monday: {note}")
        result = RewardsResult.from_json(
            self._get("/v1/networkRewards", {"rewardPeriod": monday.isoformat()}))
        result.note = note
        return result


def _require(value: Any, name: str) -> None:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ValidationError(f"{name} is required")


def _windows(start: datetime, end: datetime, window: timedelta) -> int:
    span = end - start
    return max(1, -(-span // window))
