"""Minimal MCP client over Streamable HTTP: enough to check the server and list its tools."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from .cancel import CancelToken
from .errors import InvalidResponseError
from .http import HttpTransport

PROTOCOL_VERSION = "2025-03-26"


def _decode(response: Any) -> Optional[Dict[str, Any]]:
    """The JSON-RPC message of a plain JSON or server-sent-events answer."""
    ctype = response.headers.get("content-type", "")
    text = response.text
    if "text/event-stream" in ctype:
        for block in text.split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in block.splitlines()
                             if line.startswith("data:"))
            if not data:
                continue
            try:
                message = json.loads(data)
            except ValueError:
                continue
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return message
        return None
    if not text.strip():
        return None
    try:
        message = json.loads(text)
    except ValueError:
        raise InvalidResponseError("The MCP server answered with a body that is not JSON") \
            from None
    return message if isinstance(message, dict) else None


def list_tools(http: HttpTransport, mcp_url: str, key: str,
               cancel: Optional[CancelToken] = None) -> List[str]:
    """Initialize an MCP session at mcp_url and return the names of its tools."""
    params = {"apiKey": key}
    headers = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}

    def rpc(method: str, rid: Optional[int], params_: Dict[str, Any]) -> Optional[Dict]:
        body: Dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params_}
        if rid is not None:
            body["id"] = rid
        response = http.request("POST", mcp_url, params=params, json_body=body,
                                headers=headers, cancel=cancel)
        session = response.headers.get("mcp-session-id")
        if session:
            headers["Mcp-Session-Id"] = session
        if rid is None:
            return None
        message = _decode(response)
        if message is None:
            raise InvalidResponseError(f"The MCP server gave no answer to {method}")
        if "error" in message:
            err = message["error"]
            text = err.get("message") if isinstance(err, dict) else str(err)
            raise InvalidResponseError(f"The MCP server refused {method}",
                                       server_message=text)
        return message.get("result") or {}

    init = rpc("initialize", 1, {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "fleet-street", "version": "0.1"},
    })
    if init is not None and init.get("protocolVersion"):
        headers["Mcp-Protocol-Version"] = str(init["protocolVersion"])
    rpc("notifications/initialized", None, {})
    result = rpc("tools/list", 2, {}) or {}
    tools = result.get("tools")
    if not isinstance(tools, list):
        raise InvalidResponseError("The MCP server's tools/list answer has no tool list")
    return [str(t.get("name")) for t in tools if isinstance(t, dict) and t.get("name")]
