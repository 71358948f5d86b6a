"""Outermost ASGI layer: request log, rate limit, injected latency and injected faults.

It wraps the whole app (not as a Starlette middleware) so that it sees the server's own
`send`, which lets a "drop" fault close the socket without any response.
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
import time

from emulator.state import EmulatorState
from emulator.stats import endpoint_key

HTML_PAGE = (
    b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>"
    b"<h1>502 Bad Gateway</h1><p>The request could not be satisfied.</p>"
    b"<hr><p>Served by the edge cache</p></body></html>"
)


async def _send_simple(send, status: int, body: bytes, ctype: bytes, extra=()) -> None:
    headers = [(b"content-type", ctype), (b"content-length", str(len(body)).encode())]
    headers += list(extra)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_json(send, status: int, obj, extra=()) -> None:
    await _send_simple(send, status, json.dumps(obj).encode(), b"application/json", extra)


class FaultLayer:
    """Wraps the app; admin paths under /_emulator pass straight through."""

    def __init__(self, app, state: EmulatorState):
        self.app = app
        self.state = state
        self.random = random.Random(state.settings.seed)
        self.window: collections.deque[float] = collections.deque()
        # Reseed on every reset so fault patterns do not depend on what ran before.
        state.on_reset.append(self.reseed)

    def reseed(self) -> None:
        """Restart the fault and jitter stream from the world seed and clear the rate window."""
        self.random = random.Random(self.state.settings.seed)
        self.window.clear()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/_emulator"):
            await self.app(scope, receive, send)
            return
        st = self.state
        key = endpoint_key(scope["method"], scope["path"])
        status: list[int | None] = [None]

        async def logged_send(message) -> None:
            """Pass a message on, noting the status."""
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        st.stats.begin()
        try:
            await self._handle(scope, receive, send, logged_send)
        finally:
            st.stats.end(key, status[0])

    def _over_rate(self) -> bool:
        limit = self.state.settings.rps_limit
        if limit <= 0:
            return False
        now = time.monotonic()
        while self.window and self.window[0] <= now - 1.0:
            self.window.popleft()
        if len(self.window) >= limit:
            return True
        self.window.append(now)
        return False

    async def _handle(self, scope, receive, raw_send, send) -> None:
        s = self.state.settings
        if self._over_rate():
            await _send_json(send, 429, {"error": "Too Many Requests"}, [(b"retry-after", b"1")])
            return
        delay = s.latency_ms + (self.random.uniform(0, s.jitter_ms) if s.jitter_ms > 0 else 0)
        if delay > 0:
            await asyncio.sleep(delay / 1000.0)
        if s.fault_rate > 0 and s.fault_kinds and self.random.random() < s.fault_rate:
            kind = self.random.choice(s.fault_kinds)
            self.state.stats.fault(kind)
            await self._fault(kind, scope, receive, raw_send, send)
            return
        await self.app(scope, receive, send)

    async def _fault(self, kind: str, scope, receive, raw_send, send) -> None:
        if kind in ("500", "502", "503"):
            await _send_json(send, int(kind), {"error": "Internal server error"})
        elif kind == "429":
            await _send_json(send, 429, {"error": "Too Many Requests"}, [(b"retry-after", b"1")])
        elif kind == "403":
            await _send_json(send, 403, {"error": "Rate exceeded"})
        elif kind == "html":
            await _send_simple(send, 502, HTML_PAGE, b"text/html")
        elif kind == "drop":
            await _drop(raw_send)
        elif kind == "truncate":
            await self._truncated(scope, receive, send)
        elif kind == "slow":
            await self._slow(scope, receive, send)

    async def _capture(self, scope, receive):
        """Run the app and collect its whole response."""
        start: dict = {}
        chunks: list[bytes] = []

        async def collect(message) -> None:
            """Keep a message instead of sending it."""
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, collect)
        return start, b"".join(chunks)

    async def _truncated(self, scope, receive, send) -> None:
        start, body = await self._capture(scope, receive)
        cut = body[: max(1, len(body) // 2)]
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(cut)).encode()))
        await send({"type": "http.response.start", "status": start.get("status", 200),
                    "headers": headers})
        await send({"type": "http.response.body", "body": cut})

    async def _slow(self, scope, receive, send) -> None:
        start, body = await self._capture(scope, receive)
        await send(start)
        pieces = 10
        step = max(1, -(-len(body) // pieces))
        for k in range(0, len(body), step):
            await asyncio.sleep(self.state.settings.slow_body_s / pieces)
            await send({"type": "http.response.body", "body": body[k:k + step], "more_body": True})
        await send({"type": "http.response.body", "body": b""})


async def _drop(raw_send) -> None:
    """Close the connection without a response."""
    transport = getattr(getattr(raw_send, "__self__", None), "transport", None)
    if transport is not None:
        transport.abort()
        # Let the server see the lost connection so it does not try to answer.
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return
    raise ConnectionAbortedError("injected dropped connection")
