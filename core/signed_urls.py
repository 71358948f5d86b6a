"""Expiry of signed image and video URLs, and renewing the stale ones inside a JSON body."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any, Callable, List, Optional
from urllib.parse import parse_qs, urlsplit

#: Treat a URL as stale this long before it actually expires, so a download can still start.
EXPIRY_MARGIN_S = 120.0
#: Lifetime assumed for signed URLs whose expiry cannot be read.
UNKNOWN_TTL_S = 15 * 60.0
URL_FIELDS = ("url", "videoUrl", "video_url", "imageUrl")


def url_expiry(url: str) -> Optional[float]:
    """Unix time a signed URL expires, or None if its format is unknown."""
    try:
        query = {k.lower(): v[0] for k, v in parse_qs(urlsplit(url).query).items() if v}
    except ValueError:
        return None
    if "expires" in query:
        try:
            return float(query["expires"])
        except ValueError:
            return None
    if "x-amz-date" in query and "x-amz-expires" in query:
        try:
            start = datetime.strptime(query["x-amz-date"], "%Y%m%dT%H%M%SZ")
            return start.replace(tzinfo=timezone.utc).timestamp() + float(query["x-amz-expires"])
        except ValueError:
            return None
    return None


def is_stale(url: str, fetched_at: float, now: Optional[float] = None) -> bool:
    """True if the URL has expired, or will within the margin, or is of unknown age past TTL."""
    now = time.time() if now is None else now
    expiry = url_expiry(url)
    if expiry is None:
        expiry = fetched_at + UNKNOWN_TTL_S
    return expiry - EXPIRY_MARGIN_S <= now


def signed_url_slots(body: Any) -> List[tuple]:
    """(container, key) pairs of every URL field in a JSON body."""
    slots: List[tuple] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in URL_FIELDS and isinstance(value, str) and value.startswith("http"):
                    slots.append((node, key))
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(body)
    return slots


def renew_stale(body: Any, fetched_at: float, renew: Callable[[str], str],
                now: Optional[float] = None, workers: int = 4) -> int:
    """Replace stale URLs in body (in place) using renew(); returns how many were renewed."""
    stale = [(node, key) for node, key in signed_url_slots(body)
             if is_stale(node[key], fetched_at, now)]
    if not stale:
        return 0
    if workers <= 1 or len(stale) == 1:
        for node, key in stale:
            node[key] = renew(node[key])
        return len(stale)
    from concurrent.futures import ThreadPoolExecutor

    # One renewal per URL: run them side by side, the first failure propagates.
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fleetstreet-renew") as pool:
        fresh = list(pool.map(lambda slot: renew(slot[0][slot[1]]), stale))
    for (node, key), url in zip(stale, fresh):
        node[key] = url
    return len(stale)
