"""Persistent response cache, so a re-run or a resumed fetch spends no credit twice."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any, Dict, Mapping, Optional, Tuple
from urllib.parse import urlsplit

HOUR = 3600.0
DAY = 24 * HOUR

_SECRET_PARAMS = {"apikey", "api_key", "key", "token", "access_token"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    method TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    fetched_at REAL NOT NULL,
    body TEXT NOT NULL
)
"""


@dataclass(frozen=True)
class CacheLifetimes:
    """Seconds a cached answer stays valid, by endpoint; None means forever."""

    #: /imagery/poly for an ISO week that had ended when the answer was fetched.
    past_week_imagery: Optional[float] = None
    #: /imagery/poly fetched while its week was still running: new frames keep arriving.
    current_week_imagery: Optional[float] = HOUR
    #: /latest/poly; a day keeps a same-day resume after a cancel or crash free.
    latest_imagery: Optional[float] = DAY
    map_features: Optional[float] = DAY
    map_data: Optional[float] = DAY
    #: Any other endpoint.
    other: Optional[float] = DAY

    def for_request(self, endpoint: str, params: Optional[Mapping[str, Any]],
                    fetched_at: float) -> Optional[float]:
        """Lifetime of the answer to this request fetched at fetched_at (unix seconds)."""
        path = urlsplit(endpoint).path.rstrip("/")
        if path.endswith("/imagery/poly"):
            week_end = _week_end((params or {}).get("week"))
            if week_end is not None and fetched_at >= week_end:
                return self.past_week_imagery
            return self.current_week_imagery
        if path.endswith("/latest/poly"):
            return self.latest_imagery
        if path.endswith("/mapFeatures/poly"):
            return self.map_features
        if path.endswith("/map-data"):
            return self.map_data
        return self.other


def _week_end(week: Any) -> Optional[float]:
    """Unix time (UTC) at which the ISO week holding the date `week` ends."""
    try:
        day = date.fromisoformat(str(week)[:10])
    except ValueError:
        return None
    monday = day - timedelta(days=day.weekday())
    end = datetime.combine(monday + timedelta(days=7), datetime.min.time(), timezone.utc)
    return end.timestamp()


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal bodies give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def cache_key(method: str, endpoint: str, body: Any = None,
              params: Optional[Mapping[str, Any]] = None) -> str:
    """Digest of method, endpoint, canonical body and sorted query, keys left out."""
    query = sorted((str(k), str(v)) for k, v in (params or {}).items()
                   if v is not None and str(k).lower() not in _SECRET_PARAMS)
    text = "\n".join([method.upper(), endpoint.rstrip("/"),
                      canonical_json(body) if body is not None else "", canonical_json(query)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """JSON responses on disk in SQLite (WAL), safe to share between threads.

    Entries older than their endpoint's lifetime (see CacheLifetimes) are treated as absent.
    """

    def __init__(self, path: str, lifetimes: Optional[CacheLifetimes] = None) -> None:
        self.path = str(path)
        self.lifetimes = lifetimes or CacheLifetimes()
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0,
                                   isolation_level=None)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)

    @classmethod
    def in_folder(cls, folder: str, name: str = "responses.sqlite",
                  lifetimes: Optional[CacheLifetimes] = None) -> ResponseCache:
        """A cache stored as `name` inside folder."""
        return cls(os.path.join(folder, name), lifetimes)

    def get_entry(self, method: str, endpoint: str, body: Any = None,
                  params: Optional[Mapping[str, Any]] = None,
                  now: Optional[float] = None) -> Optional[Tuple[Any, float]]:
        """(response, fetched_at) for a request, or None if absent or expired."""
        key = cache_key(method, endpoint, body, params)
        with self._lock:
            row = self._db.execute("SELECT body, fetched_at FROM responses WHERE key = ?",
                                   (key,)).fetchone()
        if row is None:
            return None
        fetched_at = float(row[1])
        lifetime = self.lifetimes.for_request(endpoint, params, fetched_at)
        now = time.time() if now is None else now
        if lifetime is not None and now - fetched_at > lifetime:
            # Kept on disk: the next successful fetch replaces it.
            return None
        try:
            return json.loads(row[0]), fetched_at
        except ValueError:
            self.delete(method, endpoint, body, params)
            return None

    def get(self, method: str, endpoint: str, body: Any = None,
            params: Optional[Mapping[str, Any]] = None, now: Optional[float] = None) -> Any:
        """The cached response of a request, or None if absent or expired."""
        entry = self.get_entry(method, endpoint, body, params, now)
        return None if entry is None else entry[0]

    def put(self, method: str, endpoint: str, body: Any, params: Optional[Mapping[str, Any]],
            response: Any, fetched_at: Optional[float] = None) -> None:
        """Store the response of a successful request."""
        key = cache_key(method, endpoint, body, params)
        text = canonical_json(response)
        when = time.time() if fetched_at is None else fetched_at
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, method, endpoint, fetched_at, body) "
                "VALUES (?, ?, ?, ?, ?)", (key, method.upper(), endpoint, when, text))

    def delete(self, method: str, endpoint: str, body: Any = None,
               params: Optional[Mapping[str, Any]] = None) -> None:
        """Forget one request's response."""
        key = cache_key(method, endpoint, body, params)
        with self._lock:
            self._db.execute("DELETE FROM responses WHERE key = ?", (key,))

    def clear(self) -> None:
        """Forget every response and give the disk space back."""
        with self._lock:
            self._db.execute("DELETE FROM responses")
            # Deleted rows keep their pages until a vacuum; the WAL keeps them until a checkpoint.
            self._db.execute("VACUUM")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def size(self) -> Tuple[int, int]:
        """(entries, bytes on disk) of the cache, expired entries included."""
        with self._lock:
            (n,) = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
        total = 0
        for suffix in ("", "-wal", "-shm"):
            try:
                total += os.path.getsize(self.path + suffix)
            except OSError:
                continue
        return int(n), total

    def stats(self) -> Dict[str, int]:
        """Number of stored responses."""
        return {"entries": self.size()[0]}

    def __len__(self) -> int:
        return self.stats()["entries"]

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
