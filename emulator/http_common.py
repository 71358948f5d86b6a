"""Helpers shared by the HTTP route modules: JSON bodies, errors, auth checks."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from emulator.errors import ApiError
from emulator.state import EmulatorState

FORBIDDEN = "Forbidden (couldn't extract valid API key)"


def state(request: Request) -> EmulatorState:
    """The emulator state of the app serving a request."""
    return request.app.state.emulator


def error_response(exc: ApiError) -> JSONResponse:
    """JSON error body {"error": message} with the status of exc."""
    return JSONResponse({"error": exc.message}, status_code=exc.status, headers=exc.headers)


async def json_body(request: Request) -> Any:
    """Decoded JSON body or a 400."""
    raw = await request.body()
    if not raw.strip():
        raise ApiError(400, "Request body must be JSON")
    try:
        return json.loads(raw)
    except ValueError:
        raise ApiError(400, "Request body is not valid JSON") from None


def data_key_ok(key: str, authorization: str | None, api_key: str | None) -> bool:
    """Whether a request carries the data API key (Basic header or apiKey query)."""
    if api_key is not None and api_key == key:
        return True
    if not authorization:
        return False
    scheme, _, value = authorization.partition(" ")
    value = value.strip()
    if scheme.lower() not in ("basic", "bearer") or not value:
        return False
    if value == key:
        return True
    # Older keys are issued as base64("orgId:apiKey"); accept either encoding of ours.
    try:
        decoded = base64.b64decode(value, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return False
    return decoded == key or decoded.endswith(":" + key)


def require_data_key(request: Request) -> None:
    """Raise the 403 of the data API unless the request has the right key."""
    if not data_key_ok(
        state(request).settings.data_key,
        request.headers.get("authorization"),
        request.query_params.get("apiKey"),
    ):
        raise ApiError(403, FORBIDDEN)


def require_fleet_key(request: Request) -> None:
    """Raise a 401 unless the request has the fleet Bearer key."""
    auth = request.headers.get("authorization") or ""
    scheme, _, value = auth.partition(" ")
    if scheme.lower() != "bearer" or value.strip() != state(request).settings.fleet_key:
        raise ApiError(401, "Unauthorized: missing or invalid API key")


def flag(value: str | None) -> bool:
    """Truthiness of a query flag such as headings=true."""
    return (value or "").lower() in ("1", "true", "yes", "on")
