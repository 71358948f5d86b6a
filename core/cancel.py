"""A thread-safe cancellation flag shared between the caller and worker threads."""

from __future__ import annotations

import threading

from .errors import FetchCancelled


class CancelToken:
    """Thread-safe flag a user action sets to stop work in progress."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask every holder of this token to stop."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once cancel() was called."""
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        """Raise FetchCancelled if cancel() was called."""
        if self._event.is_set():
            raise FetchCancelled("The operation was cancelled")

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, returning early (True) if cancelled meanwhile."""
        if seconds <= 0:
            return self._event.is_set()
        return self._event.wait(seconds)
