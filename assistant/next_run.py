"""When background tidying runs next, as the scheduler will run it: one answer for the app and
the CLI, never a time in the past."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from assistant.jobs import next_nightly


def next_run(status: Any, now: datetime) -> datetime | None:
    """The next run of the scheduler whose :class:`~assistant.jobs.JobsStatus` is ``status``,
    never before ``now`` (tz-aware)::

        nightly = status.next_nightly             if it is after now
                  the next nightly_hour:00 after now, in next_nightly's zone, otherwise
                  (a fire time read while it ran, or left over from a suspend)
        idle    = now + max(0, next_idle_in)      when the idle trigger is armed
        next    = min(nightly, idle)              None when neither is set

    e.g. now 13:55, next_nightly 13:00 today (hour 13), idle not armed -> 13:00 tomorrow;
    idle armed with next_idle_in = 300 s -> 13:55 + 5 min = 14:00."""
    nightly = status.next_nightly
    if nightly is not None and nightly <= now:
        hour = status.nightly_hour if status.nightly_hour is not None else nightly.hour
        nightly = next_nightly(hour, now.astimezone(nightly.tzinfo), tz=nightly.tzinfo)
    idle = now + timedelta(seconds=max(0.0, status.next_idle_in)) if status.next_idle_in is not None else None
    found = [t for t in (nightly, idle) if t is not None]
    return min(found) if found else None
