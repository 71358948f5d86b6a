"""Concurrent download of images and videos to a cache folder, renewing expired URLs once."""

from __future__ import annotations

import hashlib
import os
import re
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Callable, Dict, Iterable, Mapping, Optional, Tuple, Union
from urllib.parse import urlsplit

from .cancel import CancelToken
from .data_client import DataClient
from .errors import FetchCancelled, FleetStreetError, PartialFetchError
from .fetch import FetchProgress

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

UrlsWithNames = Union[Mapping[str, str], Iterable[Tuple[str, Optional[str]]]]


def file_name_for(url: str, name: Optional[str] = None) -> str:
    """A safe, stable file name for a URL (its own name, or one from its path)."""
    if name:
        return _UNSAFE.sub("_", name).strip("._") or "file"
    path = urlsplit(url).path
    base = _UNSAFE.sub("_", os.path.basename(path)) or "file"
    digest = hashlib.sha1(path.encode("utf-8")).hexdigest()[:10]
    stem, ext = os.path.splitext(base)
    return f"{stem[:60]}-{digest}{ext or '.jpg'}"


def _download_one(client: DataClient, url: str, target: Path, cancel: CancelToken) -> Path:
    if target.exists() and target.stat().st_size > 0:
        return target  # downloaded by an earlier run
    try:
        return client.http.download(url, target, cancel=cancel)
    except FleetStreetError as exc:
        if exc.status not in (401, 403):
            raise
    # Signed URLs expire: renew once through the API and try the fresh one.
    fresh = client.renew_url(url, cancel=cancel)
    return client.http.download(fresh, target, cancel=cancel)


def download_images(urls_with_names: UrlsWithNames, folder: Union[str, Path],
                    client: DataClient, concurrency: int = 4,
                    cancel: Optional[CancelToken] = None,
                    progress: Optional[Callable[[FetchProgress], None]] = None
                    ) -> Dict[str, str]:
    """Download each URL into folder (reusing files already there); returns url -> path."""
    cancel = cancel or client.cancel
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    items = list(urls_with_names.items()) if isinstance(urls_with_names, Mapping) \
        else [(u, n) for u, n in urls_with_names]
    todo: Dict[str, Path] = {}
    for url, name in items:
        if url and url not in todo:
            todo[url] = folder / file_name_for(url, name)
    done: Dict[str, str] = {}
    errors: Dict[str, FleetStreetError] = {}
    total = len(todo)
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency),
                              thread_name_prefix="fleetstreet-images")
    cancelled = False
    try:
        running = {pool.submit(_download_one, client, url, path, cancel): url
                   for url, path in todo.items()}
        while running:
            if cancel.cancelled:
                cancelled = True
                break
            finished, _ = wait(list(running), timeout=0.1, return_when=FIRST_COMPLETED)
            for fut in finished:
                url = running.pop(fut)
                try:
                    done[url] = str(fut.result())
                except FetchCancelled:
                    cancelled = True
                except FleetStreetError as exc:
                    errors[url] = exc
                if progress is not None:
                    progress(FetchProgress(len(done) + len(errors), total, len(done), 0.0,
                                           f"Downloaded {len(done)} of {total} files"))
    finally:
        pool.shutdown(wait=not cancelled, cancel_futures=True)
    if cancelled:
        raise FetchCancelled("The download was cancelled")
    if errors:
        first = next(iter(errors.values()))
        raise PartialFetchError(f"{len(errors)} of {total} files could not be downloaded",
                                result=done, cause=first)
    return done
