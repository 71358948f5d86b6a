"""The error type that handlers raise and the app turns into a JSON error response."""

from __future__ import annotations


class ApiError(Exception):
    """An HTTP error with a status code and a message for the `error` field."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
