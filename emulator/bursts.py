"""Burst requests: created active, hit after a wall-clock delay, expired after their lifetime."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import numpy as np

from emulator import geometry, grid
from emulator.errors import ApiError
from emulator.util import hash_hex, iso_ms, rng
from emulator.world import DEVICES, Objects, sequence_frames

BURST_DRIVE_M = 400.0


class Burst:
    """One burst with its public record and, once hit, the frames captured for it."""

    def __init__(self, number: int, geojson: dict[str, Any], shape, price: int, now: float,
                 lifetime_s: float, created_by: str):
        self.number = number
        self.shape = shape
        self.created_wall = time.time()
        self.valid_until = now + lifetime_s
        self.frames = Objects.empty()
        self.record: dict[str, Any] = {
            "id": hash_hex(24, "burst", number, self.created_wall),
            "geojson": geojson,
            "createdBy": created_by,
            "validFrom": iso_ms(now),
            "validUntil": iso_ms(self.valid_until),
            "amount": price,
            "credits": price,
            "hash": hashlib.sha1(json.dumps(geojson, sort_keys=True).encode()).hexdigest(),
            "status": "active",
            "isHit": False,
        }

    def capture(self, now: float) -> None:
        """Make the frames a driver records while mapping the burst location."""
        c = self.shape.centroid
        if self.shape.geom_type == "Point":
            half = BURST_DRIVE_M / 2 / grid.metres_per_deg_lon(c.y)
            seg = (c.x - half, c.y, c.x + half, c.y, "burst")
        else:
            minx, _, maxx, _ = self.shape.bounds
            seg = (minx, c.y, maxx, c.y, "burst")
        r = rng("burst-frames", self.record["id"])
        seq = hash_hex(32, "burst-seq", self.record["id"])
        seq = f"{seq[:8]}-{seq[8:12]}-{seq[12:16]}-{seq[16:20]}-{seq[20:]}"
        recs = sequence_frames(seq, seg, now - 60.0, r.choice(DEVICES), r)
        self.frames = Objects(
            np.array([x[0]["position"]["lon"] for x in recs]),
            np.array([x[0]["position"]["lat"] for x in recs]),
            [x[0] for x in recs], [x[2] for x in recs], np.array([x[1] for x in recs]),
        )


class Bursts:
    """All bursts of the server's lifetime, in creation order."""

    def __init__(self) -> None:
        self.items: list[Burst] = []

    def create(self, body: Any, price: int, balance: int, now: float, lifetime_s: float,
               max_km2: float) -> list[Burst]:
        """Validate a /burst/create body and add its bursts."""
        if not isinstance(body, list) or not body:
            raise ApiError(400, 'Body must be a non-empty JSON array of {"geojson": geometry}')
        shapes = []
        for item in body:
            if not isinstance(item, dict) or "geojson" not in item:
                raise ApiError(400, 'Each burst must be an object {"geojson": Point or Polygon}')
            shape = geometry.parse_geometry(item["geojson"], ("Point", "Polygon"))
            if shape.geom_type == "Polygon":
                geometry.check_area(shape, max_km2)
            shapes.append((item["geojson"], shape))
        needed = price * len(shapes)
        if needed > balance:
            raise ApiError(402, f"Insufficient credits: {needed} required, {balance} remaining")
        made = [
            Burst(len(self.items) + k, gj, shape, price, now, lifetime_s, "api")
            for k, (gj, shape) in enumerate(shapes)
        ]
        self.items.extend(made)
        return made

    def refresh(self, now: float, hit_delay_s: float) -> list[Burst]:
        """Advance states; return the bursts hit just now (their credits are due)."""
        hit = []
        wall = time.time()
        for b in self.items:
            if b.record["status"] != "active":
                continue
            if wall >= b.created_wall + hit_delay_s and now <= b.valid_until:
                b.record["status"] = "completed"
                b.record["isHit"] = True
                b.capture(now)
                hit.append(b)
            elif now > b.valid_until:
                b.record["status"] = "expired"
                b.record["refundedCredits"] = b.record["credits"]
        return hit
