"""Control API for tests and benchmarks under /_emulator (no key, never faulted)."""

from __future__ import annotations

import asyncio
import time

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from emulator.errors import ApiError
from emulator.http_common import json_body, state


async def stats(request: Request) -> JSONResponse:
    """GET /_emulator/stats: the request log."""
    st = state(request)
    out = st.stats.to_dict()
    out["balance"] = st.balance
    return JSONResponse(out)


async def config(request: Request) -> JSONResponse:
    """GET or POST /_emulator/config: read or change knobs."""
    st = state(request)
    if request.method == "POST":
        body = await json_body(request)
        if not isinstance(body, dict):
            raise ApiError(400, "config body must be a JSON object")
        try:
            st.configure(body)
        except (TypeError, ValueError) as exc:
            raise ApiError(400, str(exc)) from None
    return JSONResponse(st.settings.to_dict())


#: How long a reset waits at most for requests still in flight (seconds).
RESET_DRAIN_S = 10.0
#: Quiet time after the last in-flight request ended, for requests already on their way.
RESET_SETTLE_S = 0.1


async def drain(st, timeout_s: float) -> bool:
    """Wait until no API request is in flight (bounded); True if the server went idle."""
    if st.stats.in_flight == 0:
        return True
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if st.stats.in_flight == 0:
            # Late requests of the same client may still be arriving: settle briefly.
            await asyncio.sleep(RESET_SETTLE_S)
            if st.stats.in_flight == 0:
                return True
        await asyncio.sleep(0.01)
    return st.stats.in_flight == 0


async def reset(request: Request) -> JSONResponse:
    """POST /_emulator/reset: clear log, bursts and balance ({"config": true} restores knobs).

    It first waits (up to {"drain_s": 10} seconds) for requests still in flight, so that
    the late answers of a cancelled run are not logged or charged after the reset.
    """
    st = state(request)
    raw = await request.body()
    body = await json_body(request) if raw.strip() else {}
    if not isinstance(body, dict):
        body = {}
    try:
        drain_s = float(body.get("drain_s", RESET_DRAIN_S))
    except (TypeError, ValueError):
        raise ApiError(400, "drain_s must be a number") from None
    idle = await drain(st, max(0.0, drain_s))
    st.reset(restore_config=bool(body.get("config")))
    return JSONResponse({"ok": True, "balance": st.balance, "drained": idle})


ROUTES = [
    Route("/_emulator/stats", stats, methods=["GET"]),
    Route("/_emulator/config", config, methods=["GET", "POST"]),
    Route("/_emulator/reset", reset, methods=["POST"]),
]
