"""Operations of the street-level data API, shared by the HTTP routes and the MCP tools.

Each takes already-decoded JSON input and returns the JSON response body or raises ApiError.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from emulator import geometry, grid
from emulator.aievents import public as public_event
from emulator.errors import ApiError
from emulator.state import EmulatorState
from emulator.util import UTC, week_monday
from emulator.world import Objects

P = "/api/developer"
CAMERAS = {
    "hdc": {"focal": 0.7, "k1": -0.0365, "k2": 0.0066, "k3": 0.0, "k4": 0.0, "p1": 0.0,
            "p2": 0.0},
    "hdc-s": {"focal": 0.6, "k1": -0.0515, "k2": 0.0119, "k3": -0.0012, "k4": 0.0,
              "p1": 0.0, "p2": 0.0},
    "bee": {"focal": 0.65, "k1": -0.0438, "k2": 0.0092, "k3": -0.0006, "k4": 0.0001,
            "p1": 0.0, "p2": 0.0},
}


def _cells(geom: BaseGeometry) -> list[grid.Cell]:
    cells = grid.cells_in_bbox(*geom.bounds)
    if len(cells) <= 4:
        return cells
    shapely.prepare(geom)
    boxes = [shapely.box(*grid.cell_bounds(c)) for c in cells]
    hits = shapely.intersects(geom, boxes)
    return [c for c, h in zip(cells, hits) if h]


def _pick(objs: Objects, geom: BaseGeometry, max_t: float | None = None) -> np.ndarray:
    mask = geometry.inside_mask(geom, objs.lons, objs.lats)
    if max_t is not None and len(mask):
        mask &= objs.times <= max_t
    return np.flatnonzero(mask)


def _frame_json(st: EmulatorState, item: dict, path: str, heading: bool) -> dict[str, Any]:
    pos = dict(item["position"])
    if not heading:
        pos.pop("heading", None)
    return {"url": st.sign(path), **item, "position": pos}


def select_features(st: EmulatorState, geom: BaseGeometry) -> list[dict[str, Any]]:
    """Map features whose position lies in geom, with signed image URLs."""
    out = []
    for cell in _cells(geom):
        objs = st.world.features(cell)
        for k in _pick(objs, geom):
            item = objs.items[k]
            image = {"url": st.sign(objs.paths[k]), "bbox": item["image"]["bbox"]}
            out.append({**item, "image": image})
    return out


def select_frames(st: EmulatorState, geom: BaseGeometry, week: dt.date | None,
                  min_week: dt.date | None, heading: bool) -> list[dict[str, Any]]:
    """Frames in geom: of one ISO week (week=Monday) or the latest per cell (week=None)."""
    now = st.now()
    this_monday = week_monday(dt.datetime.fromtimestamp(now, UTC).date())
    out = []
    if week is None or week <= this_monday:
        for cell in _cells(geom):
            monday = week if week is not None else _latest(st, cell, this_monday, min_week, now)
            if monday is None:
                continue
            objs = st.world.frames(cell, monday)
            out += [_frame_json(st, objs.items[k], objs.paths[k], heading)
                    for k in _pick(objs, geom, now)]
    st.refresh_bursts()
    for b in st.bursts.items:
        if not b.record["isHit"]:
            continue
        hit_monday = week_monday(dt.datetime.fromtimestamp(b.frames.times[0], UTC).date())
        if week is not None and hit_monday != week:
            continue
        if min_week is not None and hit_monday < min_week:
            continue
        out += [_frame_json(st, b.frames.items[k], b.frames.paths[k], heading)
                for k in _pick(b.frames, geom, now)]
    return out


def _latest(st, cell, this_monday, min_week, now) -> dt.date | None:
    monday = st.world.latest_week(cell, this_monday, min_week)
    if monday == this_monday and not (st.world.frames(cell, monday).times <= now).any():
        # This week's drives are all still to come: fall back to the weeks before.
        monday = st.world.latest_week(cell, this_monday - dt.timedelta(weeks=1), min_week)
    return monday


def parse_week(text: Any, name: str = "week") -> dt.date:
    """Monday of the ISO week holding a YYYY-MM-DD (or YYYY-Www) value; 400 if bad."""
    if text is None or text == "":
        raise ApiError(400, f"Missing required parameter: {name} (YYYY-MM-DD)")
    try:
        day = dt.date.fromisoformat(str(text)[:10])
    except ValueError:
        try:
            day = dt.datetime.strptime(str(text) + "-1", "%G-W%V-%u").date()
        except ValueError:
            raise ApiError(400, f"Invalid {name}: {text}; expected YYYY-MM-DD") from None
    return week_monday(day)


def poly(body: Any, st: EmulatorState) -> BaseGeometry:
    """Validated Polygon/MultiPolygon query geometry under the area limit."""
    geom = geometry.parse_geometry(body, geometry.POLY_TYPES)
    geometry.check_area(geom, st.settings.max_area_km2)
    return geom


def imagery_response(st: EmulatorState, key: str, frames: list) -> dict[str, Any]:
    """Charge for frames and wrap them in the imagery response."""
    used = len(frames) * st.price("frame")
    st.charge(key, used)
    return {"frames": frames, "creditsUsed": used, "creditsRemaining": st.balance}


def imagery_week(st: EmulatorState, body: Any, week: Any) -> dict[str, Any]:
    """POST /imagery/poly?week=..."""
    monday = parse_week(week)
    geom = poly(body, st)
    return imagery_response(st, f"POST {P}/imagery/poly",
                            select_frames(st, geom, monday, None, False))


def imagery_latest(st: EmulatorState, body: Any, min_week: Any, headings: bool):
    """POST /latest/poly"""
    since = parse_week(min_week, "min_week") if min_week else None
    geom = poly(body, st)
    return imagery_response(st, f"POST {P}/latest/poly",
                            select_frames(st, geom, None, since, headings))


def map_features(st: EmulatorState, body: Any) -> dict[str, Any]:
    """POST /mapFeatures/poly"""
    geom = poly(body, st)
    feats = select_features(st, geom)
    used = len(feats) * st.price("feature")
    st.charge(f"POST {P}/mapFeatures/poly", used)
    if st.settings.feature_credits_in_body:
        return {"features": feats, "creditsUsed": used, "creditsRemaining": st.balance}
    # The documented answer carries no credit figures; clients must cost it from /balance.
    return {"features": feats}


def map_data(st: EmulatorState, body: Any) -> dict[str, Any]:
    """POST /map-data: features and/or latest imagery for a point, line or polygon."""
    if not isinstance(body, dict):
        raise ApiError(400, "Body must be a JSON object with type and geometry")
    kinds = body.get("type", ["mapFeatures", "imagery"])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(kinds, list) or not kinds or any(
        k not in ("mapFeatures", "imagery") for k in kinds
    ):
        raise ApiError(400, 'type must be a list out of "mapFeatures", "imagery"')
    geom = geometry.map_data_geometry(body.get("geometry"), st.settings.max_area_km2)
    since = None
    if body.get("startDate"):
        since = parse_week(body["startDate"], "startDate")
    feats = select_features(st, geom) if "mapFeatures" in kinds else []
    frames = select_frames(st, geom, None, since, False) if "imagery" in kinds else []
    f_used = len(feats) * st.price("feature")
    i_used = len(frames) * st.price("frame")
    st.charge(f"POST {P}/map-data", f_used + i_used)
    out: dict[str, Any] = {"totalCreditsUsed": f_used + i_used,
                           "totalCreditsRemaining": st.balance}
    if "mapFeatures" in kinds:
        out["mapFeatureResults"] = {"type": "mapFeatures", "data": feats, "creditsUsed": f_used}
    if "imagery" in kinds:
        out["imageryResults"] = {"type": "imagery", "data": frames, "creditsUsed": i_used}
    return out


def burst_create(st: EmulatorState, body: Any) -> dict[str, Any]:
    """POST /burst/create (credits are charged when a burst is hit)."""
    s = st.settings
    made = st.bursts.create(body, st.price("burst"), st.balance, st.now(),
                            s.burst_lifetime_s, s.max_area_km2)
    return {"success": True, "bursts": [dict(b.record) for b in made],
            "creditsRemaining": st.balance}


def burst_list(st: EmulatorState, limit: Any, skip: Any) -> dict[str, Any]:
    """GET /bursts, newest first."""
    lim, sk = _nonneg(limit, 100, "limit"), _nonneg(skip, 0, "skip")
    st.refresh_bursts()
    items = [dict(b.record) for b in reversed(st.bursts.items)]
    return {"total": len(items), "limit": lim, "skip": sk, "bursts": items[sk:sk + lim]}


def balance(st: EmulatorState) -> dict[str, Any]:
    """GET /balance"""
    st.refresh_bursts()
    return {"balance": st.balance}


def devices() -> dict[str, Any]:
    """GET /devices: camera intrinsics by camera model."""
    return {k: dict(v) for k, v in CAMERAS.items()}


def _event_json(st: EmulatorState, ev: dict) -> dict[str, Any]:
    out = public_event(ev)
    out["videoUrl"] = st.sign(f"/files/video/{ev['id']}.avi")
    return out


def aievents_search(st: EmulatorState, body: Any) -> dict[str, Any]:
    """POST /aievents/search"""
    page, total, limit, offset = st.aievents.search(body, st.now())
    st.charge(f"POST {P}/aievents/search", len(page) * st.price("aievent"))
    return {"events": [_event_json(st, e) for e in page],
            "pagination": {"total": total, "limit": limit, "offset": offset}}


def aievent_get(st: EmulatorState, eid: str, gnss: bool, imu: bool) -> dict[str, Any]:
    """GET /aievents/{id}"""
    ev, trip = st.aievents.lookup(eid, st.now())
    out = _event_json(st, ev)
    if gnss:
        out["gnssData"] = st.aievents.gnss(ev, trip)
    if imu:
        out["imuData"] = st.aievents.imu(ev)
    return out


def _nonneg(value: Any, default: int, name: str) -> int:
    if value is None or value == "":
        return default
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise ApiError(400, f"{name} must be an integer") from None
    if v < 0:
        raise ApiError(400, f"{name} must not be negative")
    return v
