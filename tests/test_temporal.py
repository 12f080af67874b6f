"""Interval algebra (assistant.memory.language.temporal): every branch of the table, plus the predicates."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.memory.language.temporal import (
    FactTimes,
    Rule,
    TemporalChange,
    decide,
    instant,
    known_at,
    resolve,
    valid_as_of,
    visible,
)

NOW = datetime(2025, 3, 20, 12, 0, tzinfo=timezone.utc)
EARLIER = datetime(2024, 2, 1, tzinfo=timezone.utc)
D = date


def fact(id, valid=None, invalid=None, *, expired=None, observed=None, created=None):
    return FactTimes(id, valid, invalid, created, expired, observed)


def apply(f: FactTimes, changes: list[TemporalChange]) -> FactTimes:
    for c in changes:
        if c.record_id == f.id:
            f = replace(f, invalid_at=c.invalid_at, expired_at=c.expired_at)
    return f


# -- the table --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, rule, changes",
    [
        # rule 1: old.invalid_at <= new.valid_at -> no conflict (equality counts)
        (fact(1, D(2020, 1, 1), D(2021, 1, 1)), fact(2, D(2021, 1, 1)), Rule.OLD_ENDED, []),
        (fact(1, D(2020, 1, 1), D(2020, 6, 1)), fact(2, D(2021, 1, 1)), Rule.OLD_ENDED, []),
        # rule 2: new.invalid_at <= old.valid_at -> no conflict ("lived in Berlin in 2019"
        # against a Lisbon address valid since 2022)
        (fact(1, D(2022, 1, 1)), fact(2, D(2019, 1, 1), D(2020, 1, 1)), Rule.NEW_ENDED, []),
        (fact(1, D(2022, 1, 1)), fact(2, D(2019, 1, 1), D(2022, 1, 1)), Rule.NEW_ENDED, []),
        # rule 3: old starts first -> old.invalid_at = new.valid_at, old.expired_at = now
        (fact(1, D(2024, 1, 10)), fact(2, D(2025, 3, 10)), Rule.SUPERSEDED,
         [TemporalChange("old", 1, D(2025, 3, 10), NOW, Rule.SUPERSEDED)]),
        # rule 3 keeps an expired_at that is already set
        (fact(1, D(2024, 1, 10), expired=EARLIER), fact(2, D(2025, 3, 10)), Rule.SUPERSEDED,
         [TemporalChange("old", 1, D(2025, 3, 10), EARLIER, Rule.SUPERSEDED)]),
        # rule 3 pulls an old invalid_at that lies after new.valid_at back to new.valid_at
        (fact(1, D(2024, 1, 10), D(2026, 1, 1)), fact(2, D(2025, 3, 10)), Rule.SUPERSEDED,
         [TemporalChange("old", 1, D(2025, 3, 10), NOW, Rule.SUPERSEDED)]),
        # out of order: the candidate (old) starts later -> the new fact is historical
        (fact(1, D(2022, 1, 1)), fact(2, D(2019, 1, 1)), Rule.NEW_IS_HISTORICAL,
         [TemporalChange("new", 2, D(2022, 1, 1), NOW, Rule.NEW_IS_HISTORICAL)]),
        (fact(1, D(2022, 1, 1)), fact(2, D(2019, 1, 1), D(2023, 1, 1)), Rule.NEW_IS_HISTORICAL,
         [TemporalChange("new", 2, D(2022, 1, 1), NOW, Rule.NEW_IS_HISTORICAL)]),
        # equal starts: a correction or duplicate, not a succession
        (fact(1, D(2024, 1, 1)), fact(2, D(2024, 1, 1)), Rule.SAME_START, []),
    ],
)  # fmt: skip
def test_interval_table(old, new, rule, changes):
    assert decide(old, new) is rule
    assert resolve(old, new, NOW) == changes


@pytest.mark.parametrize(
    "old, new, rule, changes",
    [
        # no valid_at: the start is observed_at; the change still writes the other's start value
        (fact(1, observed=D(2024, 1, 10)), fact(2, D(2025, 3, 10)), Rule.SUPERSEDED,
         [TemporalChange("old", 1, D(2025, 3, 10), NOW, Rule.SUPERSEDED)]),
        (fact(1, D(2024, 1, 10)), fact(2, observed=D(2025, 3, 20)), Rule.SUPERSEDED,
         [TemporalChange("old", 1, D(2025, 3, 20), NOW, Rule.SUPERSEDED)]),
        # an observed start is only a bound: it never makes the later-learned, stated change
        # historical (issue 23: "I live in Ghent" said 3 Dec, then "I moved ... last week");
        # the old fact's start becomes unknown (clear_start)
        (fact(1, observed=D(2025, 1, 1)), fact(2, D(2019, 1, 1)), Rule.SUPERSEDED,
         [TemporalChange("old", 1, D(2019, 1, 1), NOW, Rule.SUPERSEDED, clear_start=True)]),
        # valid_at wins over observed_at
        (fact(1, D(2020, 1, 1), observed=D(2026, 1, 1)), fact(2, D(2021, 1, 1)), Rule.SUPERSEDED,
         [TemporalChange("old", 1, D(2021, 1, 1), NOW, Rule.SUPERSEDED)]),
        # an old fact with no start at all is "since forever": a dated open-ended fact replaces it
        (fact(1), fact(2, D(2025, 3, 10)), Rule.SUPERSEDED,
         [TemporalChange("old", 1, D(2025, 3, 10), NOW, Rule.SUPERSEDED)]),
        # ... but a fact that has already ended never ends an undated current one
        (fact(1), fact(2, D(2019, 1, 1), D(2020, 1, 1)), Rule.UNDATED, []),
        # a new fact with no start cannot be ordered
        (fact(1, D(2020, 1, 1)), fact(2), Rule.UNDATED, []),
        (fact(1), fact(2), Rule.UNDATED, []),
        # rule 1 still applies when only the old end and the new start are known
        (fact(1, None, D(2020, 1, 1)), fact(2, D(2021, 1, 1)), Rule.OLD_ENDED, []),
    ],
)  # fmt: skip
def test_missing_dates(old, new, rule, changes):
    assert decide(old, new) is rule
    assert resolve(old, new, NOW) == changes


def test_inputs_are_not_mutated_and_reason_is_readable():
    old, new = fact(1, D(2024, 1, 10)), fact(2, D(2025, 3, 10))
    before = (old, new)
    [change] = resolve(old, new, NOW)
    assert (old, new) == before and old.invalid_at is None
    assert "rule 3" in change.reason and change.target == "old"


def test_mixed_dates_and_aware_datetimes_compare_in_utc():
    # 2025-03-10 00:30 at UTC+2 is 2025-03-09 22:30 UTC, before midnight UTC of the 10th
    plus2 = timezone(timedelta(hours=2))
    new = fact(2, datetime(2025, 3, 10, 0, 30, tzinfo=plus2))
    assert decide(fact(1, None, D(2025, 3, 10)), new) is Rule.SUPERSEDED
    assert decide(fact(1, None, D(2025, 3, 9)), new) is Rule.OLD_ENDED
    assert instant(D(2025, 3, 10)) == datetime(2025, 3, 10, tzinfo=timezone.utc)


def test_naive_datetimes_are_refused():
    with pytest.raises(ValueError):
        decide(fact(1, datetime(2024, 1, 1)), fact(2, D(2025, 1, 1)))
    with pytest.raises(ValueError):
        resolve(fact(1, D(2024, 1, 1)), fact(2, D(2025, 1, 1)), datetime(2025, 1, 1))


def test_of_reads_any_record_like_object():
    class Rec:
        id = 7
        valid_at = D(2024, 1, 1)
        invalid_at = None
        expired_at = None

    assert FactTimes.of(Rec()) == FactTimes(7, D(2024, 1, 1))
    said = D(2023, 5, 22)
    assert FactTimes.of(Rec(), observed_at=said) == FactTimes(7, D(2024, 1, 1), observed_at=said)


# -- predicates -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "valid, invalid, when, expected",
    [
        (None, None, D(2000, 1, 1), True),
        (D(2024, 1, 10), None, D(2024, 1, 10), True),  # start inclusive
        (D(2024, 1, 10), None, D(2024, 1, 9), False),
        (D(2024, 1, 10), D(2025, 3, 10), D(2025, 3, 9), True),
        (D(2024, 1, 10), D(2025, 3, 10), D(2025, 3, 10), False),  # end exclusive
        (None, D(2025, 3, 10), D(1990, 1, 1), True),
    ],
)
def test_valid_as_of(valid, invalid, when, expected):
    assert valid_as_of(fact(1, valid, invalid), when) is expected


def test_known_at():
    f = fact(1, created=datetime(2024, 1, 10, tzinfo=timezone.utc), expired=NOW)
    assert not known_at(f, datetime(2024, 1, 9, tzinfo=timezone.utc))
    assert known_at(f, datetime(2024, 1, 10, tzinfo=timezone.utc))
    assert known_at(f, NOW - timedelta(seconds=1))
    assert not known_at(f, NOW)
    assert known_at(fact(1), NOW)


def test_knowledge_update_end_to_end():
    """Issue 7: Beijing (said 2024-01-10), then "moved to Shanghai last week" said 2025-03-20."""
    said = datetime(2024, 1, 10, 9, tzinfo=timezone.utc)
    beijing = fact("beijing", D(2024, 1, 10), created=said)
    shanghai = fact("shanghai", D(2025, 3, 10), created=NOW)  # the week of 2025-03-10
    changes = resolve(beijing, shanghai, NOW)
    beijing_before = beijing
    beijing, shanghai = apply(beijing, changes), apply(shanghai, changes)
    assert beijing.invalid_at == D(2025, 3, 10) and beijing.expired_at == NOW
    later = NOW + timedelta(minutes=1)
    assert not visible(beijing, now=later)  # not current any more
    assert visible(shanghai, now=later)
    assert visible(beijing, now=later, as_of=D(2024, 6, 1))  # "where did I live then"
    assert not visible(shanghai, now=later, as_of=D(2024, 6, 1))
    # What the system believed a day before consolidation: Beijing, as current. That is read
    # from the version of the row that existed then (the store keeps versions); the new row
    # already carries the invalid_at learned later.
    day_before = NOW - timedelta(days=1)
    assert visible(beijing_before, now=later, known=day_before)
    assert known_at(beijing, day_before) and not visible(beijing, now=later, known=day_before)
    assert not visible(shanghai, now=later, known=day_before)  # not created yet


def test_berlin_in_2019_never_ends_the_current_lisbon_address():
    lisbon = fact("lisbon", D(2022, 5, 1))
    for berlin in (fact("berlin", D(2019, 1, 1), D(2020, 1, 1)), fact("berlin", D(2019, 1, 1))):
        changes = resolve(lisbon, berlin, NOW)
        assert all(c.record_id == "berlin" for c in changes)
        assert visible(apply(lisbon, changes), now=NOW)


# -- properties -------------------------------------------------------------------------------

days = st.one_of(st.none(), st.integers(0, 60).map(lambda n: D(2024, 1, 1) + timedelta(days=n)))


@st.composite
def intervals(draw, id):
    start = draw(days)
    end = draw(days)
    if start is not None and end is not None and end <= start:
        end = start + timedelta(days=draw(st.integers(1, 30)))
    return fact(id, start, end, observed=draw(days))


@given(old=intervals(1), new=intervals(2))
def test_after_a_change_the_intervals_no_longer_overlap(old, new):
    changes = resolve(old, new, NOW)
    assert len(changes) <= 1
    if not changes:
        return
    old2, new2 = apply(old, changes), apply(new, changes)
    changed = old2 if changes[0].target == "old" else new2
    start = changed.valid_at or changed.observed_at
    if start is not None and not changes[0].clear_start:  # the invalidated fact keeps a non-empty interval
        # (unless its start was only observed and is cleared: true since some unknown time)
        assert instant(changed.invalid_at) > instant(start)
    # old and new no longer overlap: one ends where (or before) the other starts
    o_start, n_start = old2.valid_at or old2.observed_at, new2.valid_at or new2.observed_at
    if changes[0].target == "old":
        assert instant(old2.invalid_at) <= instant(n_start)
    else:
        assert instant(new2.invalid_at) <= instant(o_start)
    assert resolve(old2, new2, NOW) == []  # idempotent: nothing left to decide
