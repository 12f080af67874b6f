"""Bi-temporal interval algebra: which of two contradicting facts stops being current, and when.

Pure: ``now`` is passed in, inputs are never mutated; decisions come back as
:class:`TemporalChange` values for the consolidator to apply (as new versions, audited).

Each fact has world time ``valid_at`` / ``invalid_at`` (when it was true) and system time
``created_at`` / ``expired_at`` (when Keepsake believed it). World times may be ``date`` or
timezone-aware ``datetime``; a ``date`` means midnight UTC of that day for comparisons.
Naive datetimes raise ``ValueError``.

Two kinds of start: a *stated* start is a date the person gave ("since 2019", "last week"); an
*observed* start is only when it was said (``start_kind`` "observed", or ``valid_at`` equal to
``observed_at``): the fact was true *at least* since then, maybe long before.

:func:`resolve` decides a contradiction between an existing fact ``old`` and a ``new`` one
(docs/DESIGN.md §8 with issue 23), first rule that applies wins:

1. ``old.invalid_at <= new.start``     -> no conflict (old had already ended).
2. ``new.invalid_at <= old.start``     -> no conflict (new had ended before old began).
3. no start on ``new`` (or none on ``old`` against an ended ``new``) -> nothing decided.
4. a ``past`` fact (an explicitly past statement: "In 2019 I lived in Lagos") never retires a
   current one, whichever was said first: it is historical (ends at the other's start) when
   the other starts later, else nothing is decided.
5. both starts stated               -> the later start wins: ``old.start < new.start`` supersedes
   (``old.invalid_at = new.start``), ``old.start > new.start`` makes ``new`` historical
   (``new.invalid_at = old.start``), equal starts decide nothing (a correction or a duplicate).
6. an observed start on either side -> the one *said* later wins (``said`` = ``observed_at``,
   else ``created_at``; a tie goes to ``new``) and the loser ends at the winner's start. An
   observed start is only a bound, so it never makes a later-said change historical:
   "I live in Ghent" (observed 3 Dec) then "I moved to Antwerp last week" (stated 23 Nov) ends
   Ghent on 23 Nov. The loser's observed start may then lie after its end: the change says
   ``clear_start`` (its start becomes unknown; when it was said stays in its sources).

An old fact with no start at all counts as "since forever": it loses to a dated, open-ended new
fact. A missing ``invalid_at`` means open-ended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timezone
from enum import Enum
from typing import Any, Literal

When = date | datetime  # a datetime is a date subclass; both are accepted for world time


class Rule(str, Enum):
    OLD_ENDED = "old ended before new began (rule 1: no conflict)"
    NEW_ENDED = "new ended before old began (rule 2: no conflict)"
    SUPERSEDED = "new fact supersedes old (rule 3: old invalidated at new.valid_at)"
    NEW_IS_HISTORICAL = "old starts later: new fact is historical (invalidated at old.valid_at)"
    SAME_START = "same start: correction or duplicate, not decided by interval algebra"
    UNDATED = "not enough dates to order the two facts: nothing decided"


@dataclass(frozen=True)
class FactTimes:
    """The time fields of one memory record, as the algebra sees them."""

    id: int | str
    valid_at: When | None = None
    invalid_at: When | None = None
    created_at: datetime | None = None
    expired_at: datetime | None = None
    observed_at: When | None = None
    start_kind: str | None = None  # "stated" | "observed"; None: observed iff valid_at == observed_at
    past: bool = False  # an explicitly past statement ("In 2019 I lived in Lagos")

    @classmethod
    def of(cls, record: Any, observed_at: When | None = None) -> "FactTimes":
        """From any object with these attributes (e.g. a ``Memory``; missing ones are None).
        ``observed_at`` overrides the record's (a Memory keeps it in its sources)."""
        names = ("valid_at", "invalid_at", "created_at", "expired_at", "observed_at", "start_kind")
        values = {n: getattr(record, n, None) for n in names}
        if observed_at is not None:
            values["observed_at"] = observed_at
        return cls(record.id, **values)


@dataclass(frozen=True)
class TemporalChange:
    """Set ``invalid_at`` and ``expired_at`` on record ``record_id`` (``target`` old/new)."""

    target: Literal["old", "new"]
    record_id: int | str
    invalid_at: When
    expired_at: datetime
    rule: Rule
    clear_start: bool = False  # the record's observed start lies after ``invalid_at``: unknown now

    @property
    def reason(self) -> str:
        return self.rule.value


def instant(value: When) -> datetime:
    """Comparable UTC instant: a ``date`` is midnight UTC; a naive ``datetime`` is an error."""
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: world/system times must be tz-aware")
        return value.astimezone(timezone.utc)
    return datetime.combine(value, time.min, tzinfo=timezone.utc)


def _start(fact: FactTimes) -> datetime | None:
    """A stated start as given; an observed one is "true at least since it was first said", so
    the earliest observation counts (a record an earlier message said again)."""
    value = fact.valid_at if fact.valid_at is not None else fact.observed_at
    if value is None:
        return None
    if fact.valid_at is not None and fact.observed_at is not None and not stated(fact):
        return min(instant(value), instant(fact.observed_at))
    return instant(value)


def stated(fact: FactTimes) -> bool:
    """Whether the fact's start was stated by the person (not only when it was said)."""
    if fact.valid_at is None:
        return False
    if fact.start_kind is not None:
        return fact.start_kind == "stated"
    return fact.observed_at is None or instant(fact.valid_at) != instant(fact.observed_at)


