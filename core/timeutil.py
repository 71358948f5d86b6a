"""Parsing and formatting of the APIs' ISO 8601 timestamps, always timezone-aware UTC."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from typing import Any, Optional

_FRACTION = re.compile(r"\.(\d+)")
_ZERO = timedelta(0)


def parse_datetime(value: Any) -> Optional[datetime]:
    """Parse an ISO 8601 string or epoch number into an aware UTC datetime (None if absent)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # Epoch values above 1e11 are milliseconds (year 5138 in seconds).
        seconds = value / 1000.0 if abs(value) > 1e11 else float(value)
        return datetime.fromtimestamp(seconds, tz=timezone.utc)
    text = str(value).strip()
    try:  # Python 3.11+ reads the APIs' "…sssZ" directly: the fast path
        parsed = datetime.fromisoformat(text)
    except ValueError:
        pass
    else:
        if parsed.tzinfo is None:
            return parsed.replace(tzinfo=timezone.utc)
        return parsed if parsed.utcoffset() == _ZERO else parsed.astimezone(timezone.utc)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    # Python 3.9's fromisoformat accepts only 3 or 6 fraction digits.
    text = _FRACTION.sub(lambda m: "." + (m.group(1) + "000000")[:6], text, count=1)
    if " " in text and "T" not in text:
        text = text.replace(" ", "T", 1)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def parse_date(value: Any) -> Optional[date]:
    """Parse YYYY-MM-DD (or a datetime string) into a date (None if absent or unreadable)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        return None


def to_utc(value: Any, *, end_of_day: bool = False) -> datetime:
    """Turn a date, datetime or ISO string into an aware UTC datetime; naive means UTC."""
    if isinstance(value, datetime):
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else \
            value.astimezone(timezone.utc)
    if isinstance(value, date):
        if end_of_day:
            return datetime(value.year, value.month, value.day, 23, 59, 59, 999000,
                            tzinfo=timezone.utc)
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if isinstance(value, str):
        if len(value.strip()) == 10:
            d = parse_date(value)
            if d is not None:
                return to_utc(d, end_of_day=end_of_day)
        parsed = parse_datetime(value)
        if parsed is not None:
            return parsed
    raise ValueError(f"not a date or ISO 8601 datetime: {value!r}")


def iso_z(value: datetime) -> str:
    """Format as the APIs expect: UTC with milliseconds and a Z suffix."""
    value = to_utc(value)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
