"""ISO weeks: the imagery history is organised by week, each named by its Monday."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import List, Optional, Tuple, Union

DateLike = Union[date, datetime]


def _as_date(d: DateLike) -> date:
    return d.date() if isinstance(d, datetime) else d


def week_monday(d: DateLike) -> date:
    """Monday of the ISO week containing d."""
    d = _as_date(d)
    return d - timedelta(days=d.weekday())


def weeks_between(start: DateLike, end: DateLike) -> List[date]:
    """Mondays of every ISO week touched by the inclusive range [start, end]."""
    start, end = _as_date(start), _as_date(end)
    if end < start:
        start, end = end, start
    monday, last = week_monday(start), week_monday(end)
    out = []
    while monday <= last:
        out.append(monday)
        monday += timedelta(days=7)
    return out


def snap_to_monday(d: DateLike) -> Tuple[date, Optional[str]]:
    """Snap d to its week's Monday; the note says what changed (None if d was a Monday)."""
    d = _as_date(d)
    monday = week_monday(d)
    if monday == d:
        return monday, None
    return monday, (f"{d.isoformat()} is a {d.strftime('%A')}; "
                    f"using the Monday of its week, {monday.isoformat()}")
