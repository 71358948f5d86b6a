"""The MCP server (Streamable HTTP, stateless, JSON responses) exposing the data API as tools."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Optional

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.fastmcp.server import StreamableHTTPASGIApp

from emulator import dataapi
from emulator.errors import ApiError
from emulator.http_common import FORBIDDEN, data_key_ok
from emulator.state import EmulatorState

INSTRUCTIONS = (
    "Street-level data: map features, imagery frames, bursts, AI events and credits. "
    "Geometries are GeoJSON with [lon, lat] coordinates; a query area must be under 5 sq km."
)


def _call(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return fn()
    except ApiError as exc:
        raise ToolError(f"{exc.status}: {exc.message}") from None


def build_mcp(get_state: Callable[[], EmulatorState]) -> FastMCP:
    """Return a FastMCP server whose tools wrap the data API operations."""
    mcp = FastMCP(
        "street-level-data", instructions=INSTRUCTIONS, stateless_http=True,
        json_response=True, streamable_http_path="/api/developer/mcp", log_level="WARNING",
    )

    @mcp.tool()
    def get_balance() -> dict[str, Any]:
        """Remaining API credits."""
        return _call(lambda: dataapi.balance(get_state()))

    @mcp.tool()
    def get_map_features(polygon: dict[str, Any]) -> dict[str, Any]:
        """Map features (signs, lights, hydrants, lane lines) inside a GeoJSON polygon."""
        return _call(lambda: dataapi.map_features(get_state(), polygon))

    @mcp.tool()
    def get_latest_imagery(
        polygon: dict[str, Any], min_week: Optional[str] = None, headings: bool = False
    ) -> dict[str, Any]:
        """Most recent imagery frames inside a GeoJSON polygon."""
        return _call(lambda: dataapi.imagery_latest(get_state(), polygon, min_week, headings))

    @mcp.tool()
    def get_imagery_by_week(polygon: dict[str, Any], week: str) -> dict[str, Any]:
        """Imagery frames inside a GeoJSON polygon for the ISO week holding week (YYYY-MM-DD)."""
        return _call(lambda: dataapi.imagery_week(get_state(), polygon, week))

    @mcp.tool()
    def get_map_data(
        geometry: dict[str, Any], types: Optional[list[str]] = None,
        start_date: Optional[str] = None,
    ) -> dict[str, Any]:
        """Features and/or imagery for a Point (radius m), LineString (buffer m) or Polygon."""
        body: dict[str, Any] = {"geometry": geometry, "type": types or ["mapFeatures", "imagery"]}
        if start_date:
            body["startDate"] = start_date
        return _call(lambda: dataapi.map_data(get_state(), body))

    @mcp.tool()
    def create_burst(locations: list[dict[str, Any]]) -> dict[str, Any]:
        """Ask drivers to map places (GeoJSON Points or Polygons); charged when captured."""
        body = [loc if "geojson" in loc else {"geojson": loc} for loc in locations]
        return _call(lambda: dataapi.burst_create(get_state(), body))

    @mcp.tool()
    def list_bursts(limit: int = 100, skip: int = 0) -> dict[str, Any]:
        """Bursts and their status (isHit becomes true once mapped)."""
        return _call(lambda: dataapi.burst_list(get_state(), limit, skip))

    @mcp.tool()
    def search_ai_events(
        start_date: str, end_date: str, types: Optional[list[str]] = None,
        polygon: Optional[list[list[float]]] = None, limit: int = 100, offset: int = 0,
    ) -> dict[str, Any]:
        """AI driving events (harsh braking, speeding, ...) in a time range of up to 31 days."""
        body: dict[str, Any] = {"startDate": start_date, "endDate": end_date,
                                "limit": limit, "offset": offset}
        if types:
            body["types"] = types
        if polygon:
            body["polygon"] = polygon
        return _call(lambda: dataapi.aievents_search(get_state(), body))

    @mcp.tool()
    def get_ai_event(
        event_id: str, include_gnss: bool = False, include_imu: bool = False
    ) -> dict[str, Any]:
        """One AI event by id, optionally with its GNSS and IMU tracks."""
        return _call(lambda: dataapi.aievent_get(get_state(), event_id, include_gnss,
                                                 include_imu))

    @mcp.tool()
    def get_camera_intrinsics() -> dict[str, Any]:
        """Camera intrinsics per camera model (focal normalised by image width)."""
        return dataapi.devices()

    return mcp


class KeyedMcpApp:
    """ASGI endpoint that checks the data key (?apiKey= or header) before MCP handling."""

    def __init__(self, mcp: FastMCP, get_state: Callable[[], EmulatorState]):
        mcp.streamable_http_app()  # creates the session manager
        self.handler = StreamableHTTPASGIApp(mcp.session_manager)
        self.get_state = get_state

    async def __call__(self, scope, receive, send) -> None:
        """Serve one MCP HTTP request."""
        from urllib.parse import parse_qs

        query = parse_qs(scope.get("query_string", b"").decode())
        headers = dict(scope.get("headers", []))
        auth = headers.get(b"authorization", b"").decode() or None
        key = (query.get("apiKey") or [None])[0]
        if not data_key_ok(self.get_state().settings.data_key, auth, key):
            body = json.dumps({"error": FORBIDDEN}).encode()
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.handler(scope, receive, send)
