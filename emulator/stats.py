"""The request log behind GET /_emulator/stats."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

_ID_PATTERNS = (
    (re.compile(r"^/api/developer/aievents/(?!search$)[^/]+$"), "/api/developer/aievents/{id}"),
    (re.compile(r"^/api/developer/renew/.*$"), "/api/developer/renew/{url}"),
    (re.compile(r"^/files/([^/]+)/.*$"), r"/files/\1"),
)


def endpoint_key(method: str, path: str) -> str:
    """Stable log key of a request: method and path with ids collapsed."""
    for pattern, repl in _ID_PATTERNS:
        if pattern.match(path):
            path = pattern.sub(repl, path)
            break
    return f"{method} {path}"


class Stats:
    """Counts, statuses and credits per endpoint, plus in-flight concurrency."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything logged so far."""
        self.endpoints: dict[str, dict[str, Any]] = defaultdict(
            lambda: {"requests": 0, "statuses": defaultdict(int), "credits": 0}
        )
        self.total_requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.faults: dict[str, int] = defaultdict(int)
        self.credits_used = 0

    def begin(self) -> None:
        """Note a request entering the server."""
        self.in_flight += 1
        self.total_requests += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def end(self, key: str, status: int | None) -> None:
        """Note a request leaving the server with a status (None if dropped)."""
        self.in_flight = max(0, self.in_flight - 1)
        entry = self.endpoints[key]
        entry["requests"] += 1
        entry["statuses"][str(status) if status is not None else "dropped"] += 1

    def credits(self, key: str, amount: int) -> None:
        """Note credits charged by an endpoint."""
        self.endpoints[key]["credits"] += amount
        self.credits_used += amount

    def fault(self, kind: str) -> None:
        """Note an injected fault."""
        self.faults[kind] += 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready snapshot."""
        return {
            "total_requests": self.total_requests,
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
            "credits_used": self.credits_used,
            "faults": dict(self.faults),
            "endpoints": {
                k: {"requests": v["requests"], "statuses": dict(v["statuses"]),
                    "credits": v["credits"]}
                for k, v in sorted(self.endpoints.items())
            },
        }
