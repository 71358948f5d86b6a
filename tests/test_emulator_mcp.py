"""The MCP endpoint, exercised with the official SDK client."""

from __future__ import annotations

import asyncio
import json

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

BOX = {"type": "Polygon", "coordinates": [[[13.39, 52.51], [13.40, 52.51], [13.40, 52.515],
                                           [13.39, 52.515], [13.39, 52.51]]]}


async def _session_calls(url: str):
    async with streamablehttp_client(url) as (read, write, _), ClientSession(read, write) as s:
        await s.initialize()
        tools = await s.list_tools()
        balance = await s.call_tool("get_balance", {})
        feats = await s.call_tool("get_map_features", {"polygon": BOX})
        bad = await s.call_tool("get_map_features", {"polygon": {"type": "Polygon"}})
        cams = await s.call_tool("get_camera_intrinsics", {})
        return tools, balance, feats, bad, cams


def test_mcp_tools(emulator):
    url = f"{emulator.mcp_url}?apiKey={emulator.data_key}"
    tools, balance, feats, bad, cams = asyncio.run(_session_calls(url))
    names = {t.name for t in tools.tools}
    assert {"get_balance", "get_map_features", "get_latest_imagery", "get_imagery_by_week",
            "get_map_data", "create_burst", "list_bursts", "search_ai_events", "get_ai_event",
            "get_camera_intrinsics"} <= names
    assert json.loads(balance.content[0].text) == {"balance": 1_000_000}
    data = json.loads(feats.content[0].text)
    # The documented /mapFeatures/poly answer carries the features only.
    assert data["features"] and set(data) == {"features"}
    assert bad.isError and "400" in bad.content[0].text
    assert set(json.loads(cams.content[0].text)) == {"hdc", "hdc-s", "bee"}


def test_mcp_needs_key(emulator):
    r = httpx.post(emulator.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                   headers={"Accept": "application/json, text/event-stream"})
    assert r.status_code == 403
    assert r.json() == {"error": "Forbidden (couldn't extract valid API key)"}