def said(fact: FactTimes) -> datetime | None:
    """When the fact was said (its observation), else when Keepsake learned it."""
    value = fact.observed_at if fact.observed_at is not None else fact.created_at
    return None if value is None else instant(value)


def decide(old: FactTimes, new: FactTimes) -> Rule:
    """Which rule of the table applies to ``old`` vs ``new`` (see the module docstring)."""
    old_start, new_start = _start(old), _start(new)
    old_end = None if old.invalid_at is None else instant(old.invalid_at)
    new_end = None if new.invalid_at is None else instant(new.invalid_at)
    if old_end is not None and new_start is not None and old_end <= new_start:
        return Rule.OLD_ENDED
    if new_end is not None and old_start is not None and new_end <= old_start:
        return Rule.NEW_ENDED
    if new_start is None or (old_start is None and new.invalid_at is not None):
        return Rule.UNDATED
    if old_start is None:
        return Rule.SUPERSEDED
    if new.past and not old.past:
        return Rule.NEW_IS_HISTORICAL if old_start > new_start else Rule.UNDATED
    if old.past and not new.past:
        return Rule.SUPERSEDED if new_start > old_start else Rule.UNDATED
    if stated(old) and stated(new):
        if old_start < new_start:
            return Rule.SUPERSEDED
        return Rule.NEW_IS_HISTORICAL if old_start > new_start else Rule.SAME_START
    if old_start == new_start and stated(old) == stated(new):
        return Rule.SAME_START
    said_old, said_new = said(old), said(new)
    if said_old is not None and said_new is not None and said_old > said_new:
        # old was said later (imported out of order): old wins, unless new states a start at
        # or after old's (a plan said early): then nothing is decided
        return Rule.SAME_START if stated(new) and new_start >= old_start else Rule.NEW_IS_HISTORICAL
    return Rule.SAME_START if stated(old) and old_start >= new_start else Rule.SUPERSEDED


def _ends(loser: FactTimes, until: When) -> bool:
    """Whether ending ``loser`` at ``until`` leaves its observed start at or after its end (the
    start is then unknown: the record's ``valid_at`` is cleared, when it was said stays)."""
    start = _start(loser)
    return start is not None and not stated(loser) and start >= instant(until)


def resolve(old: FactTimes, new: FactTimes, now: datetime) -> list[TemporalChange]:
    """Changes that settle a contradiction between ``old`` and ``new``; empty when none apply."""
    instant(now)  # validates tz-awareness
    rule = decide(old, new)
    if rule is Rule.SUPERSEDED:
        until = new.valid_at if new.valid_at is not None else new.observed_at
        return [TemporalChange("old", old.id, until, old.expired_at or now, rule, _ends(old, until))]
    if rule is Rule.NEW_IS_HISTORICAL:
        until = old.valid_at if old.valid_at is not None else old.observed_at
        return [TemporalChange("new", new.id, until, new.expired_at or now, rule, _ends(new, until))]
    return []


_PAST_STATE = re.compile(r"\b(?:lived|worked|was|were|used to|had|owned|dated)\b", re.I)
_CHANGE = re.compile(r"\b(?:now|moved|relocated|started|joined|switched|changed|became|since|these days|nowadays|"
                     r"instead|any ?more|no longer|quit|left|sold|married|divorced|got)\b", re.I)


def past_statement(text: str) -> bool:
    """An explicitly past statement of a state ("In 2019 I lived in Lagos", "User worked at
    Ikea."): a past-tense state verb and no word of change. Such a fact tells history; it never
    ends what is true now (rule 4)."""
    return bool(_PAST_STATE.search(text)) and not _CHANGE.search(text)


# -- read-time predicates (mirror these in SQL; see each docstring) --------------------------


def valid_as_of(fact: FactTimes, when: When) -> bool:
    """True in world time at ``when``: ``(valid_at IS NULL OR valid_at <= :when) AND
    (invalid_at IS NULL OR invalid_at > :when)``. An unknown start counts as already valid."""
    t = instant(when)
    started = fact.valid_at is None or instant(fact.valid_at) <= t
    return started and (fact.invalid_at is None or instant(fact.invalid_at) > t)


def known_at(fact: FactTimes, when: datetime) -> bool:
    """Believed by the system at ``when``: ``(created_at IS NULL OR created_at <= :when) AND
    (expired_at IS NULL OR expired_at > :when)``."""
    t = instant(when)
    created = fact.created_at is None or instant(fact.created_at) <= t
    return created and (fact.expired_at is None or instant(fact.expired_at) > t)


def visible(
    fact: FactTimes, *, now: datetime, as_of: When | None = None, known: datetime | None = None
) -> bool:
    """The retrieval filter (TTL and deletion are the store's business).

    - default: ``valid_as_of(now)`` and ``known_at(now)`` (current and not expired);
    - ``as_of=D``: ``valid_as_of(D)`` only; an expired record still answers for its own interval
      ("what was true then": Beijing, invalidated in 2025, is the answer as of 2024-06-01);
    - ``known=T``: ``known_at(T)`` (what the system believed at T) and ``valid_as_of(as_of or T)``.
      Apply it to the record *version* current at T: a row's later invalid_at was not known then.
    """
    if known is not None:
        return known_at(fact, known) and valid_as_of(fact, as_of if as_of is not None else known)
    if as_of is not None:
        return valid_as_of(fact, as_of)
    return valid_as_of(fact, now) and known_at(fact, now)
