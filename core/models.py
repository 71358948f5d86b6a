"""Typed records of both APIs, parsed tolerantly from JSON and keeping the raw dict."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Dict, List, Optional, Tuple

from . import polyline_codec
from .timeutil import parse_date, parse_datetime


def _pick(d: Any, *names: str, default: Any = None) -> Any:
    """First present, non-None value among several spellings of a field."""
    if not isinstance(d, dict):
        return default
    for name in names:
        value = d.get(name)
        if value is not None:
            return value
    return default


def _float(value: Any) -> Optional[float]:
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> Optional[int]:
    f = _float(value)
    return None if f is None else int(f)


def _str(value: Any) -> Optional[str]:
    return None if value is None else str(value)


def _dict(value: Any) -> Dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _list(value: Any) -> List[Any]:
    return list(value) if isinstance(value, list) else []


@dataclass
class DeviceRef:
    """Short reference to a fleet device embedded in location and trips responses."""

    id: Optional[str]
    name: Optional[str] = None

    @classmethod
    def from_json(cls, d: Any) -> DeviceRef:
        """Parse from the API's JSON."""
        if isinstance(d, str):
            return cls(id=d)
        return cls(id=_str(_pick(d, "id", "deviceId")), name=_str(_pick(d, "name", "deviceName")))


@dataclass
class Device:
    """A camera device of the fleet."""

    id: Optional[str]
    serial_number: Optional[str] = None
    name: Optional[str] = None
    description: Optional[str] = None
    device_model: Optional[str] = None
    firmware_version: Optional[str] = None
    vehicle_plate: Optional[str] = None
    imei: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Any) -> Device:
        """Parse from the API's JSON."""
        d = _dict(d)
        return cls(
            id=_str(d.get("id")),
            serial_number=_str(_pick(d, "serialNumber", "serial_number")),
            name=_str(d.get("name")),
            description=_str(d.get("description")),
            device_model=_str(_pick(d, "deviceModel", "device_model")),
            firmware_version=_str(_pick(d, "firmwareVersion", "firmware_version")),
            vehicle_plate=_str(_pick(d, "vehiclePlate", "vehicle_plate")),
            imei=_str(d.get("imei")),
            raw=d,
        )


@dataclass
class Location:
    """Latest known location of a device."""

    device: DeviceRef
    lat: Optional[float]
    lon: Optional[float]
    speed_kmh: Optional[float] = None
    timestamp: Optional[datetime] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Any) -> Location:
        """Parse from the API's JSON."""
        d = _dict(d)
        return cls(
            device=DeviceRef.from_json(d.get("device") or {}),
            lat=_float(_pick(d, "lat", "latitude")),
            lon=_float(_pick(d, "lon", "lng", "longitude")),
            speed_kmh=_float(_pick(d, "speedKmH", "speedKmh", "speed_kmh", "speed")),
            timestamp=parse_datetime(d.get("timestamp")),
            raw=d,
        )


@dataclass
class Stop:
    """A stop that begins or ends a trip."""

    lat: Optional[float]
    lon: Optional[float]
    stop_began_at: Optional[datetime] = None
    stop_ended_at: Optional[datetime] = None

    @classmethod
    def from_json(cls, d: Any) -> Stop:
        """Parse from the API's JSON."""
        d = _dict(d)
        return cls(
            lat=_float(_pick(d, "lat", "latitude")),
            lon=_float(_pick(d, "lon", "lng", "longitude")),
            stop_began_at=parse_datetime(_pick(d, "stopBeganAt", "stop_began_at")),
            stop_ended_at=parse_datetime(_pick(d, "stopEndedAt", "stop_ended_at")),
        )


@dataclass
class Trip:
    """One trip between two stops, its path an encoded polyline."""

    id: Optional[str]
    first_stop: Optional[Stop] = None
    second_stop: Optional[Stop] = None
    distance_km: Optional[float] = None
    duration_ms: Optional[float] = None
    polyline: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Any) -> Trip:
        """Parse from the API's JSON."""
        d = _dict(d)
        first = _pick(d, "firstStop", "first_stop")
        second = _pick(d, "secondStop", "second_stop")
        return cls(
            id=_str(d.get("id")),
            first_stop=Stop.from_json(first) if first is not None else None,
            second_stop=Stop.from_json(second) if second is not None else None,
            distance_km=_float(_pick(d, "distanceKm", "distance_km")),
            duration_ms=_float(_pick(d, "durationMs", "duration_ms")),
            polyline=_str(d.get("polyline")),
            raw=d,
        )

    def coordinates(self) -> List[Tuple[float, float]]:
        """The trip's path as (lon, lat) pairs, decoded at precision 5."""
        if not self.polyline:
            return []
        return polyline_codec.decode(self.polyline, precision=5)

    @property
    def average_speed_kmh(self) -> Optional[float]:
        """Distance over duration in km/h, None when either is unknown or zero."""
        if not self.distance_km or not self.duration_ms or self.duration_ms <= 0:
            return None
        return self.distance_km / (self.duration_ms / 3_600_000.0)


