"""Models, errors and connection profile of the core."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from fleet_street.core import errors
from fleet_street.core.models import (
    AIEvent,
    Burst,
    CameraIntrinsics,
    Device,
    DeviceReward,
    Frame,
    ImageryPage,
    Location,
    MapDataResult,
    MapFeature,
    RewardsResult,
    Trip,
    TripsResult,
)
from fleet_street.core.profile import ConnectionProfile

UTC = timezone.utc


def test_device_and_location_parse_spec_fields():
    d = Device.from_json({"id": "d1", "serialNumber": "S", "name": "Van", "description": "x",
                          "deviceModel": "Bee", "firmwareVersion": "1", "vehiclePlate": "P",
                          "imei": "123", "extra": 1})
    assert (d.serial_number, d.device_model, d.vehicle_plate, d.imei) == ("S", "Bee", "P", "123")
    assert d.raw["extra"] == 1
    loc = Location.from_json({"device": {"id": "d1", "name": "Van"}, "lat": 52.5, "lon": 13.4,
                              "speedKmH": 31.5, "timestamp": "2026-01-05T10:00:00.123Z"})
    assert loc.device.name == "Van" and loc.speed_kmh == 31.5
    assert loc.timestamp == datetime(2026, 1, 5, 10, 0, 0, 123000, tzinfo=UTC)


def test_trip_decodes_polyline_at_precision_5_and_speed():
    trip = Trip.from_json({"id": "t", "firstStop": {"lat": 38.5, "lon": -120.2,
                                                     "stopBeganAt": "2026-01-01T00:00:00.000Z"},
                           "distanceKm": 30, "durationMs": 1_800_000,
                           "polyline": "_p~iF~ps|U_ulLnnqC_mqNvxq`@"})
    assert trip.coordinates()[0] == (-120.2, 38.5)
    assert trip.average_speed_kmh == 60.0
    assert trip.second_stop is None
    assert Trip.from_json({"id": "x"}).average_speed_kmh is None


def test_trips_and_rewards_results():
    tr = TripsResult.from_json({"device": {"id": "d"}, "startDate": "2026-01-01T00:00:00.000Z",
                                "endDate": "2026-01-02T00:00:00.000Z", "totalDistanceKm": 3.5,
                                "trips": [{"id": "a"}]})
    assert tr.total_distance_km == 3.5 and tr.trips[0].id == "a"
    rr = RewardsResult.from_json({"periodStart": "2026-01-05", "periodEnd": "2026-01-11",
                                  "devicesWithRewards": [{"deviceId": "d", "deviceName": "n",
                                                          "rewardAmountToken": 1.5,
                                                          "rewardedTotalKms": 10,
                                                          "rewardMountRating": 3}]})
    assert rr.period_start == date(2026, 1, 5)
    assert rr.devices_with_rewards[0] == DeviceReward("d", "n", 1.5, 10.0, 3,
                                                      raw=rr.devices_with_rewards[0].raw)


def test_frame_spelling_variants_and_key():
    a = Frame.from_json({"url": "u", "sequence": "s", "idx": 3, "timestamp": 1700000000000,
                         "position": {"lat": 1, "lon": 2, "lat_ref": 1.5, "lon_ref": 2.5,
                                      "heading": 90}, "imu": {"acc_x": 1}})
    b = Frame.from_json({"url": "u", "sequence": "s", "idx": 3,
                         "position": {"lat": 1, "lon": 2, "latRef": "1.5", "lonRef": "2.5",
                                      "mountPosition": "front"}})
    assert a.key == b.key == ("s", 3)
    assert (a.lat_ref, a.lon_ref) == (1.5, 2.5)
    assert (b.lat_ref, b.lon_ref, b.mount_position) == (1.5, 2.5, "front")
    assert Frame.from_json({"position": {"lat_ref": "N"}}).lat_ref is None
    assert a.heading == 90 and a.imu == {"acc_x": 1}
    assert a.timestamp.tzinfo is not None
    page = ImageryPage.from_json({"frames": [a.raw], "creditsUsed": 1, "creditsRemaining": 9},
                                 week=date(2026, 1, 5))
    assert page.frames[0].week == date(2026, 1, 5) and page.credits_remaining == 9


def test_map_feature_and_map_data():
    raw = {"id": "f", "class": "speed-sign", "status": "active",
           "position": {"lat": 1, "lon": 2, "azimuth": 45}, "properties": {"speedLimit": 50},
           "confidence": 0.9, "observed": {"firstSeen": "2025-01-01T00:00:00Z",
                                           "lastSeen": "2025-02-01T00:00:00Z"},
           "n_detections": 4, "image": {"url": "http://i", "bbox": {"x": 1, "y": 2, "w": 3,
                                                                    "h": 4}}}
    f = MapFeature.from_json(raw)
    assert f.feature_class == "speed-sign" and f.bbox == (1, 2, 3, 4) and f.image_url == "http://i"
    assert f.first_seen.year == 2025 and f.properties["speedLimit"] == 50
    bare = MapFeature.from_json({"id": "g"})
    assert bare.bbox is None and bare.lat is None
    md = MapDataResult.from_json({"totalCreditsUsed": 2, "totalCreditsRemaining": 8,
                                  "mapFeatureResults": {"data": [raw], "creditsUsed": 1},
                                  "imageryResults": {"data": [{"url": "u"}], "creditsUsed": 1}})
    assert len(md.features) == 1 and len(md.frames) == 1 and md.credits_used == 2


def test_burst_event_intrinsics():
    b = Burst.from_json({"geojson": {"type": "Point", "coordinates": [1, 2]}, "isHit": True,
                         "validUntil": "2026-01-01T00:00:00.000Z", "status": "active"})
    assert b.is_hit and b.id is None and b.valid_until.tzinfo is not None
    e = AIEvent.from_json({"id": "a" * 24, "type": "HARSH_BRAKING", "location": {"lat": 1,
                                                                                 "lon": 2},
                           "gnssData": [{"lat": 1}], "imuData": [{"acc_x": 0}]})
    assert (e.lat, e.lon, len(e.gnss), len(e.imu)) == (1, 2, 1, 1)
    ci = CameraIntrinsics.from_json("hdc", {"focal": 0.7, "k1": -0.03})
    assert ci.k3 == 0 and ci.focal == 0.7


def test_error_message_is_a_sentence_and_redacts_key():
    err = errors.AuthError("The server refused the API key", status=403,
                           server_message="Forbidden (couldn't extract valid API key)",
                           request="GET http://h/api/developer/balance?apiKey=SECRET")
    text = str(err)
    assert "SECRET" not in text and "SECRET" not in repr(err)
    assert "403" in text and "couldn't extract" in text and "settings" in text
    partial = errors.PartialFetchError("2 of 3 failed", result=[1], cause=errors.ServerError(
        "boom", status=500))
    assert partial.result == [1] and partial.status == 500 and "boom" in str(partial)
    assert issubclass(errors.BudgetExceeded, errors.FleetStreetError)


def test_profile_from_env_and_repr_hides_keys():
    p = ConnectionProfile.from_env({"FLEETSTREET_FLEET_URL": "http://f/", "FLEETSTREET_DATA_URL":
                                    "http://d/api/developer", "FLEETSTREET_FLEET_KEY": "K1",
                                    "FLEETSTREET_DATA_KEY": "K2", "FLEETSTREET_CONCURRENCY": "6",
                                    "FLEETSTREET_TIMEOUT": "12.5"})
    assert p.fleet_url == "http://f" and p.mcp_url == "http://d/api/developer/mcp"
    assert p.concurrency == 6 and p.timeout_s == 12.5
    assert "K1" not in repr(p) and "K2" not in repr(p)
    q = p.with_keys(data_key="K3")
    assert q.data_key == "K3" and q.fleet_key == "K1"
    assert p.replace(data_url="http://e").mcp_url == "http://e/mcp"


def test_profile_from_env_retry_settings():
    defaults = ConnectionProfile.from_env({})
    assert defaults.max_attempts == 6 and defaults.backoff_base_s == 0.25
    p = ConnectionProfile.from_env({"FLEETSTREET_MAX_ATTEMPTS": "2",
                                    "FLEETSTREET_BACKOFF_S": "0.01"})
    assert p.max_attempts == 2 and p.backoff_base_s == 0.01
    blank = ConnectionProfile.from_env({"FLEETSTREET_MAX_ATTEMPTS": "",
                                        "FLEETSTREET_BACKOFF_S": ""})
    assert blank.max_attempts == 6 and blank.backoff_base_s == 0.25
    assert ConnectionProfile.from_env({"FLEETSTREET_BACKOFF_S": "0"}).backoff_base_s == 0


@pytest.mark.parametrize("name,raw,words", [
    ("FLEETSTREET_MAX_ATTEMPTS", "many", "FLEETSTREET_MAX_ATTEMPTS must be a number"),
    ("FLEETSTREET_MAX_ATTEMPTS", "2.5", "FLEETSTREET_MAX_ATTEMPTS must be a number"),
    ("FLEETSTREET_MAX_ATTEMPTS", "0", "Max attempts must be at least 1"),
    ("FLEETSTREET_BACKOFF_S", "soon", "FLEETSTREET_BACKOFF_S must be a number"),
    ("FLEETSTREET_BACKOFF_S", "-1", "Backoff must be"),
    ("FLEETSTREET_BACKOFF_S", "nan", "Backoff must be"),
    ("FLEETSTREET_BACKOFF_S", "inf", "Backoff must be"),
])
def test_profile_from_env_rejects_bad_retry_settings(name, raw, words):
    with pytest.raises(errors.ValidationError) as info:
        ConnectionProfile.from_env({name: raw})
    assert words in str(info.value)
