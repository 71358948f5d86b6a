"""Fleet group: devices, latest locations, trips and weekly rewards."""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Optional

from qgis.core import (
    QgsFeature,
    QgsGeometry,
    QgsPoint,
    QgsProcessingException,
    QgsProcessingParameterDateTime,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterString,
)

from ...core.errors import AuthError, FetchCancelled, FleetStreetError, NotFoundError
from ...core.weeks import snap_to_monday, weeks_between
from ..compat import (
    DATETIME_DATE,
    TYPE_VECTOR,
    TYPE_VECTOR_LINE,
    TYPE_VECTOR_POINT,
    WKB_LINESTRING,
    WKB_POINT,
)
from ..fields import make_fields, qdate, qdatetime, write_features
from .base import FleetStreetAlgorithm, stop_requested

DEVICE_SPEC = [
    ("id", "string"), ("serial_number", "string"), ("name", "string"),
    ("description", "string"), ("device_model", "string"), ("firmware_version", "string"),
    ("vehicle_plate", "string"), ("imei", "string"),
]
LOCATION_SPEC = [
    ("device_id", "string"), ("device_name", "string"), ("speed_kmh", "double"),
    ("timestamp", "datetime"), ("lat", "double"), ("lon", "double"),
]
TRIP_SPEC = [
    ("trip_id", "string"), ("device_id", "string"), ("device_name", "string"),
    ("distance_km", "double"), ("duration_ms", "long"), ("duration_min", "double"),
    ("avg_speed_kmh", "double"),
    ("start_time", "datetime"), ("end_time", "datetime"),
    ("start_lat", "double"), ("start_lon", "double"),
    ("start_stop_began", "datetime"), ("start_stop_ended", "datetime"),
    ("end_lat", "double"), ("end_lon", "double"),
    ("end_stop_began", "datetime"), ("end_stop_ended", "datetime"),
    ("n_points", "int"),
]
STOP_SPEC = [
    ("device_id", "string"), ("device_name", "string"), ("trip_id", "string"),
    ("role", "string"), ("began_at", "datetime"), ("ended_at", "datetime"),
    ("duration_min", "double"), ("lat", "double"), ("lon", "double"),
]
REWARD_SPEC = [
    ("week", "date"), ("period_start", "date"), ("period_end", "date"),
    ("device_id", "string"), ("device_name", "string"),
    ("reward_amount_token", "double"), ("rewarded_total_kms", "double"),
    ("reward_mount_rating", "int"),
]


def parse_ids(text: Optional[str]) -> List[str]:
    """Device ids from a comma, semicolon or whitespace separated string."""
    if not text:
        return []
    out: List[str] = []
    for part in text.replace(";", ",").replace("\n", ",").split(","):
        for token in part.split():
            if token and token not in out:
                out.append(token)
    return out


def py_date(qdate_value):
    """A QDate or QDateTime parameter value as a Python date (None when invalid)."""
    if qdate_value is None:
        return None
    if hasattr(qdate_value, "date") and hasattr(qdate_value, "time"):
        qdate_value = qdate_value.date()
    if not qdate_value.isValid():
        return None
    return qdate_value.toPyDate()


class FleetAlgorithm(FleetStreetAlgorithm):
    """Base of the fleet API algorithms."""

    GROUP = "fleet"
    API = "fleet"

    def add_devices_parameter(self) -> None:
        """DEVICES: optional device ids (all devices when empty)."""
        self.addParameter(QgsProcessingParameterString(
            "DEVICES", "Device ids, comma separated (empty = every device of the fleet)",
            optional=True))

    def device_ids(self, parameters, context, client) -> List[str]:
        """The requested device ids, or every device's id."""
        ids = parse_ids(self.parameterAsString(parameters, "DEVICES", context))
        if ids:
            return ids
        return [d.id for d in client.devices() if d.id]

    def add_date_range(self, start="START_DATE", end="END_DATE", what="date") -> None:
        """Two date parameters."""
        self.addParameter(QgsProcessingParameterDateTime(
            start, f"Start {what}", DATETIME_DATE))
        self.addParameter(QgsProcessingParameterDateTime(
            end, f"End {what} (inclusive)", DATETIME_DATE))

    def date_param(self, parameters, name, context):
        """A date parameter as a Python date; a clear error when missing."""
        value = py_date(self.parameterAsDateTime(parameters, name, context))
        if value is None:
            raise QgsProcessingException(f"{name} must be a date (YYYY-MM-DD).")
        return value


class ListDevices(FleetAlgorithm):
    """Table of every device of the fleet."""

    ALG_ID = "listdevices"
    DISPLAY = "List fleet devices"
    HELP = ("Calls GET /v1/devices of the fleet API (free). Outputs a table with one row per "
            "device: id, serial number, name, description, model, firmware, plate and IMEI.")

    def init_parameters(self):
        """OUTPUT table."""
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Fleet devices", TYPE_VECTOR))

    def work(self, parameters, context, feedback, cancel):
        """Fetch and write the devices."""
        with self.fleet_client(cancel) as client:
            devices = client.devices()
        dest, count = self.write_table(
            parameters, context, feedback, DEVICE_SPEC, "Fleet devices",
            ([d.id, d.serial_number, d.name, d.description, d.device_model,
              d.firmware_version, d.vehicle_plate, d.imei] for d in devices))
        feedback.pushInfo(f"{count} devices.")
        return {"OUTPUT": dest}


