"""Client of the street-level data API: imagery, map features, bursts, AI events, credits."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union
from urllib.parse import quote

from .cancel import CancelToken
from .errors import InvalidResponseError, ValidationError
from .http import HttpTransport
from .models import (
    AIEvent,
    Burst,
    BurstCreateResult,
    BurstsPage,
    CameraIntrinsics,
    FeaturesPage,
    ImageryPage,
    MapDataResult,
    MapFeature,
)
from .profile import ConnectionProfile
from .timeutil import iso_z, to_utc
from .weeks import week_monday

MAX_AREA_KM2 = 5.0
AI_EVENT_WINDOW_DAYS = 31
AI_EVENT_PAGE = 500
BURSTS_PAGE = 100
POLY_TYPES = ("Polygon", "MultiPolygon")
BURST_UNKNOWN_ADVICE = ("list the account's bursts and check whether they were created "
                        "before creating them again")
RENEW_UNKNOWN_ADVICE = "renew the URL again later"


class FeatureList(List[MapFeature]):
    """A list of map features that also carries the credits the request reported."""

    credits_used: Optional[float] = None
    credits_remaining: Optional[float] = None


class BurstList(List[Burst]):
    """A page of bursts with the listing's total, limit and skip."""

    total: Optional[int] = None
    limit: Optional[int] = None
    skip: Optional[int] = None


