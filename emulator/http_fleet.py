"""Routes of the fleet API under /v1."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from emulator.errors import ApiError
from emulator.http_common import require_fleet_key, state


def _param(request: Request, name: str) -> str:
    value = request.query_params.get(name)
    if not value:
        raise ApiError(400, f"Missing required parameter: {name}")
    return value


async def devices(request: Request) -> JSONResponse:
    """GET /v1/devices"""
    require_fleet_key(request)
    return JSONResponse({"devices": [dict(d) for d in state(request).fleet.devices]})


async def location(request: Request) -> JSONResponse:
    """GET /v1/location?deviceId="""
    require_fleet_key(request)
    st = state(request)
    return JSONResponse(st.fleet.location(_param(request, "deviceId"), st.now()))


async def trips(request: Request) -> JSONResponse:
    """GET /v1/trips?deviceId=&startDate=&endDate="""
    require_fleet_key(request)
    st = state(request)
    device_id = _param(request, "deviceId")
    start, end = _param(request, "startDate"), _param(request, "endDate")
    return JSONResponse(
        st.fleet.trips_result(device_id, start, end, st.settings.max_trip_days, st.now())
    )


async def rewards(request: Request) -> JSONResponse:
    """GET /v1/networkRewards?rewardPeriod=YYYY-MM-DD (a Monday)"""
    require_fleet_key(request)
    st = state(request)
    return JSONResponse(st.fleet.rewards(_param(request, "rewardPeriod"), st.now()))


ROUTES = [
    Route("/v1/devices", devices),
    Route("/v1/location", location),
    Route("/v1/trips", trips),
    Route("/v1/networkRewards", rewards),
]