@dataclass
class TripsResult:
    """Trips of one device within a date range."""

    device: Optional[DeviceRef]
    start_date: Optional[datetime]
    end_date: Optional[datetime]
    total_distance_km: Optional[float]
    trips: List[Trip] = field(default_factory=list)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Any) -> TripsResult:
        """Parse from the API's JSON."""
        d = _dict(d)
        dev = d.get("device")
        return cls(
            device=DeviceRef.from_json(dev) if dev is not None else None,
            start_date=parse_datetime(_pick(d, "startDate", "start_date")),
            end_date=parse_datetime(_pick(d, "endDate", "end_date")),
            total_distance_km=_float(_pick(d, "totalDistanceKm", "total_distance_km")),
            trips=[Trip.from_json(t) for t in _list(d.get("trips"))],
            raw=d,
        )


@dataclass
class DeviceReward:
    """Reward figures of one device for a reward period."""

    device_id: Optional[str]
    device_name: Optional[str] = None
    reward_amount_token: Optional[float] = None
    rewarded_total_kms: Optional[float] = None
    reward_mount_rating: Optional[int] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Any) -> DeviceReward:
        """Parse from the API's JSON."""
        d = _dict(d)
        return cls(
            device_id=_str(_pick(d, "deviceId", "device_id")),
            device_name=_str(_pick(d, "deviceName", "device_name")),
            reward_amount_token=_float(_pick(d, "rewardAmountToken", "reward_amount_token")),
            rewarded_total_kms=_float(_pick(d, "rewardedTotalKms", "rewarded_total_kms")),
            reward_mount_rating=_int(_pick(d, "rewardMountRating", "reward_mount_rating")),
            raw=d,
        )


@dataclass
class RewardsResult:
    """Rewards of all fleet devices for one calendar week."""

    period_start: Optional[date]
    period_end: Optional[date]
    devices_with_rewards: List[DeviceReward] = field(default_factory=list)
    note: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Any) -> RewardsResult:
        """Parse from the API's JSON."""
        d = _dict(d)
        return cls(
            period_start=parse_date(_pick(d, "periodStart", "period_start")),
            period_end=parse_date(_pick(d, "periodEnd", "period_end")),
            devices_with_rewards=[DeviceReward.from_json(r)
                                  for r in _list(_pick(d, "devicesWithRewards", "devices"))],
            raw=d,
        )


@dataclass
class Frame:
    """One street-level image frame with its position and signed URL."""

    url: Optional[str]
    timestamp: Optional[datetime] = None
    sequence: Optional[str] = None
    idx: Optional[int] = None
    device: Optional[str] = None
    lat: Optional[float] = None
    lon: Optional[float] = None
    lat_ref: Optional[float] = None
    lon_ref: Optional[float] = None
    gdop: Optional[float] = None
    hdop: Optional[float] = None
    pdop: Optional[float] = None
    eph: Optional[float] = None
    heading: Optional[float] = None
    mount_position: Optional[str] = None
    width: Optional[int] = None
    height: Optional[int] = None
    imu: Dict[str, Any] = field(default_factory=dict)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)
    week: Optional[date] = None

    @classmethod
    def from_json(cls, d: Any, week: Optional[date] = None) -> Frame:
        """Parse from the API's JSON; `week` tags frames fetched for an ISO week."""
        d = _dict(d)
        pos = _dict(d.get("position"))
        return cls(
            url=_str(d.get("url")),
            timestamp=parse_datetime(d.get("timestamp")),
            sequence=_str(_pick(d, "sequence", "sequenceId")),
            idx=_int(_pick(d, "idx", "index")),
            device=_str(d.get("device")),
            lat=_float(_pick(pos, "lat", "latitude", default=d.get("lat"))),
            lon=_float(_pick(pos, "lon", "lng", "longitude", default=d.get("lon"))),
            lat_ref=_float(_pick(pos, "lat_ref", "latRef")),
            lon_ref=_float(_pick(pos, "lon_ref", "lonRef")),
            gdop=_float(pos.get("gdop")),
            hdop=_float(pos.get("hdop")),
            pdop=_float(pos.get("pdop")),
            eph=_float(pos.get("eph")),
            heading=_float(_pick(pos, "heading", default=d.get("heading"))),
            mount_position=_str(_pick(pos, "mountPosition", "mount_position",
                                      default=_pick(d, "mountPosition", "mount_position"))),
            width=_int(d.get("width")),
            height=_int(d.get("height")),
            imu=_dict(d.get("imu")),
            raw=d,
            week=week,
        )

    @property
    def key(self) -> Tuple[Optional[str], Optional[int]]:
        """Identity of a frame across tiles and requests: (sequence, idx)."""
        if self.sequence is None and self.idx is None:
            return (self.url, None)
        return (self.sequence, self.idx)


