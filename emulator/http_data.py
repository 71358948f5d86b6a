"""Routes of the street-level data API under /api/developer."""

from __future__ import annotations

import urllib.parse

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from emulator import dataapi
from emulator.errors import ApiError
from emulator.http_common import flag, json_body, require_data_key, state

P = dataapi.P


async def map_data(request: Request) -> JSONResponse:
    """POST /map-data"""
    require_data_key(request)
    return JSONResponse(dataapi.map_data(state(request), await json_body(request)))


async def map_features(request: Request) -> JSONResponse:
    """POST /mapFeatures/poly"""
    require_data_key(request)
    return JSONResponse(dataapi.map_features(state(request), await json_body(request)))


async def latest(request: Request) -> JSONResponse:
    """POST /latest/poly?headings=&min_week="""
    require_data_key(request)
    q = request.query_params
    body = await json_body(request)
    return JSONResponse(
        dataapi.imagery_latest(state(request), body, q.get("min_week"), flag(q.get("headings")))
    )


async def imagery(request: Request) -> JSONResponse:
    """POST /imagery/poly?week=YYYY-MM-DD"""
    require_data_key(request)
    body = await json_body(request)
    week = request.query_params.get("week")
    return JSONResponse(dataapi.imagery_week(state(request), body, week))


async def burst_create(request: Request) -> JSONResponse:
    """POST /burst/create"""
    require_data_key(request)
    return JSONResponse(dataapi.burst_create(state(request), await json_body(request)))


async def bursts(request: Request) -> JSONResponse:
    """GET /bursts?limit=&skip="""
    require_data_key(request)
    q = request.query_params
    return JSONResponse(dataapi.burst_list(state(request), q.get("limit"), q.get("skip")))


async def balance(request: Request) -> JSONResponse:
    """GET /balance"""
    require_data_key(request)
    return JSONResponse(dataapi.balance(state(request)))


async def devices(request: Request) -> JSONResponse:
    """GET /devices (no key needed)"""
    return JSONResponse(dataapi.devices())


async def aievents_search(request: Request) -> JSONResponse:
    """POST /aievents/search"""
    require_data_key(request)
    return JSONResponse(dataapi.aievents_search(state(request), await json_body(request)))


async def aievent(request: Request) -> JSONResponse:
    """GET /aievents/{id}?includeGnssData=&includeImuData="""
    require_data_key(request)
    q = request.query_params
    return JSONResponse(
        dataapi.aievent_get(
            state(request), request.path_params["event_id"],
            flag(q.get("includeGnssData")), flag(q.get("includeImuData")),
        )
    )


async def renew(request: Request) -> JSONResponse:
    """POST /renew/<url-encoded signed url>"""
    require_data_key(request)
    st = state(request)
    # The path parameter is already decoded by the server; the raw path keeps %3F and %26.
    raw = request.scope.get("raw_path", b"").decode("latin-1")
    marker = f"{P}/renew/"
    encoded = raw[raw.index(marker) + len(marker):] if marker in raw else ""
    url = urllib.parse.unquote(encoded)
    extra = request.query_params
    if "?" not in url and "Expires" in extra:
        # A client that did not encode the query part sends it as our own query string.
        url += "?" + urllib.parse.urlencode(
            {k: v for k, v in extra.items() if k in ("Expires", "Signature")}
        )
    if not url:
        raise ApiError(400, "Missing URL to renew")
    return JSONResponse({"url": st.signer.renew(st.base_url, url, st.settings.url_lifetime_s)})


ROUTES = [
    Route(f"{P}/map-data", map_data, methods=["POST"]),
    Route(f"{P}/mapFeatures/poly", map_features, methods=["POST"]),
    Route(f"{P}/latest/poly", latest, methods=["POST"]),
    Route(f"{P}/imagery/poly", imagery, methods=["POST"]),
    Route(f"{P}/burst/create", burst_create, methods=["POST"]),
    Route(f"{P}/bursts", bursts, methods=["GET"]),
    Route(f"{P}/balance", balance, methods=["GET"]),
    Route(f"{P}/devices", devices, methods=["GET"]),
    Route(f"{P}/aievents/search", aievents_search, methods=["POST"]),
    Route(f"{P}/aievents/{{event_id}}", aievent, methods=["GET"]),
    Route(f"{P}/renew/{{url:path}}", renew, methods=["POST"]),
]
