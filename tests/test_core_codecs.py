"""Polyline codec and ISO week arithmetic, checked with properties."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fleet_street.core import polyline_codec, weeks

coords = st.lists(st.tuples(st.floats(-180, 180, allow_nan=False),
                             st.floats(-90, 90, allow_nan=False)), max_size=30)
days = st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31))


def test_google_documented_example():
    decoded = polyline_codec.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@")
    expected = [(38.5, -120.2), (40.7, -120.95), (43.252, -126.453)]
    assert [(lat, lon) for lon, lat in decoded] == pytest.approx(expected)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(coords)
def test_polyline_round_trip(points):
    back = polyline_codec.decode(polyline_codec.encode(points))
    assert len(back) == len(points)
    for (x0, y0), (x1, y1) in zip(points, back):
        assert abs(x0 - x1) <= 1e-5 + 1e-9 and abs(y0 - y1) <= 1e-5 + 1e-9


@given(days)
def test_week_monday_matches_isocalendar(d):
    m = weeks.week_monday(d)
    assert m.isoweekday() == 1
    assert m.isocalendar()[:2] == d.isocalendar()[:2]
    assert 0 <= (d - m).days < 7


@pytest.mark.parametrize("d,monday", [(date(2020, 12, 31), date(2020, 12, 28)),
                                      (date(2021, 1, 3), date(2020, 12, 28)),
                                      (date(2026, 12, 31), date(2026, 12, 28)),
                                      (date(2027, 1, 1), date(2026, 12, 28))])
def test_year_boundaries(d, monday):
    assert weeks.week_monday(d) == monday


@given(days, st.integers(0, 120))
def test_weeks_between_touches_every_iso_week(start, span):
    end = start + timedelta(days=span)
    mondays = weeks.weeks_between(start, end)
    touched = {(start + timedelta(days=i)).isocalendar()[:2] for i in range(span + 1)}
    assert [m.isocalendar()[:2] for m in mondays] == sorted(touched)
    assert weeks.weeks_between(end, start) == mondays


@given(days)
def test_snap_to_monday(d):
    monday, note = weeks.snap_to_monday(d)
    assert monday == weeks.week_monday(d)
    assert (note is None) == (d.isoweekday() == 1)
