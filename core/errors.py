"""Typed errors raised by the core; every one reads as a sentence a user can act on."""

from __future__ import annotations

import re
from typing import Any, Optional

_KEY_QUERY = re.compile(r"(?i)(apikey=)[^&\s#'\"]*")
# Header dumps appear as "Authorization: Basic x", "'authorization': 'Bearer x'" or
# "(b'authorization', b'Basic x')" depending on who prints them.
_AUTH_VALUE = re.compile(
    r"(?i)(authorization[\"']?\s*[:=,]\s*(?:b?[\"'])?(?:(?:basic|bearer|token)\s+)?)"
    r"[^\s\"',)}\]]+")


def redact(text: Optional[str]) -> Optional[str]:
    """Return text with `apiKey=` query values and Authorization values replaced by ***."""
    if text is None:
        return None
    return _AUTH_VALUE.sub(r"\1***", _KEY_QUERY.sub(r"\1***", text))


class FleetStreetError(Exception):
    """Base of every error raised by the Fleet Street core."""

    advice = "Check the connection settings and try again."

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        server_message: Optional[str] = None,
        request: Optional[str] = None,
    ) -> None:
        self.message = message
        self.status = status
        self.server_message = redact(server_message)
        self.request = redact(request)
        super().__init__(self.__str__())

    def __str__(self) -> str:
        parts = [self.message.rstrip(".") + "."]
        if self.request:
            parts.append(f"Request: {self.request}.")
        if self.status is not None:
            parts.append(f"HTTP status {self.status}.")
        if self.server_message:
            parts.append(f"The server said: {self.server_message.rstrip('.')}.")
        if self.advice:
            parts.append(self.advice)
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, status={self.status!r})"


class AuthError(FleetStreetError):
    """The API key is missing, wrong or lacks permission."""

    advice = "Check the API key in the Fleet Street settings."


class BadRequestError(FleetStreetError):
    """The server rejected the request as invalid (HTTP 400)."""

    advice = "Check the query area (under 5 km², valid geometry) and the parameters."


class NotFoundError(FleetStreetError):
    """The requested object does not exist (HTTP 404)."""

    advice = "Check the identifier, or the base URL of the service."


class OutOfCreditsError(FleetStreetError):
    """The account has no credits left for this request."""

    advice = "Top up the account's credits or reduce the query area."


class RateLimitedError(FleetStreetError):
    """The server kept throttling requests after every retry."""

    advice = "Wait a minute, or lower the concurrency in the settings, and try again."


class ServerError(FleetStreetError):
    """The server failed (HTTP 5xx) after every retry."""

    advice = "The service may be down; try again later."


class NetworkError(FleetStreetError):
    """The server could not be reached or the connection dropped after every retry."""

    advice = "Check the network connection, the proxy and the base URL."


class FetchCancelled(FleetStreetError):
    """The user cancelled the operation."""

    advice = ""


class InvalidResponseError(FleetStreetError):
    """The server answered with a body that is not the expected JSON."""

    advice = "The service or a proxy in between returned an unexpected page; try again later."


class ValidationError(FleetStreetError):
    """The input was rejected before any request was sent."""

    advice = "Correct the input and try again."


class PartialFetchError(FleetStreetError):
    """Part of a multi-request fetch failed; `.result` holds what was fetched."""

    advice = "The data fetched so far is kept; run the fetch again to complete it."

    def __init__(self, message: str, *, result: Any = None, cause: Optional[BaseException] = None,
                 **kwargs: Any) -> None:
        self.result = result
        self.cause = cause
        if cause is not None and isinstance(cause, FleetStreetError):
            kwargs.setdefault("status", cause.status)
            kwargs.setdefault("server_message", cause.server_message)
            kwargs.setdefault("request", cause.request)
        super().__init__(message, **kwargs)

    def __str__(self) -> str:
        base = super().__str__()
        if self.cause is not None and not isinstance(self.cause, FleetStreetError):
            base += f" Cause: {redact(str(self.cause))}."
        elif isinstance(self.cause, FleetStreetError) and self.cause.message:
            base += f" Cause: {self.cause.message.rstrip('.')}."
        return base


class BudgetExceeded(PartialFetchError):
    """The next request would spend more credits than the budget allows; `.result` is kept."""

    advice = "Raise the credit budget or reduce the query area; the data fetched so far is kept."
