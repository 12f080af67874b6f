"""The next tidy-up run shown by the app and the CLI comes from the scheduler's state and is never
in the past (it used to say "Next run: 13:52" at 13:55)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from assistant.jobs import JobsStatus
from assistant.next_run import next_run

UTC = timezone.utc
ZONE = timezone(timedelta(hours=2))  # the person's local zone


def status(nightly: datetime | None, idle_in: float | None, hour: int | None = 3) -> JobsStatus:
    return JobsStatus(scheduler_running=True, running=False, running_trigger=None, pending_trigger=None,
                      last_run=None, next_nightly=nightly, next_idle_in=idle_in, idle_seconds=600.0,
                      check_interval=15.0, nightly_hour=hour)  # fmt: skip


def test_a_nightly_time_still_ahead_is_shown_as_it_is():
    now = datetime(2026, 3, 1, 1, 0, tzinfo=ZONE)
    nightly = datetime(2026, 3, 1, 3, 0, tzinfo=ZONE)
    assert next_run(status(nightly, None), now) == nightly


def test_a_nightly_time_that_has_passed_moves_to_the_next_one():
    # the scheduler's fire time read while it ran (or left from a suspend): 03:00 today, now 03:05
    now = datetime(2026, 3, 1, 3, 5, tzinfo=ZONE)
    stale = datetime(2026, 3, 1, 3, 0, tzinfo=ZONE)
    got = next_run(status(stale, None), now)
    assert got == datetime(2026, 3, 2, 3, 0, tzinfo=ZONE)  # 03:00 tomorrow, in the person's zone
    assert got > now
    # asked in UTC (01:05 UTC == 03:05 +02:00): the same instant
    assert next_run(status(stale, None), now.astimezone(UTC)) == got


def test_the_idle_run_counts_from_now_and_the_earlier_wins():
    now = datetime(2026, 3, 1, 13, 55, tzinfo=UTC)
    nightly = datetime(2026, 3, 2, 1, 0, tzinfo=UTC)
    # idle armed, 300 s left: 13:55 + 5 min = 14:00, before the 01:00 nightly
    assert next_run(status(nightly, 300.0), now) == datetime(2026, 3, 1, 14, 0, tzinfo=UTC)
    # idle due (0 s left, the next check runs it): now, not a moment in the past
    assert next_run(status(nightly, 0.0), now) == now
    # nightly off, idle not armed: nothing is scheduled
    assert next_run(status(None, None, hour=None), now) is None


def test_never_in_the_past_over_a_day_of_minutes():
    stale = datetime(2026, 3, 1, 3, 0, tzinfo=ZONE)
    for minutes in range(0, 24 * 60, 7):  # every 7th minute of the day after the stale time
        now = stale + timedelta(minutes=minutes)
        got = next_run(status(stale, None), now)
        assert now <= got <= now + timedelta(days=1) and (got.hour, got.minute) == (3, 0)