class DataClient:
    """Reads and writes the street-level data API over a shared retrying transport."""

    def __init__(self, profile: ConnectionProfile, cancel: Optional[CancelToken] = None,
                 http: Optional[HttpTransport] = None, *, key_in_query: bool = False) -> None:
        if not profile.data_url:
            raise ValidationError("No street-level data API URL is configured")
        self.profile = profile
        self.cancel = cancel or (http.cancel if http is not None else CancelToken())
        self._owns_http = http is None
        self.http = http or HttpTransport(profile, self.cancel)
        self.key_in_query = key_in_query
        self.last_credits_remaining: Optional[float] = None

    def close(self) -> None:
        """Release the connection pool if this client created it."""
        if self._owns_http:
            self.http.close()

    def __enter__(self) -> DataClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing -----------------------------------------------------------------------

    def call(self, method: str, path: str, *, params: Optional[Dict[str, Any]] = None,
             body: Any = None, auth: bool = True,
             cancel: Optional[CancelToken] = None, idempotent: bool = True,
             unknown_advice: str = "") -> Any:
        """Send one request to the data API and return its JSON body."""
        params = dict(params or {})
        headers: Dict[str, str] = {}
        if auth:
            if not self.profile.data_key:
                raise ValidationError("No street-level data API key is configured")
            if self.key_in_query:
                params["apiKey"] = self.profile.data_key
            else:
                headers["Authorization"] = f"Basic {self.profile.data_key}"
        return self.http.request_json(method, self.profile.data_url + path, params=params,
                                      json_body=body, headers=headers,
                                      cancel=cancel or self.cancel, idempotent=idempotent,
                                      unknown_advice=unknown_advice)

    def _dict(self, body: Any, what: str) -> Dict[str, Any]:
        if not isinstance(body, dict):
            raise InvalidResponseError(f"The data API answered {what} with an unexpected body")
        remaining = body.get("creditsRemaining", body.get("totalCreditsRemaining"))
        if isinstance(remaining, (int, float)):
            self.last_credits_remaining = float(remaining)
        return body

    # -- credits and devices --------------------------------------------------------------

    def balance(self) -> float:
        """Remaining API credits."""
        body = self._dict(self.call("GET", "/balance"), "/balance")
        value = body.get("balance")
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise InvalidResponseError("The data API's /balance answer has no number 'balance'")
        self.last_credits_remaining = float(value)
        return float(value)

    def camera_intrinsics(self) -> Dict[str, CameraIntrinsics]:
        """Camera intrinsics by camera model, for undistorting images."""
        body = self.call("GET", "/devices", auth=False)
        if not isinstance(body, dict):
            raise InvalidResponseError("The data API's /devices answer is not an object")
        return {model: CameraIntrinsics.from_json(model, value)
                for model, value in body.items() if isinstance(value, dict)}

    # -- map features and imagery ---------------------------------------------------------

    def map_features_page(self, geometry: Dict[str, Any], *,
                          cancel: Optional[CancelToken] = None) -> FeaturesPage:
        """Map features within a polygon, with any credit figures the answer carries."""
        check_poly(geometry)
        body = self._dict(self.call("POST", "/mapFeatures/poly", body=geometry, cancel=cancel),
                          "/mapFeatures/poly")
        if not isinstance(body.get("features", []), list):
            raise InvalidResponseError("The data API's map features answer has no feature list")
        return FeaturesPage.from_json(body)

    def map_features_poly(self, geometry: Dict[str, Any]) -> FeatureList:
        """Map features within a polygon (the list also carries credits when reported)."""
        page = self.map_features_page(geometry)
        out = FeatureList(page.features)
        out.credits_used = page.credits_used
        out.credits_remaining = page.credits_remaining
        return out

    def latest_poly(self, geometry: Dict[str, Any], headings: bool = False,
                    min_week: Optional[date] = None, *,
                    cancel: Optional[CancelToken] = None) -> ImageryPage:
        """Most recent imagery within a polygon."""
        check_poly(geometry)
        params: Dict[str, Any] = {}
        if headings:
            params["headings"] = "true"
        if min_week is not None:
            params["min_week"] = week_monday(min_week).isoformat()
        body = self._dict(self.call("POST", "/latest/poly", params=params, body=geometry,
                                    cancel=cancel), "/latest/poly")
        _check_list(body, "frames", "/latest/poly")
        return ImageryPage.from_json(body)

    def imagery_poly(self, geometry: Dict[str, Any], week: Union[date, datetime], *,
                     cancel: Optional[CancelToken] = None) -> ImageryPage:
        """Imagery within a polygon for one ISO week; frames are tagged with its Monday."""
        check_poly(geometry)
        if week is None:
            raise ValidationError("A week is required for historical imagery")
        monday = week_monday(week)
        body = self._dict(self.call("POST", "/imagery/poly", params={"week": monday.isoformat()},
                                    body=geometry, cancel=cancel), "/imagery/poly")
        _check_list(body, "frames", "/imagery/poly")
        return ImageryPage.from_json(body, week=monday)

    def map_data(self, geometry: Dict[str, Any], features: bool = True, imagery: bool = True,
                 start_date: Optional[Union[date, datetime]] = None, *,
                 radius_m: Optional[float] = None, buffer_m: Optional[float] = None,
                 cancel: Optional[CancelToken] = None) -> MapDataResult:
        """Features and/or imagery for a Point with radius, LineString with buffer or Polygon."""
        if not features and not imagery:
            raise ValidationError("Ask for map features, imagery or both")
        geometry = map_data_geometry(geometry, radius_m=radius_m, buffer_m=buffer_m)
        body: Dict[str, Any] = {
            "type": [t for t, on in (("mapFeatures", features), ("imagery", imagery)) if on],
            "geometry": geometry,
        }
        if start_date is not None:
            body["startDate"] = (iso_z(to_utc(start_date)) if isinstance(start_date, datetime)
                                 else start_date.isoformat())
        answer = self._dict(self.call("POST", "/map-data", body=body, cancel=cancel), "/map-data")
        check_map_data(answer, body["type"])
        return MapDataResult.from_json(answer)

    # -- bursts ---------------------------------------------------------------------------

    def create_bursts(self, geometries: Sequence[Dict[str, Any]]) -> BurstCreateResult:
        """Ask drivers to map the given Points or Polygons (125 credits each when captured)."""
        if not geometries:
            raise ValidationError("At least one burst location is required")
        for g in geometries:
            if not isinstance(g, dict) or g.get("type") not in ("Point", "Polygon"):
                raise ValidationError("Burst locations must be GeoJSON Points or Polygons")
            if g["type"] == "Polygon":
                check_poly(g)
            else:
                _check_coords(g.get("coordinates"))
        body = [{"geojson": g} for g in geometries]
        return BurstCreateResult.from_json(
            self._dict(self.call("POST", "/burst/create", body=body, idempotent=False,
                                 unknown_advice=BURST_UNKNOWN_ADVICE), "/burst/create"))

    def bursts(self, limit: int = BURSTS_PAGE, skip: int = 0) -> BurstList:
        """One page of the account's bursts."""
        page = BurstsPage.from_json(self._dict(
            self.call("GET", "/bursts", params={"limit": int(limit), "skip": int(skip)}),
            "/bursts"))
        out = BurstList(page.bursts)
        out.total, out.limit, out.skip = page.total, page.limit, page.skip
        return out

    def all_bursts(self, page_size: int = BURSTS_PAGE) -> List[Burst]:
        """Every burst of the account, following the pages."""
        out: List[Burst] = []
        seen = set()
        skip = 0
        while True:
            self.cancel.raise_if_cancelled()
            page = self.bursts(limit=page_size, skip=skip)
            for b in page:
                key = b.id or json.dumps(b.raw, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    out.append(b)
            skip += len(page)
            if _last_page(len(page), skip, page.total, page.limit or page_size):
                return out

    # -- AI events ------------------------------------------------------------------------

    def search_ai_events(self, start: Union[date, datetime, str], end: Union[date, datetime, str],
                         types: Optional[Iterable[str]] = None,
                         polygon: Any = None) -> List[AIEvent]:
        """AI events in [start, end], split into 31-day windows and paged, deduplicated by id."""
        try:
            start_dt, end_dt = to_utc(start), to_utc(end, end_of_day=True)
        except ValueError as exc:
            raise ValidationError(f"Invalid AI event date range: {exc}") from None
        if end_dt < start_dt:
            raise ValidationError("The end of the AI event range is before its start")
        ring = _ring(polygon) if polygon is not None else None
        type_list = [str(t) for t in types] if types else None
        events: Dict[str, AIEvent] = {}
        anonymous: List[AIEvent] = []
        window = timedelta(days=AI_EVENT_WINDOW_DAYS)
        cursor = start_dt
        while True:
            stop = min(end_dt, cursor + window)
            offset = 0
            while True:
                self.cancel.raise_if_cancelled()
                body: Dict[str, Any] = {"startDate": iso_z(cursor), "endDate": iso_z(stop),
                                        "limit": AI_EVENT_PAGE, "offset": offset}
                if type_list:
                    body["types"] = type_list
                if ring:
                    body["polygon"] = ring
                answer = self._dict(self.call("POST", "/aievents/search", body=body),
                                    "/aievents/search")
                batch = answer.get("events")
                if not isinstance(batch, list):
                    raise InvalidResponseError("The AI event search answer has no 'events' list")
                for raw in batch:
                    event = AIEvent.from_json(raw)
                    if event.id is None:
                        anonymous.append(event)
                    else:
                        events.setdefault(event.id, event)
                offset += len(batch)
                pagination = answer.get("pagination")
                pagination = pagination if isinstance(pagination, dict) else {}
                limit = _count_or_none(pagination.get("limit")) or AI_EVENT_PAGE
                if _last_page(len(batch), offset, _count_or_none(pagination.get("total")),
                              limit):
                    break
            if stop >= end_dt:
                break
            cursor = stop
        return list(events.values()) + anonymous

    def ai_event(self, event_id: str, gnss: bool = True, imu: bool = True) -> AIEvent:
        """One AI event, optionally with its GNSS track and IMU samples."""
        if not event_id:
            raise ValidationError("An AI event id is required")
        params = {}
        if gnss:
            params["includeGnssData"] = "true"
        if imu:
            params["includeImuData"] = "true"
        body = self._dict(self.call("GET", f"/aievents/{quote(str(event_id), safe='')}",
                                    params=params), "/aievents")
        return AIEvent.from_json(body.get("event", body) if isinstance(body.get("event"), dict)
                                 else body)

    def renew_url(self, url: str, *, cancel: Optional[CancelToken] = None) -> str:
        """A fresh signed URL for an expired image or video URL."""
        body = self._dict(self.call("POST", "/renew/" + quote(url, safe=""), cancel=cancel,
                                    idempotent=False, unknown_advice=RENEW_UNKNOWN_ADVICE),
                          "/renew")
        fresh = body.get("url")
        if not isinstance(fresh, str) or not fresh:
            raise InvalidResponseError("The /renew answer carries no 'url'")
        return fresh

    # -- MCP ------------------------------------------------------------------------------

    def mcp_tools(self) -> List[str]:
        """Names of the tools the MCP server offers (initialize, then tools/list)."""
        from .mcp import list_tools

        return list_tools(self.http, self.profile.mcp_url, self.profile.data_key, self.cancel)


def check_poly(geometry: Any) -> None:
    """Reject anything but a GeoJSON Polygon/MultiPolygon under the 5 km² limit."""
    if not isinstance(geometry, dict) or geometry.get("type") not in POLY_TYPES:
        raise ValidationError("The query area must be a GeoJSON Polygon or MultiPolygon")
    coords = geometry.get("coordinates")
    if not isinstance(coords, list) or not coords:
        raise ValidationError("The query polygon has no coordinates")
    from .geo import geojson_area_km2

    try:
        area = geojson_area_km2(geometry)
    except Exception as exc:  # shapely raises several types for malformed rings
        raise ValidationError(f"The query polygon is not valid GeoJSON: {exc}") from None
    if area >= MAX_AREA_KM2:
        raise ValidationError(
            f"The query area is {area:.2f} km²; one request must cover less than 5 km² "
            "(large areas are tiled by the fetch engine)")


def check_map_data(body: Dict[str, Any], kinds: Sequence[str]) -> None:
    """Reject a /map-data answer lacking the result (with a 'data' list) of a requested type."""
    for kind, name in (("mapFeatures", "mapFeatureResults"), ("imagery", "imageryResults")):
        if kind not in kinds:
            continue
        part = body.get(name)
        if not isinstance(part, dict) or not isinstance(part.get("data"), list):
            raise InvalidResponseError(
                f"The data API's /map-data answer has no '{name}' with a 'data' list")


def map_data_geometry(geometry: Dict[str, Any], *, radius_m: Optional[float] = None,
                      buffer_m: Optional[float] = None) -> Dict[str, Any]:
    """The geometry object /map-data expects, with radius or buffer where needed."""
    if not isinstance(geometry, dict):
        raise ValidationError("map-data needs a GeoJSON geometry")
    kind = geometry.get("type")
    g = dict(geometry)
    if kind == "Point":
        if radius_m is not None:
            g["radius"] = radius_m
        if not isinstance(g.get("radius"), (int, float)) or g["radius"] <= 0:
            raise ValidationError("A Point query needs a positive radius in metres")
        _check_coords(g.get("coordinates"))
    elif kind == "LineString":
        if buffer_m is not None:
            g["buffer"] = buffer_m
        if not isinstance(g.get("buffer"), (int, float)) or g["buffer"] <= 0:
            raise ValidationError("A LineString query needs a positive buffer in metres")
        coords = g.get("coordinates")
        if not isinstance(coords, list) or len(coords) < 2:
            raise ValidationError("A LineString needs at least two positions")
        for c in coords:
            _check_coords(c)
    elif kind == "Polygon":
        check_poly(g)
    else:
        raise ValidationError("map-data takes a Point with radius, a LineString with buffer "
                              "or a Polygon")
    return g


def _last_page(got: int, consumed: int, total: Optional[int], limit: int) -> bool:
    """True when paging should stop after a page of `got` items."""
    if got == 0:
        return True  # an empty page never advances: stopping avoids an endless loop
    if total is not None:
        return consumed >= total
    # Without a total, a page shorter than the server's own limit (which may be lower than
    # the one asked for) is the last one.
    return got < limit


def _count_or_none(value: Any) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return int(value)


def _check_coords(c: Any) -> None:
    ok = (isinstance(c, (list, tuple)) and len(c) >= 2
          and all(isinstance(v, (int, float)) for v in c[:2]))
    if not ok or not (-180 <= c[0] <= 180 and -90 <= c[1] <= 90):
        raise ValidationError(f"Invalid [lon, lat] position: {c!r}")


def _check_list(body: Dict[str, Any], name: str, what: str) -> None:
    if not isinstance(body.get(name), list):
        raise InvalidResponseError(f"The data API's {what} answer has no '{name}' list")


def _ring(polygon: Any) -> List[List[float]]:
    if isinstance(polygon, dict):
        if polygon.get("type") != "Polygon":
            raise ValidationError("The AI event area must be a Polygon")
        polygon = polygon["coordinates"][0]
    ring = [[float(c[0]), float(c[1])] for c in polygon]
    for c in ring:
        _check_coords(c)
    if len(ring) < 3:
        raise ValidationError("The AI event area needs at least three positions")
    return ring
