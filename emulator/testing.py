"""Start an emulator subprocess for tests, scripts and benchmarks."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from emulator.config import Settings

REPO_ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 30.0


def free_port() -> int:
    """Return a TCP port that is free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def knob_args(knobs: dict[str, Any]) -> list[str]:
    """Command-line flags for knobs (prices as --prices JSON, lists comma-joined)."""
    import json

    args: list[str] = []
    for name, value in knobs.items():
        flag = "--" + name.replace("_", "-")
        if name == "prices":
            args += ["--prices", json.dumps(value)]
        elif isinstance(value, bool):
            args += [flag] if value else []  # on/off knobs are store_true flags
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


@dataclasses.dataclass
class EmulatorHandle:
    """A running emulator: its addresses, keys and control methods."""

    port: int
    fleet_key: str
    data_key: str
    process: subprocess.Popen | None = None

    @property
    def root_url(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://127.0.0.1:{self.port}"

    @property
    def fleet_url(self) -> str:
        """Base URL of the fleet API (clients append /v1/...)."""
        return self.root_url

    @property
    def data_url(self) -> str:
        """Base URL of the data API."""
        return f"{self.root_url}/api/developer"

    @property
    def mcp_url(self) -> str:
        """URL of the MCP endpoint."""
        return f"{self.data_url}/mcp"

    def _admin(self, method: str, path: str, body: dict | None = None) -> dict:
        r = httpx.request(method, f"{self.root_url}/_emulator/{path}", json=body, timeout=30)
        r.raise_for_status()
        return r.json()

    def configure(self, **knobs: Any) -> dict:
        """Change knobs at run time; returns the whole configuration."""
        return self._admin("POST", "config", knobs)

    def config(self) -> dict:
        """Current knobs."""
        return self._admin("GET", "config")

    def stats(self) -> dict:
        """The request log."""
        return self._admin("GET", "stats")

    def reset(self, config: bool = False) -> dict:
        """Clear log, bursts and balance; with config=True also restore the startup knobs."""
        return self._admin("POST", "reset", {"config": config})

    def wait_idle(self, timeout_s: float = 10.0) -> bool:
        """Wait until no API request is in flight; True if it went idle within the time."""
        deadline = time.monotonic() + timeout_s
        while True:
            if self.stats()["in_flight"] == 0:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    def env(self) -> dict[str, str]:
        """Environment variables that point the plugin's headless clients here."""
        return {
            "FLEETSTREET_FLEET_URL": self.fleet_url,
            "FLEETSTREET_DATA_URL": self.data_url,
            "FLEETSTREET_FLEET_KEY": self.fleet_key,
            "FLEETSTREET_DATA_KEY": self.data_key,
            "FLEETSTREET_MCP_URL": self.mcp_url,
        }


@contextlib.contextmanager
def start_emulator(**knobs: Any) -> Iterator[EmulatorHandle]:
    """Run `python -m emulator` on a free port for the duration of the block."""
    knobs = dict(knobs)
    port = int(knobs.pop("port", 0)) or free_port()
    defaults = Settings()
    handle = EmulatorHandle(
        port=port,
        fleet_key=str(knobs.get("fleet_key", defaults.fleet_key)),
        data_key=str(knobs.get("data_key", defaults.data_key)),
    )
    env = dict(os.environ)
    env.setdefault("PROJ_DATA", "/usr/share/proj")
    cmd = [sys.executable, "-m", "emulator", "--port", str(port), *knob_args(knobs)]
    # A file, not a pipe: a full pipe nobody reads would stall the server's logging.
    with tempfile.TemporaryFile() as errfile:
        proc = subprocess.Popen(
            cmd, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=errfile
        )
        handle.process = proc
        try:
            _wait_ready(handle, proc, errfile)
            yield handle
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(handle: EmulatorHandle, proc: subprocess.Popen, errfile) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            errfile.seek(0)
            err = errfile.read().decode(errors="replace")
            raise RuntimeError(f"emulator exited with {proc.returncode}: {err[-2000:]}")
        try:
            httpx.get(f"{handle.root_url}/_emulator/config", timeout=1.0).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise RuntimeError(f"emulator did not answer on port {handle.port}")
