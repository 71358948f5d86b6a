"""Control API for tests and benchmarks under /_emulator (no key, never faulted)."""

from __future__ import annotations

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


async def reset(request: Request) -> JSONResponse:
    """POST /_emulator/reset: clear log, bursts and balance ({"config": true} restores knobs)."""
    st = state(request)
    raw = await request.body()
    body = await json_body(request) if raw.strip() else {}
    st.reset(restore_config=bool(isinstance(body, dict) and body.get("config")))
    return JSONResponse({"ok": True, "balance": st.balance})


ROUTES = [
    Route("/_emulator/stats", stats, methods=["GET"]),
    Route("/_emulator/config", config, methods=["GET", "POST"]),
    Route("/_emulator/reset", reset, methods=["POST"]),
]