class LatestLocations(FleetAlgorithm):
    """Points at the latest known location of each device."""

    ALG_ID = "latestlocations"
    DISPLAY = "Latest device locations"
    HELP = ("Calls GET /v1/location once per device (and GET /v1/devices when no ids are "
            "given). Free. Outputs points (EPSG:4326) with device id and name, speed in km/h "
            "and the time of the fix.")

    def init_parameters(self):
        """DEVICES and OUTPUT points."""
        self.add_devices_parameter()
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Latest locations", TYPE_VECTOR_POINT))

    def work(self, parameters, context, feedback, cancel):
        """Fetch every location in parallel and write them."""
        explicit = bool(parse_ids(self.parameterAsString(parameters, "DEVICES", context)))
        with self.fleet_client(cancel) as client:
            ids = self.device_ids(parameters, context, client)

            def one(device_id):
                try:
                    return client.location(device_id)
                except NotFoundError as exc:
                    if explicit:
                        raise
                    return exc  # reported below, from the algorithm's own thread

            with ThreadPoolExecutor(max(1, self.profile.concurrency)) as pool:
                locations = list(pool.map(one, ids))
        for device_id, loc in zip(ids, locations):
            if isinstance(loc, NotFoundError):
                feedback.pushWarning(f"No location for device {device_id}: {loc.message}")
        fields = make_fields(LOCATION_SPEC)
        sink, dest = self.sink(parameters, context, fields, WKB_POINT,
                               "Latest locations", style="locations")
        rows = []
        for device_id, loc in zip(ids, locations):
            if isinstance(loc, NotFoundError):
                continue
            f = QgsFeature(fields)
            f.setAttributes([loc.device.id or device_id, loc.device.name, loc.speed_kmh,
                             qdatetime(loc.timestamp), loc.lat, loc.lon])
            if loc.lat is not None and loc.lon is not None:
                f.setGeometry(QgsGeometry(QgsPoint(loc.lon, loc.lat)))
            rows.append(f)
        write_features(sink, rows, feedback)
        feedback.pushInfo(f"{len(rows)} locations.")
        return {"OUTPUT": dest}


