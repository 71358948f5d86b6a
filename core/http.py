"""One pooled, thread-safe HTTP transport with bounded, jittered, cancellable retries."""

from __future__ import annotations

import json
import logging
import random
import re
import threading
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, Optional, Union

import httpx

from .cancel import CancelToken
from .errors import (
    AuthError,
    BadRequestError,
    FleetStreetError,
    InvalidResponseError,
    NetworkError,
    NotFoundError,
    OutOfCreditsError,
    RateLimitedError,
    ServerError,
    redact,
)
from .profile import ConnectionProfile

log = logging.getLogger(__name__)

RETRY_STATUSES = {429, 500, 502, 503, 504}
_THROTTLE_WORDS = re.compile(r"(?i)rate|throttl|too many|slow down|exceeded|try again")
_KEY_WORDS = re.compile(r"(?i)key|auth|token|credential|permission|signature|not allowed")
_CREDIT_WORDS = re.compile(r"(?i)credit|balance|insufficient funds|quota")
_TITLE = re.compile(r"(?is)<title[^>]*>(.*?)</title>")
_TAGS = re.compile(r"(?s)<[^>]+>")
_SPACES = re.compile(r"\s+")

Params = Optional[Mapping[str, Any]]

#: Failures that prove the request never reached the server, so even a POST that creates
#: something (bursts) or spends credits may be sent again.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
UNKNOWN_OUTCOME = ("The server may or may not have carried out the request (the outcome is "
                   "unknown), so it was not sent again")
_LOGGERS = ("httpx", "httpcore", "httpcore.connection", "httpcore.http11", "httpcore.http2",
            "httpcore.proxy", "httpcore.socks")


class RedactKeysFilter(logging.Filter):
    """Logging filter that blanks API keys in a record's message and arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record in place; never drops it."""
        # Redact the formatted text, not msg and args apart: a key may sit in either, and
        # editing the format string alone could break its placeholders.
        try:
            text = record.getMessage()
        except Exception:  # a broken record is logging's business, not ours
            return True
        cleaned = redact(text)
        if cleaned != text:
            record.msg, record.args = cleaned, ()
        return True


def install_log_redaction() -> None:
    """Put one RedactKeysFilter on the httpx and httpcore loggers (idempotent)."""
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        # Compare by class name: a plugin reload creates a new class object.
        if not any(type(f).__name__ == RedactKeysFilter.__name__ for f in logger.filters):
            logger.addFilter(RedactKeysFilter())


# httpx logs every request URL at INFO, and a key may travel in the query (?apiKey=).
install_log_redaction()


def describe_request(method: str, url: Union[str, httpx.URL]) -> str:
    """'METHOD url' with any key in the query redacted, for error messages."""
    return redact(f"{method.upper()} {url}") or ""


def server_message_of(response: httpx.Response) -> Optional[str]:
    """The server's own error text: JSON error/message, an HTML title, or a short body."""
    try:
        text = response.text
    except Exception:  # undecodable bodies still deserve a readable error
        return None
    if not text:
        return None
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        for name in ("error", "message", "detail", "errorMessage"):
            value = body.get(name)
            if isinstance(value, dict):
                value = value.get("message") or json.dumps(value)
            if value:
                return str(value)[:500]
        return None
    if isinstance(body, str):
        return body[:500]
    title = _TITLE.search(text)
    plain = title.group(1) if title else _TAGS.sub(" ", text)
    plain = _SPACES.sub(" ", plain).strip()
    return plain[:200] or None


