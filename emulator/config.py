"""Run-time knobs of the emulator, shared by the command line and the control API."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

FAULT_KINDS = ("500", "502", "503", "429", "403", "drop", "truncate", "html", "slow")

DEFAULT_PRICES = {"frame": 1, "feature": 1, "burst": 125, "aievent": 1}


@dataclasses.dataclass
class Settings:
    """Every knob of a running emulator; the control API edits a live instance."""

    port: int = 8765
    seed: int = 42
    fleet_key: str = "fleet-demo-key"
    data_key: str = "data-demo-key"
    balance: int = 1_000_000
    latency_ms: float = 0.0
    jitter_ms: float = 0.0
    fault_rate: float = 0.0
    fault_kinds: list[str] = dataclasses.field(default_factory=lambda: list(FAULT_KINDS))
    slow_body_s: float = 2.0
    rps_limit: float = 0.0
    url_lifetime_s: float = 900.0
    burst_hit_delay_s: float = 30.0
    burst_lifetime_s: float = 7 * 86400.0
    clock_offset_s: float = 0.0
    density: float = 1.0
    max_trip_days: int = 7
    max_area_km2: float = 5.0
    feature_credits_in_body: bool = False
    home_lon: float = 13.40
    home_lat: float = 52.52
    devices: int = 5
    prices: dict[str, int] = dataclasses.field(default_factory=lambda: dict(DEFAULT_PRICES))

    def to_dict(self) -> dict[str, Any]:
        """Return the knobs as a JSON-ready dict."""
        return dataclasses.asdict(self)

    def update(self, changes: dict[str, Any]) -> list[str]:
        """Apply known knobs from changes (type-coerced); return the names changed."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        changed = []
        for name, value in changes.items():
            if name not in fields:
                raise ValueError(f"unknown knob: {name}")
            current = getattr(self, name)
            if name == "prices":
                merged = dict(self.prices)
                merged.update({str(k): int(v) for k, v in dict(value).items()})
                value = merged
            elif name == "fault_kinds":
                value = _fault_kinds(value)
            elif isinstance(current, bool):
                # bool("false") is True; accept the spellings a query string or CLI would use.
                value = (value.strip().lower() in ("1", "true", "yes", "on")
                         if isinstance(value, str) else bool(value))
            elif isinstance(current, int):
                value = int(value)
            elif isinstance(current, float):
                value = float(value)
            elif isinstance(current, str):
                value = str(value)
            if name == "fault_rate" and not 0.0 <= value <= 1.0:
                raise ValueError("fault_rate must be within 0..1")
            setattr(self, name, value)
            changed.append(name)
        return changed


def _fault_kinds(value: Any) -> list[str]:
    kinds = value.split(",") if isinstance(value, str) else list(value)
    kinds = [str(k).strip() for k in kinds if str(k).strip()]
    unknown = [k for k in kinds if k not in FAULT_KINDS]
    if unknown:
        raise ValueError(f"unknown fault kinds {unknown}; known: {', '.join(FAULT_KINDS)}")
    return kinds


def build_parser() -> argparse.ArgumentParser:
    """Return the command-line parser of `python -m emulator`."""
    d = Settings()
    p = argparse.ArgumentParser(
        prog="python -m emulator",
        description="Local emulator of the fleet API and the street-level data API.",
    )
    p.add_argument("--port", type=int, default=d.port, help="TCP port; 0 picks a free one")
    p.add_argument("--seed", type=int, default=d.seed, help="seed of the procedural world")
    p.add_argument("--fleet-key", default=d.fleet_key, help="Bearer key of the fleet API")
    p.add_argument("--data-key", default=d.data_key, help="key of the data API")
    p.add_argument("--balance", type=int, default=d.balance, help="starting credit balance")
    p.add_argument("--latency-ms", type=float, default=d.latency_ms, help="added latency")
    p.add_argument("--jitter-ms", type=float, default=d.jitter_ms, help="random extra latency")
    p.add_argument("--fault-rate", type=float, default=d.fault_rate, help="0..1 fault share")
    p.add_argument(
        "--fault-kinds",
        default=",".join(d.fault_kinds),
        help=f"comma list out of {','.join(FAULT_KINDS)}",
    )
    p.add_argument("--slow-body-s", type=float, default=d.slow_body_s, help="slow-body duration")
    p.add_argument("--rps-limit", type=float, default=d.rps_limit, help="0 = unlimited")
    p.add_argument("--url-lifetime-s", type=float, default=d.url_lifetime_s)
    p.add_argument("--burst-hit-delay-s", type=float, default=d.burst_hit_delay_s)
    p.add_argument("--burst-lifetime-s", type=float, default=d.burst_lifetime_s)
    p.add_argument(
        "--clock-offset-s", type=float, default=d.clock_offset_s, help="shift simulated now"
    )
    p.add_argument("--density", type=float, default=d.density, help="object density multiplier")
    p.add_argument("--max-trip-days", type=int, default=d.max_trip_days)
    p.add_argument("--max-area-km2", type=float, default=d.max_area_km2)
    p.add_argument(
        "--feature-credits-in-body",
        action="store_true",
        help="add creditsUsed/creditsRemaining to /mapFeatures/poly answers (undocumented)",
    )
    p.add_argument("--home-lon", type=float, default=d.home_lon, help="fleet home longitude")
    p.add_argument("--home-lat", type=float, default=d.home_lat, help="fleet home latitude")
    p.add_argument("--devices", type=int, default=d.devices, help="number of fleet devices")
    for name, price in DEFAULT_PRICES.items():
        p.add_argument(f"--price-{name}", type=int, default=price, help=f"credits per {name}")
    p.add_argument("--prices", default=None, help='JSON object, e.g. {"frame": 2}')
    p.add_argument("--log-level", default="warning", help="uvicorn log level")
    return p


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Build Settings from parsed command-line arguments."""
    prices = {name: getattr(args, f"price_{name}") for name in DEFAULT_PRICES}
    if args.prices:
        prices.update({k: int(v) for k, v in json.loads(args.prices).items()})
    s = Settings()
    for f in dataclasses.fields(s):
        if f.name in ("prices", "fault_kinds"):
            continue
        setattr(s, f.name, getattr(args, f.name))
    s.fault_kinds = _fault_kinds(args.fault_kinds)
    s.prices = prices
    return s
