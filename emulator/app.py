"""Assembly of the Starlette app: routes, error handling, MCP lifespan, fault layer."""

from __future__ import annotations

import contextlib

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from emulator import http_admin, http_data, http_files, http_fleet
from emulator.config import Settings
from emulator.errors import ApiError
from emulator.faults import FaultLayer
from emulator.http_common import error_response
from emulator.mcp_tools import KeyedMcpApp, build_mcp
from emulator.state import EmulatorState


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code)


async def _crash(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"error": f"Internal server error: {exc}"}, status_code=500)


def build_app(settings: Settings) -> FaultLayer:
    """Return the ASGI app of one emulator with the given knobs."""
    state = EmulatorState(settings)
    mcp = build_mcp(lambda: state)
    mcp_app = KeyedMcpApp(mcp, lambda: state)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        """Run the MCP session manager while the server runs."""
        async with mcp.session_manager.run():
            yield

    routes = [
        *http_fleet.ROUTES,
        *http_data.ROUTES,
        Route("/api/developer/mcp", mcp_app, methods=["GET", "POST", "DELETE"]),
        *http_files.ROUTES,
        *http_admin.ROUTES,
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={ApiError: _api_error, HTTPException: _http_error, Exception: _crash},
    )
    app.state.emulator = state
    return FaultLayer(app, state)
