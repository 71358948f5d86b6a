"""Deterministic hashing, random streams and time formatting shared by the emulator."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import struct

UTC = dt.timezone.utc


def hash_bytes(*parts: object) -> bytes:
    """Return a stable 16-byte digest of the given parts."""
    text = "\x1f".join(str(p) for p in parts)
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def hash_int(*parts: object) -> int:
    """Return a stable 64-bit integer derived from the given parts."""
    return struct.unpack("<Q", hash_bytes(*parts)[:8])[0]


def hash_unit(*parts: object) -> float:
    """Return a stable float in [0, 1) derived from the given parts."""
    return hash_int(*parts) / 2.0**64


def hash_hex(n_chars: int, *parts: object) -> str:
    """Return a stable lowercase hex string of n_chars characters."""
    out = ""
    salt = 0
    while len(out) < n_chars:
        out += hash_bytes(salt, *parts).hex()
        salt += 1
    return out[:n_chars]


def rng(*parts: object) -> random.Random:
    """Return a random stream seeded only by the given parts."""
    return random.Random(hash_int(*parts))


def iso_ms(t: dt.datetime | float) -> str:
    """Format a UTC instant as ISO 8601 with milliseconds and a Z suffix."""
    if not isinstance(t, dt.datetime):
        t = dt.datetime.fromtimestamp(t, UTC)
    t = t.astimezone(UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def parse_iso(text: str) -> dt.datetime:
    """Parse an ISO 8601 date or datetime; naive values are taken as UTC."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("empty date")
    s = text.strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    value = dt.datetime.fromisoformat(s)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def week_monday(day: dt.date) -> dt.date:
    """Return the Monday of the ISO week that contains day."""
    return day - dt.timedelta(days=day.weekday())


def epoch_ms(t: dt.datetime) -> int:
    """Return milliseconds since the Unix epoch."""
    return int(round(t.timestamp() * 1000))
