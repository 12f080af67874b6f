"""How a memory's dates are said to the person: one wording for the app (inspector, chat, forget
dialog), the CLI and the "From your memory" line, so "true since" reads the same everywhere.

A value at midnight UTC is a date (the person gave a day: its UTC day); anything else is a moment,
shown as its local day. A start is *stated* (the person said when: "since 2019", "last week") or
only *observed* (when it was said: true at least since then; issue 23):

    day(datetime(2026, 11, 23, tzinfo=UTC))                  -> "2026-11-23"
    true_since(datetime(2026, 11, 23, tzinfo=UTC), "stated")  -> "2026-11-23"
    true_since(said, "observed")                              -> "at least 2026-12-03"
    true_since(None, "observed", said)                        -> "unknown (said 2026-12-03)"
    true_since_phrase("2026-11-23T00:00:00+00:00")            -> "true since 2026-11-23"
    true_since_phrase(None)                                   -> ""
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

#: The label a start is shown under (the inspector's detail and column header, the CLI).
TRUE_SINCE = "True since"


def as_datetime(value: datetime | str | None) -> datetime | None:
    """An aware datetime from a datetime or an ISO text (naive: UTC); None when missing or unreadable."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


def day(value: datetime | str | None) -> str:
    """``2026-11-23``: the UTC day of a midnight-UTC value (a date), else the local day; "" for none."""
    dt = as_datetime(value)
    if dt is None:
        return ""
    utc = dt.astimezone(timezone.utc)
    if (utc.hour, utc.minute, utc.second) == (0, 0, 0):
        return utc.strftime("%Y-%m-%d")
    return dt.astimezone().strftime("%Y-%m-%d")


def true_since(valid_at: datetime | str | None, start_kind: str | None = None, said_at: datetime | str | None = None) -> str:
    """The value shown under "True since": the day (stated start), "at least <day>" (observed
    start), "unknown (said <day>)" (no start: an earlier change cleared it) or "not recorded"."""
    if as_datetime(valid_at) is None:
        return f"unknown (said {day(said_at)})" if as_datetime(said_at) is not None else "not recorded"
    return f"at least {day(valid_at)}" if start_kind == "observed" else day(valid_at)


def true_since_phrase(valid_at: datetime | str | None, start_kind: str | None = None) -> str:
    """The same inside a line about a memory: "true since 2026-11-23", "true since at least
    2026-12-03"; "" when it has no start (nothing to say)."""
    if as_datetime(valid_at) is None:
        return ""
    return f"true since {true_since(valid_at, start_kind)}"


def found_phrase(candidates: list[dict]) -> str:
    """What a forget found, as the chat notice and the app's dialog both say it: "1 memory and 1
    of your messages" -- the pre-ticked candidates, a message's kept copy (an episode) counted as
    your message, not as a memory of its own."""
    ticked = [c for c in candidates if c.get("pre_ticked")]
    said = sum(1 for c in ticked if c.get("kind") == "episode")
    memories = len(ticked) - said
    parts = [f"{memories} {'memory' if memories == 1 else 'memories'}"] if memories or not said else []
    if said:
        parts.append(f"{said} of your messages")
    return " and ".join(parts)


def clipped(text: str, n: int = 220) -> str:
    """``text`` on one line, cut to ``n`` characters with "…" (``n`` counts the ellipsis)."""
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def quoted(text: str, n: int = 140) -> str:
    """A part of a message in quotes, as the forget list, its preview and the CLI show it: the
    separator the cut began with is not part of what the person reads (", and we have a cat" ->
    “and we have a cat”)."""
    return "“" + clipped(text.lstrip(" ,;:–—-"), n) + "”"


_ISO_DAY = re.compile(r"\b(?P<y>\d{4})-(?P<m>0[1-9]|1[0-2])-(?P<d>0[1-9]|[12]\d|3[01])\b")
# the month names again (language.dates.MONTHS): this module is read by the window at start-up, and language.dates
# costs ~50 ms to import; calendar.month_name follows the locale
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                "November", "December")  # fmt: skip


def spoken_days(text: str) -> str:
    """A memory's text as a person reads it in an answer: a day capture wrote as ISO said as a day
    of a month ("Krill died on 2026-04-06." -> "Krill died on 6 April 2026."); the stored text and
    the inspector keep the ISO form."""
    return _ISO_DAY.sub(lambda m: f"{int(m['d'])} {_MONTH_NAMES[int(m['m']) - 1]} {m['y']}", text)