class Trips(FleetAlgorithm):
    """Trip lines decoded from the polylines of the fleet API."""

    ALG_ID = "trips"
    DISPLAY = "Device trips"
    HELP = ("Calls GET /v1/trips per device for the date range (long ranges are split into "
            "windows), and GET /v1/devices when no ids are given. Free. Outputs trip lines "
            "(EPSG:4326) decoded from the encoded polylines, with distance, duration, average "
            "speed and the start and end stops; optionally the stops as points.")

    def init_parameters(self):
        """DEVICES, dates, OUTPUT lines and optional OUTPUT_STOPS points."""
        self.add_devices_parameter()
        self.add_date_range()
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Trips", TYPE_VECTOR_LINE))
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT_STOPS", "Trip stops", TYPE_VECTOR_POINT, optional=True,
            createByDefault=False))

    def work(self, parameters, context, feedback, cancel):
        """Fetch the trips of each device and write lines (and stops)."""
        start = self.date_param(parameters, "START_DATE", context)
        end = self.date_param(parameters, "END_DATE", context)
        if end < start:
            raise QgsProcessingException("END_DATE is before START_DATE.")
        with self.fleet_client(cancel) as client:
            ids = self.device_ids(parameters, context, client)
            results, failed = [], []
            for i, device_id in enumerate(ids):
                if stop_requested(feedback):
                    break
                try:
                    results.append((device_id, client.trips(device_id, start, end)))
                except (AuthError, FetchCancelled):
                    raise
                except FleetStreetError as exc:
                    # one device's failure must not discard the trips of the others
                    failed.append(device_id)
                    feedback.reportError(f"Trips of device {device_id}: {exc}", False)
                feedback.setProgress(80.0 * (i + 1) / max(1, len(ids)))
            if failed and not results:
                raise QgsProcessingException(
                    f"No device's trips could be read ({len(failed)} failed); see the log.")
        fields = make_fields(TRIP_SPEC)
        sink, dest = self.sink(parameters, context, fields, WKB_LINESTRING, "Trips",
                               style="trips")
        stop_fields = make_fields(STOP_SPEC)
        stops_sink, stops_dest = self.sink(parameters, context, stop_fields, WKB_POINT,
                                           "Trip stops", key="OUTPUT_STOPS", optional=True)
        rows, stop_rows, seen_stops = [], [], set()
        total_km = 0.0
        for device_id, result in results:
            dev_id = (result.device.id if result.device and result.device.id else device_id)
            dev_name = result.device.name if result.device else None
            for trip in result.trips:
                rows.append(self._trip_feature(fields, trip, dev_id, dev_name))
                total_km += trip.distance_km or 0.0
                if stops_sink is None:
                    continue
                for role, stop in (("start", trip.first_stop), ("end", trip.second_stop)):
                    if stop is None or stop.lat is None or stop.lon is None:
                        continue
                    key = (dev_id, round(stop.lat, 6), round(stop.lon, 6), stop.stop_began_at)
                    if key in seen_stops:
                        continue
                    seen_stops.add(key)
                    dur = None
                    if stop.stop_began_at and stop.stop_ended_at:
                        dur = (stop.stop_ended_at - stop.stop_began_at).total_seconds() / 60.0
                    f = QgsFeature(stop_fields)
                    f.setAttributes([dev_id, dev_name, trip.id, role,
                                     qdatetime(stop.stop_began_at),
                                     qdatetime(stop.stop_ended_at), dur, stop.lat, stop.lon])
                    f.setGeometry(QgsGeometry(QgsPoint(stop.lon, stop.lat)))
                    stop_rows.append(f)
        write_features(sink, rows, feedback)
        feedback.pushInfo(f"{len(rows)} trips, {total_km:.1f} km, from {len(results)} devices.")
        out = {"OUTPUT": dest}
        if stops_sink is not None:
            write_features(stops_sink, stop_rows, feedback)
            out["OUTPUT_STOPS"] = stops_dest
        return out

    @staticmethod
    def _trip_feature(fields, trip, dev_id, dev_name) -> QgsFeature:
        from ..fields import line

        first, second = trip.first_stop, trip.second_stop
        coords = trip.coordinates()
        dur = trip.duration_ms
        f = QgsFeature(fields)
        f.setAttributes([
            trip.id, dev_id, dev_name, trip.distance_km,
            None if dur is None else int(dur), None if dur is None else dur / 60000.0,
            trip.average_speed_kmh,
            qdatetime(first.stop_ended_at) if first else None,
            qdatetime(second.stop_began_at) if second else None,
            first.lat if first else None, first.lon if first else None,
            qdatetime(first.stop_began_at) if first else None,
            qdatetime(first.stop_ended_at) if first else None,
            second.lat if second else None, second.lon if second else None,
            qdatetime(second.stop_began_at) if second else None,
            qdatetime(second.stop_ended_at) if second else None,
            len(coords),
        ])
        geom = line(coords)
        if geom is None and first and second and None not in (first.lat, first.lon,
                                                               second.lat, second.lon):
            geom = line([(first.lon, first.lat), (second.lon, second.lat)])
        if geom is not None:
            f.setGeometry(geom)
        return f


class WeeklyRewards(FleetAlgorithm):
    """Reward figures per device per week."""

    ALG_ID = "weeklyrewards"
    DISPLAY = "Weekly rewards"
    HELP = ("Calls GET /v1/networkRewards once per calendar week between START_WEEK and "
            "END_WEEK (Mondays; other days are snapped to their week's Monday, with a note in "
            "the log), and GET /v1/devices for device names. Free. Outputs a table with one "
            "row per device per week: reward amount, rewarded kilometres and mount rating.")

    def init_parameters(self):
        """START_WEEK, END_WEEK and OUTPUT table."""
        self.add_date_range("START_WEEK", "END_WEEK", "week (Monday)")
        self.addParameter(QgsProcessingParameterFeatureSink(
            "OUTPUT", "Weekly rewards", TYPE_VECTOR))

    def work(self, parameters, context, feedback, cancel):
        """Fetch each week's rewards and write the table."""
        start = self.date_param(parameters, "START_WEEK", context)
        end = self.date_param(parameters, "END_WEEK", context)
        for value in (start, end):
            _monday, note = snap_to_monday(value)
            if note:
                feedback.pushInfo(note + ".")
        weeks = weeks_between(start, end)
        with self.fleet_client(cancel) as client:
            names: Dict[str, str] = {}
            with contextlib.suppress(NotFoundError):
                names = {d.id: d.name for d in client.devices() if d.id and d.name}
            results = []
            for i, monday in enumerate(weeks):
                if stop_requested(feedback):
                    break
                results.append((monday, client.network_rewards(monday, snap=True)))
                feedback.setProgress(90.0 * (i + 1) / len(weeks))
        dest, count = self.write_table(
            parameters, context, feedback, REWARD_SPEC, "Weekly rewards",
            ([qdate(monday), qdate(result.period_start), qdate(result.period_end),
              r.device_id, r.device_name or names.get(r.device_id),
              r.reward_amount_token, r.rewarded_total_kms, r.reward_mount_rating]
             for monday, result in results for r in result.devices_with_rewards))
        feedback.pushInfo(f"{count} rows over {len(results)} weeks.")
        return {"OUTPUT": dest}


FLEET_ALGORITHMS = [ListDevices, LatestLocations, Trips, WeeklyRewards]
