"""The live state of one emulator process: knobs, world, fleet, credits, bursts, log."""

from __future__ import annotations

import copy
import secrets
import time
from collections.abc import Callable

from emulator.aievents import AiEvents
from emulator.bursts import Bursts
from emulator.config import Settings
from emulator.errors import ApiError
from emulator.fleet import Fleet
from emulator.signing import Signer
from emulator.stats import Stats
from emulator.world import World

WORLD_KNOBS = {"seed", "density"}
FLEET_KNOBS = {"seed", "devices", "home_lon", "home_lat"}


class EmulatorState:
    """Everything a request handler needs; one instance per server."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.startup = copy.deepcopy(settings)
        self.signer = Signer(secrets.token_hex(16))
        self.stats = Stats()
        self.bursts = Bursts()
        self.balance = settings.balance
        #: Called after every reset (the fault layer reseeds its random stream here).
        self.on_reset: list[Callable[[], None]] = []
        self.base_url = f"http://127.0.0.1:{settings.port}"
        self._build(WORLD_KNOBS | FLEET_KNOBS)

    def _build(self, changed: set[str]) -> None:
        s = self.settings
        if changed & WORLD_KNOBS:
            self.world = World(s.seed, s.density)
        if changed & FLEET_KNOBS:
            self.fleet = Fleet(s.seed, s.devices, s.home_lon, s.home_lat)
            self.aievents = AiEvents(self.fleet)

    def now(self) -> float:
        """Simulated current time (wall clock plus the configured offset)."""
        return time.time() + self.settings.clock_offset_s

    def configure(self, changes: dict) -> None:
        """Apply knobs from the control API."""
        changes = dict(changes)
        changed = set(self.settings.update(changes))
        if "balance" in changed:
            self.balance = self.settings.balance
        self._build(changed)

    def reset(self, restore_config: bool = False) -> None:
        """Clear the log and bursts and restore the balance (and knobs if asked)."""
        if restore_config:
            port = self.settings.port
            self.settings = copy.deepcopy(self.startup)
            self.settings.port = port
            self._build(WORLD_KNOBS | FLEET_KNOBS)
        self.stats.reset()
        self.bursts = Bursts()
        self.balance = self.settings.balance
        for hook in self.on_reset:
            hook()

    def price(self, item: str) -> int:
        """Credits per item of a kind (frame, feature, burst, aievent)."""
        return int(self.settings.prices.get(item, 0))

    def charge(self, key: str, amount: int) -> None:
        """Take credits for a call or refuse it with a 402 when the balance cannot pay."""
        if amount > self.balance:
            raise ApiError(
                402, f"Insufficient credits: {amount} required, {self.balance} remaining"
            )
        self.balance -= amount
        self.stats.credits(key, amount)

    def sign(self, path: str) -> str:
        """Signed absolute URL of a served file."""
        return self.signer.sign(self.base_url, path, self.settings.url_lifetime_s)

    def refresh_bursts(self) -> None:
        """Advance burst states and charge the ones hit since the last look."""
        for b in self.bursts.refresh(self.now(), self.settings.burst_hit_delay_s):
            amount = min(b.record["credits"], self.balance)
            self.balance -= amount
            self.stats.credits("POST /api/developer/burst/create", amount)
