"""Connection settings of both APIs, readable from the environment for headless runs."""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import Mapping, Optional

from .errors import ValidationError

DEFAULT_USER_AGENT = "FleetStreet-QGIS/0.1"


@dataclass(frozen=True)
class ConnectionProfile:
    """Base URLs, keys and transport settings for the fleet and street-level data APIs."""

    fleet_url: str = ""
    data_url: str = ""
    mcp_url: str = ""
    fleet_key: str = field(default="", repr=False)
    data_key: str = field(default="", repr=False)
    timeout_s: float = 30.0
    concurrency: int = 4
    max_attempts: int = 6
    #: Base of the jittered exponential backoff between retries (seconds).
    backoff_base_s: float = 0.25
    proxy: Optional[str] = None
    cache_dir: Optional[str] = None
    max_trip_days: int = 7
    user_agent: str = DEFAULT_USER_AGENT

    def __post_init__(self) -> None:
        # Trailing slashes would double up when paths are appended.
        object.__setattr__(self, "fleet_url", (self.fleet_url or "").rstrip("/"))
        object.__setattr__(self, "data_url", (self.data_url or "").rstrip("/"))
        mcp = (self.mcp_url or "").rstrip("/")
        if not mcp and self.data_url:
            mcp = self.data_url + "/mcp"
        object.__setattr__(self, "mcp_url", mcp)
        if self.concurrency < 1:
            raise ValidationError("Concurrency must be at least 1")
        if self.max_attempts < 1:
            raise ValidationError("Max attempts must be at least 1")
        if self.timeout_s <= 0:
            raise ValidationError("Timeout must be positive")
        if not math.isfinite(self.backoff_base_s) or self.backoff_base_s < 0:
            raise ValidationError("Backoff must be a finite number of seconds, at least 0")

    @classmethod
    def from_env(cls, environ: Optional[Mapping[str, str]] = None) -> ConnectionProfile:
        """Build a profile from FLEETSTREET_* environment variables."""
        env = os.environ if environ is None else environ

        def num(name: str, kind: type, default: float) -> float:
            raw = env.get(name)
            if raw in (None, ""):
                return default
            try:
                return kind(raw)
            except ValueError:
                raise ValidationError(f"{name} must be a number, got {raw!r}") from None

        return cls(
            fleet_url=env.get("FLEETSTREET_FLEET_URL", ""),
            data_url=env.get("FLEETSTREET_DATA_URL", ""),
            mcp_url=env.get("FLEETSTREET_MCP_URL", ""),
            fleet_key=env.get("FLEETSTREET_FLEET_KEY", ""),
            data_key=env.get("FLEETSTREET_DATA_KEY", ""),
            concurrency=int(num("FLEETSTREET_CONCURRENCY", int, 4)),
            timeout_s=float(num("FLEETSTREET_TIMEOUT", float, 30.0)),
            max_attempts=int(num("FLEETSTREET_MAX_ATTEMPTS", int, 6)),
            backoff_base_s=float(num("FLEETSTREET_BACKOFF_S", float, 0.25)),
            cache_dir=env.get("FLEETSTREET_CACHE_DIR") or None,
        )

    def with_keys(self, fleet_key: Optional[str] = None,
                  data_key: Optional[str] = None) -> ConnectionProfile:
        """Return a copy with the given keys set (None keeps the current one)."""
        return dataclasses.replace(
            self,
            fleet_key=self.fleet_key if fleet_key is None else fleet_key,
            data_key=self.data_key if data_key is None else data_key,
        )

    def replace(self, **changes: object) -> ConnectionProfile:
        """Return a copy with the given fields changed."""
        if "data_url" in changes and "mcp_url" not in changes:
            old_default = self.data_url + "/mcp"
            if self.mcp_url == old_default:
                changes["mcp_url"] = ""
        return dataclasses.replace(self, **changes)