def retry_after_seconds(value: Optional[str], now: Optional[datetime] = None) -> Optional[float]:
    """Seconds to wait from a Retry-After header (delta seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())


def classify_403(message: Optional[str]) -> str:
    """'credits', 'auth' or 'throttle' for a 403 answer, judged from its message."""
    msg = message or ""
    if _CREDIT_WORDS.search(msg):
        return "credits"
    if _KEY_WORDS.search(msg):
        return "auth"
    if _THROTTLE_WORDS.search(msg):
        return "throttle"
    # A bare 403 may be a CDN throttling or a key without rights: retry, then report auth.
    return "unknown"


def error_for(status: int, message: Optional[str], request: str) -> FleetStreetError:
    """The typed error for a final HTTP error status."""
    kw = {"status": status, "server_message": message, "request": request}
    if status == 400 or status == 422:
        return BadRequestError("The server rejected the request", **kw)
    if status == 401:
        return AuthError("The server refused the API key", **kw)
    if status == 402:
        return OutOfCreditsError("The account is out of credits", **kw)
    if status == 403:
        kind = classify_403(message)
        if kind == "credits":
            return OutOfCreditsError("The account is out of credits", **kw)
        if kind == "throttle":
            return RateLimitedError("The server kept refusing requests as too frequent", **kw)
        return AuthError("The server refused the API key", **kw)
    if status == 404:
        return NotFoundError("The server found nothing at this address", **kw)
    if status == 429:
        return RateLimitedError("The server kept refusing requests as too frequent", **kw)
    if status >= 500:
        return ServerError("The server failed to answer the request", **kw)
    return FleetStreetError("The request failed", **kw)


class HttpTransport:
    """Thread-safe wrapper over one pooled httpx.Client that retries what is worth retrying."""

    def __init__(
        self,
        profile: ConnectionProfile,
        cancel: Optional[CancelToken] = None,
        transport: Optional[httpx.BaseTransport] = None,
        *,
        backoff_base: Optional[float] = None,
        backoff_cap: float = 20.0,
        retry_after_cap: float = 60.0,
    ) -> None:
        self.profile = profile
        self.cancel = cancel or CancelToken()
        self.max_attempts = profile.max_attempts
        # An explicit backoff_base overrides the profile's (tests use tiny ones).
        self.backoff_base = profile.backoff_base_s if backoff_base is None else backoff_base
        self.backoff_cap = backoff_cap
        self.retry_after_cap = retry_after_cap
        self.on_retry: Optional[Callable[[str, int, str], None]] = None
        self._retries = 0
        self._lock = threading.Lock()
        pool = max(1, profile.concurrency) + 2
        kwargs: Dict[str, Any] = {
            # Threads beyond the pool size queue for a connection instead of timing out.
            "timeout": httpx.Timeout(profile.timeout_s, pool=None),
            "limits": httpx.Limits(max_connections=pool, max_keepalive_connections=pool),
            "headers": {"User-Agent": profile.user_agent, "Accept": "application/json"},
            "follow_redirects": True,
        }
        if transport is not None:
            kwargs["transport"] = transport
        elif profile.proxy:
            kwargs["proxy"] = profile.proxy
        self._client = httpx.Client(**kwargs)

    @property
    def retries(self) -> int:
        """How many retries this transport has made so far."""
        return self._retries

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def __enter__(self) -> HttpTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _backoff(self, attempt: int) -> float:
        # Full jitter: spreads retries of parallel workers apart.
        return random.uniform(0, min(self.backoff_cap, self.backoff_base * (2 ** attempt)))

    def _sleep(self, seconds: float, cancel: CancelToken) -> None:
        if cancel.wait(seconds):
            cancel.raise_if_cancelled()

    def _note_retry(self, request: str, attempt: int, reason: str) -> None:
        with self._lock:
            self._retries += 1
        log.debug("retrying %s (attempt %d): %s", request, attempt + 1, reason)
        if self.on_retry is not None:
            self.on_retry(request, attempt, reason)

    def request_json(self, method: str, url: str, **options: Any) -> Any:
        """Send a request and return its parsed JSON body, or raise the typed error.

        Options are those of `request` (params, json_body, headers, cancel, retry,
        idempotent, unknown_advice).
        """
        return self._send(method, url, want_json=True, **options)[1]

    def request(
        self,
        method: str,
        url: str,
        *,
        params: Params = None,
        json_body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        cancel: Optional[CancelToken] = None,
        retry: bool = True,
        idempotent: bool = True,
        unknown_advice: str = "",
    ) -> httpx.Response:
        """Send a request and return the successful response (body read), or raise."""
        return self._send(method, url, params=params, json_body=json_body, headers=headers,
                          cancel=cancel, retry=retry, want_json=False,
                          idempotent=idempotent, unknown_advice=unknown_advice)[0]

    def _send(self, method: str, url: str, *, want_json: bool, params: Params = None,
              json_body: Any = None, headers: Optional[Mapping[str, str]] = None,
              cancel: Optional[CancelToken] = None, retry: bool = True,
              idempotent: bool = True, unknown_advice: str = "") -> Any:
        # A non-idempotent request (one that creates or spends) is retried only when it
        # certainly had no effect: sending it again after a 5xx, a connection lost after
        # sending or a cut 2xx body could do the work twice.
        cancel = cancel or self.cancel
        attempts = self.max_attempts if retry else 1
        clean_params = {k: v for k, v in (params or {}).items() if v is not None}
        described = describe_request(method, httpx.URL(url, params=clean_params or None))
        last_error: Optional[FleetStreetError] = None
        for attempt in range(attempts):
            cancel.raise_if_cancelled()
            wait: Optional[float] = None
            try:
                response = self._client.request(
                    method, url, params=clean_params or None, json=json_body,
                    headers=dict(headers or {}),
                )
            except httpx.RequestError as exc:
                last_error = NetworkError(
                    f"Could not reach the server ({type(exc).__name__})", request=described)
                if not idempotent and not isinstance(exc, _NOT_SENT):
                    raise _unknown_outcome(last_error, unknown_advice) from None
            else:
                status = response.status_code
                if 200 <= status < 300:
                    if not want_json:
                        return response, None
                    try:
                        return response, _parse_json(response)
                    except ValueError:
                        last_error = InvalidResponseError(
                            "The server answered with a body that is not valid JSON",
                            status=status, server_message=_snippet(response), request=described)
                        if not idempotent:
                            raise _unknown_outcome(last_error, unknown_advice) from None
                else:
                    message = server_message_of(response)
                    last_error = error_for(status, message, described)
                    retryable = status in RETRY_STATUSES or (
                        status == 403 and classify_403(message) in ("throttle", "unknown"))
                    if not idempotent and retryable and status != 429:
                        # 429 is the one refusal that promises the request was not processed.
                        if status >= 500:
                            raise _unknown_outcome(last_error, unknown_advice)
                        raise last_error
                    if not retryable:
                        raise last_error
                    wait = retry_after_seconds(response.headers.get("Retry-After"))
            if attempt + 1 >= attempts:
                break
            self._pause_before_retry(attempt, wait, described, last_error, cancel)
        assert last_error is not None
        raise last_error

    def _pause_before_retry(self, attempt: int, retry_after: Optional[float], described: str,
                            error: Optional[FleetStreetError], cancel: CancelToken) -> None:
        """Back off (at least as long as the server's Retry-After allows) before a retry."""
        delay = self._backoff(attempt)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.retry_after_cap))
        self._note_retry(described, attempt, error.message if error else "")
        self._sleep(delay, cancel)

    def download(self, url: str, path: Union[str, Path], *,
                 cancel: Optional[CancelToken] = None) -> Path:
        """Stream url into path (atomically); a 403 is raised at once so the caller may renew."""
        cancel = cancel or self.cancel
        path = Path(path)
        described = describe_request("GET", url.split("?", 1)[0])
        last_error: Optional[FleetStreetError] = None
        for attempt in range(self.max_attempts):
            cancel.raise_if_cancelled()
            wait: Optional[float] = None
            tmp = path.with_name(path.name + ".part")
            try:
                with self._client.stream("GET", url, headers={"Accept": "*/*"}) as response:
                    status = response.status_code
                    if 200 <= status < 300:
                        with open(tmp, "wb") as fh:
                            for chunk in response.iter_bytes(65536):
                                if cancel.cancelled:
                                    break
                                fh.write(chunk)
                        if cancel.cancelled:
                            tmp.unlink(missing_ok=True)
                            cancel.raise_if_cancelled()
                        tmp.replace(path)
                        return path
                    response.read()
                    message = server_message_of(response)
                    last_error = error_for(status, message, described)
                    if status not in RETRY_STATUSES:
                        raise last_error
                    wait = retry_after_seconds(response.headers.get("Retry-After"))
            except httpx.RequestError as exc:
                tmp.unlink(missing_ok=True)
                last_error = NetworkError(
                    f"Could not download the file ({type(exc).__name__})", request=described)
            if attempt + 1 >= self.max_attempts:
                break
            self._pause_before_retry(attempt, wait, described, last_error, cancel)
        assert last_error is not None
        raise last_error


def _unknown_outcome(error: FleetStreetError, advice: str) -> FleetStreetError:
    """The same kind of error, saying that the request may have taken effect."""
    message = f"{error.message.rstrip('.')}. {UNKNOWN_OUTCOME}"
    if advice:
        message += f"; {advice}"
    fresh = type(error)(message, status=error.status, server_message=error.server_message,
                        request=error.request)
    fresh.outcome_unknown = True  # type: ignore[attr-defined]
    return fresh


def _parse_json(response: httpx.Response) -> Any:
    content = response.content
    if not content.strip():
        raise ValueError("empty body")
    return json.loads(content)


def _snippet(response: httpx.Response) -> Optional[str]:
    try:
        return server_message_of(response)
    except Exception:  # the body is already known to be bad; the status says enough
        return None