@dataclass
class MapFeature:
    """A detected road object such as a sign, hydrant or lane line."""

    id: Optional[str]
    feature_class: Optional[str] = None
    status: Optional[str] = None
    lat: Optional[float] = None
    lon: Optional[float] = None
    azimuth: Optional[float] = None
    properties: Dict[str, Any] = field(default_factory=dict)
    confidence: Optional[float] = None
    first_seen: Optional[datetime] = None
    last_seen: Optional[datetime] = None
    n_detections: Optional[int] = None
    image_url: Optional[str] = None
    bbox: Optional[Tuple[float, float, float, float]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Any) -> MapFeature:
        """Parse from the API's JSON."""
        d = _dict(d)
        pos = _dict(d.get("position"))
        observed = _dict(d.get("observed"))
        image = _dict(d.get("image"))
        bbox_raw = image.get("bbox")
        bbox: Optional[Tuple[float, float, float, float]] = None
        if isinstance(bbox_raw, dict):
            vals = [_float(bbox_raw.get(k)) for k in ("x", "y", "w", "h")]
            if all(v is not None for v in vals):
                bbox = tuple(vals)  # type: ignore[assignment]
        elif isinstance(bbox_raw, (list, tuple)) and len(bbox_raw) == 4:
            vals = [_float(v) for v in bbox_raw]
            if all(v is not None for v in vals):
                bbox = tuple(vals)  # type: ignore[assignment]
        return cls(
            id=_str(d.get("id")),
            feature_class=_str(_pick(d, "class", "featureClass", "feature_class")),
            status=_str(d.get("status")),
            lat=_float(_pick(pos, "lat", "latitude", default=d.get("lat"))),
            lon=_float(_pick(pos, "lon", "lng", "longitude", default=d.get("lon"))),
            azimuth=_float(_pick(pos, "azimuth", default=d.get("azimuth"))),
            properties=_dict(d.get("properties")),
            confidence=_float(d.get("confidence")),
            first_seen=parse_datetime(_pick(observed, "firstSeen", "first_seen")),
            last_seen=parse_datetime(_pick(observed, "lastSeen", "last_seen")),
            n_detections=_int(_pick(d, "n_detections", "nDetections")),
            image_url=_str(image.get("url")),
            bbox=bbox,
            raw=d,
        )


@dataclass
class Burst:
    """A request that drivers map a location; is_hit turns true once it is covered."""

    id: Optional[str]
    geojson: Optional[Dict[str, Any]] = None
    created_by: Optional[str] = None
    valid_from: Optional[datetime] = None
    valid_until: Optional[datetime] = None
    amount: Optional[float] = None
    credits: Optional[float] = None
    hash: Optional[str] = None
    status: Optional[str] = None
    is_hit: bool = False
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Any) -> Burst:
        """Parse from the API's JSON."""
        d = _dict(d)
        geo = d.get("geojson")
        return cls(
            id=_str(_pick(d, "id", "_id")),
            geojson=geo if isinstance(geo, dict) else None,
            created_by=_str(_pick(d, "createdBy", "created_by")),
            valid_from=parse_datetime(_pick(d, "validFrom", "valid_from")),
            valid_until=parse_datetime(_pick(d, "validUntil", "valid_until")),
            amount=_float(d.get("amount")),
            credits=_float(d.get("credits")),
            hash=_str(d.get("hash")),
            status=_str(d.get("status")),
            is_hit=bool(_pick(d, "isHit", "is_hit", default=False)),
            raw=d,
        )


@dataclass
class AIEvent:
    """A driving event (harsh braking, speeding, ...) with its video and metadata."""

    id: Optional[str]
    type: Optional[str] = None
    timestamp: Optional[datetime] = None
    lat: Optional[float] = None
    lon: Optional[float] = None
    video_url: Optional[str] = None
    metadata: Dict[str, Any] = field(default_factory=dict)
    gnss: List[Dict[str, Any]] = field(default_factory=list)
    imu: List[Dict[str, Any]] = field(default_factory=list)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Any) -> AIEvent:
        """Parse from the API's JSON."""
        d = _dict(d)
        loc = _dict(d.get("location"))
        return cls(
            id=_str(_pick(d, "id", "_id")),
            type=_str(d.get("type")),
            timestamp=parse_datetime(d.get("timestamp")),
            lat=_float(_pick(loc, "lat", "latitude", default=d.get("lat"))),
            lon=_float(_pick(loc, "lon", "lng", "longitude", default=d.get("lon"))),
            video_url=_str(_pick(d, "videoUrl", "video_url")),
            metadata=_dict(d.get("metadata")),
            gnss=[g for g in _list(_pick(d, "gnssData", "gnss")) if isinstance(g, dict)],
            imu=[g for g in _list(_pick(d, "imuData", "imu")) if isinstance(g, dict)],
            raw=d,
        )


