"""Date texts the inspector shows (ui/format.py): a midnight-UTC value is a date, anything else
a local time. No widgets."""

from __future__ import annotations

from datetime import datetime, timezone

from ui.format import day, short_date, true_since


def test_midnight_utc_is_shown_as_its_utc_day():
    assert short_date("2024-05-01T00:00:00+00:00") == "2024-05-01"
    assert day(datetime(2024, 5, 1, tzinfo=timezone.utc)) == "2024-05-01"


def test_other_times_are_local():
    t = datetime(2024, 5, 1, 14, 30, tzinfo=timezone.utc)
    assert short_date(t) == t.astimezone().strftime("%Y-%m-%d %H:%M")
    assert day(t) == t.astimezone().strftime("%Y-%m-%d")


def test_nothing_gives_an_empty_text():
    assert short_date(None) == "" and day(None) == ""


def test_true_since_tells_a_stated_start_from_an_observed_one():
    said = datetime(2026, 12, 3, 0, 0, tzinfo=timezone.utc)
    assert true_since(datetime(2026, 11, 23, tzinfo=timezone.utc), "stated", said) == "2026-11-23"
    assert true_since(said, "observed", said) == "at least 2026-12-03"
    assert true_since(None, "observed", said) == "unknown (said 2026-12-03)"  # cleared by an earlier change
    assert true_since(None, None) == "not recorded"
