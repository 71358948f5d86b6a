"""Persistent response cache, so a re-run or a resumed fetch spends no credit twice."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from typing import Any, Dict, Mapping, Optional, Tuple

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
    """JSON responses on disk in SQLite (WAL), safe to share between threads."""

    def __init__(self, path: str) -> None:
        self.path = str(path)
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
    def in_folder(cls, folder: str, name: str = "responses.sqlite") -> ResponseCache:
        """A cache stored as `name` inside folder."""
        return cls(os.path.join(folder, name))

    def get_entry(self, method: str, endpoint: str, body: Any = None,
                  params: Optional[Mapping[str, Any]] = None) -> Optional[Tuple[Any, float]]:
        """(response, fetched_at) for a request, or None."""
        key = cache_key(method, endpoint, body, params)
        with self._lock:
            row = self._db.execute("SELECT body, fetched_at FROM responses WHERE key = ?",
                                   (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0]), float(row[1])
        except ValueError:
            self.delete(method, endpoint, body, params)
            return None

    def get(self, method: str, endpoint: str, body: Any = None,
            params: Optional[Mapping[str, Any]] = None) -> Any:
        """The cached response of a request, or None."""
        entry = self.get_entry(method, endpoint, body, params)
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
        """Forget every response."""
        with self._lock:
            self._db.execute("DELETE FROM responses")

    def stats(self) -> Dict[str, int]:
        """Number of stored responses."""
        with self._lock:
            (n,) = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
        return {"entries": int(n)}

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