@dataclass
class CameraIntrinsics:
    """Lens model of a camera: focal length normalised by image width and distortion terms."""

    model: str
    focal: float
    k1: float = 0.0
    k2: float = 0.0
    k3: float = 0.0
    k4: float = 0.0
    p1: float = 0.0
    p2: float = 0.0

    @classmethod
    def from_json(cls, model: str, d: Any) -> CameraIntrinsics:
        """Parse one entry of the /devices answer."""
        d = _dict(d)
        return cls(
            model=model,
            focal=_float(d.get("focal")) or 0.0,
            k1=_float(d.get("k1")) or 0.0,
            k2=_float(d.get("k2")) or 0.0,
            k3=_float(d.get("k3")) or 0.0,
            k4=_float(d.get("k4")) or 0.0,
            p1=_float(d.get("p1")) or 0.0,
            p2=_float(d.get("p2")) or 0.0,
        )


@dataclass
class ImageryPage:
    """Frames of one imagery request with the credits it reported."""

    frames: List[Frame] = field(default_factory=list)
    credits_used: Optional[float] = None
    credits_remaining: Optional[float] = None

    @classmethod
    def from_json(cls, d: Any, week: Optional[date] = None) -> ImageryPage:
        """Parse from the API's JSON."""
        d = _dict(d)
        return cls(
            frames=[Frame.from_json(f, week=week) for f in _list(d.get("frames"))],
            credits_used=_float(d.get("creditsUsed")),
            credits_remaining=_float(d.get("creditsRemaining")),
        )


@dataclass
class FeaturesPage:
    """Map features of one request with the credits it reported, when it did."""

    features: List[MapFeature] = field(default_factory=list)
    credits_used: Optional[float] = None
    credits_remaining: Optional[float] = None

    @classmethod
    def from_json(cls, d: Any) -> FeaturesPage:
        """Parse from the API's JSON."""
        d = _dict(d)
        return cls(
            features=[MapFeature.from_json(f) for f in _list(_pick(d, "features", "data"))],
            credits_used=_float(_pick(d, "creditsUsed", "totalCreditsUsed")),
            credits_remaining=_float(_pick(d, "creditsRemaining", "totalCreditsRemaining")),
        )


@dataclass
class MapDataResult:
    """Features and frames of one /map-data request."""

    features: List[MapFeature] = field(default_factory=list)
    frames: List[Frame] = field(default_factory=list)
    credits_used: Optional[float] = None
    credits_remaining: Optional[float] = None

    @classmethod
    def from_json(cls, d: Any) -> MapDataResult:
        """Parse from the API's JSON."""
        d = _dict(d)
        feats = _dict(d.get("mapFeatureResults"))
        imgs = _dict(d.get("imageryResults"))
        used = _float(d.get("totalCreditsUsed"))
        if used is None and (feats or imgs):
            parts = [_float(feats.get("creditsUsed")), _float(imgs.get("creditsUsed"))]
            if any(p is not None for p in parts):
                used = sum(p for p in parts if p is not None)
        return cls(
            features=[MapFeature.from_json(f) for f in _list(feats.get("data"))],
            frames=[Frame.from_json(f) for f in _list(imgs.get("data"))],
            credits_used=used,
            credits_remaining=_float(_pick(d, "totalCreditsRemaining", "creditsRemaining")),
        )


@dataclass
class BurstCreateResult:
    """Answer of /burst/create."""

    success: bool
    bursts: List[Burst] = field(default_factory=list)
    credits_remaining: Optional[float] = None

    @classmethod
    def from_json(cls, d: Any) -> BurstCreateResult:
        """Parse from the API's JSON."""
        d = _dict(d)
        return cls(
            success=bool(d.get("success", False)),
            bursts=[Burst.from_json(b) for b in _list(d.get("bursts"))],
            credits_remaining=_float(d.get("creditsRemaining")),
        )


@dataclass
class BurstsPage:
    """One page of GET /bursts."""

    bursts: List[Burst] = field(default_factory=list)
    total: Optional[int] = None
    limit: Optional[int] = None
    skip: Optional[int] = None

    @classmethod
    def from_json(cls, d: Any) -> BurstsPage:
        """Parse from the API's JSON."""
        d = _dict(d)
        return cls(
            bursts=[Burst.from_json(b) for b in _list(d.get("bursts"))],
            total=_int(d.get("total")),
            limit=_int(d.get("limit")),
            skip=_int(d.get("skip")),
        )
