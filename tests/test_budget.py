"""Context budget table (assistant.context.budget): worked examples and allocation properties."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.context.budget import (
    CUT_ORDER,
    DEFAULT_SECTIONS,
    OUTPUT_RESERVE,
    Section,
    allocate,
    char_usage,
    compaction_threshold,
    cut_order,
    needs_compaction,
)


@pytest.mark.parametrize(
    "window, threshold",
    [
        (8192, 6554),  # floor(8192*0.2) = 1638 -> 8192 - 1638
        (4096, 3277),  # floor(819.2) = 819
        (131072, 114688),  # floor(26214.4) = 26214 > 16384 -> 131072 - 16384
        (81920, 65536),  # floor(16384.0) = 16384: the two bounds meet
        (10, 8),  # floor(2.0) = 2
        (4, 3),  # floor(0.8) = 0 -> max(1, 0) = 1
        (1, 0),
    ],
)
def test_compaction_threshold(window, threshold):
    assert compaction_threshold(window) == threshold


def test_needs_compaction_at_the_threshold():
    assert not needs_compaction(6553, 8192)
    assert needs_compaction(6554, 8192)


def test_cut_order_most_volatile_first_then_keep():
    assert CUT_ORDER == (
        "retrieved_memories", "reminders", "current_input",  # volatility 2
        "history", "summary",  # volatility 1
        "note", "system", OUTPUT_RESERVE,  # volatility 0
    )  # fmt: skip


def test_everything_fits():
    asked = {"system": 500, "history": 3000, "current_input": 200, OUTPUT_RESERVE: 1024}
    r = allocate(8192, asked)
    assert r.fits and r.over_by == 0
    assert {s.name: s.allocated for s in r.sections if s.allocated} == asked
    assert r.allocated == 4724 and r.compaction_threshold == 6554


def test_worked_overflow_cuts_retrieved_memories_then_reminders():
    asked = {
        "system": 500, "note": 300, "summary": 800, "history": 5000,
        "retrieved_memories": 1500, "reminders": 200, "current_input": 400, OUTPUT_RESERVE: 1024,
    }  # fmt: skip
    # total 9724, window 8192 -> overflow 1532
    # retrieved_memories (vol 2, keep 0): 1500 -> floor 0, overflow 32 left
    # reminders (vol 2, keep 1): 200 -> 168, overflow 0; nothing else is touched
    r = allocate(8192, asked)
    got = {s.name: s.allocated for s in r.sections}
    assert got["retrieved_memories"] == 0 and got["reminders"] == 168
    assert all(got[n] == asked[n] for n in asked if n not in ("retrieved_memories", "reminders"))
    assert r.allocated == 8192 and r.fits
    assert r.section("reminders").cut == 32


def test_worked_overflow_reaches_history_but_not_the_mins():
    asked = {"system": 3000, "history": 6000, "retrieved_memories": 800, "current_input": 2000,
             OUTPUT_RESERVE: 512}  # fmt: skip
    # total 12312, window 8192 -> overflow 4120
    # retrieved 800 -> 0 (3320 left); current_input 2000 -> floor 1024 (2344 left);
    # history 6000 -> 3656 (0 left). system (min 2048, asked 3000) and the reserve are untouched.
    r = allocate(8192, asked)
    got = {s.name: s.allocated for s in r.sections}
    assert (got["retrieved_memories"], got["current_input"], got["history"]) == (0, 1024, 3656)
    assert got["system"] == 3000 and got[OUTPUT_RESERVE] == 512


def test_floors_that_do_not_fit_are_kept_and_reported():
    r = allocate(1000, {"system": 2000, "current_input": 50, "history": 400})
    got = {s.name: s.allocated for s in r.sections}
    # floors: system min(2000, 2048) = 2000, current_input 50, reserve 256; history -> 0
    assert got == {**{s.name: 0 for s in DEFAULT_SECTIONS}, "system": 2000, "current_input": 50,
                   OUTPUT_RESERVE: 256}  # fmt: skip
    assert not r.fits and r.over_by == 2306 - 1000


def test_output_reserve_is_reserved_even_when_not_asked_and_capped():
    assert allocate(8192, {}).section(OUTPUT_RESERVE).allocated == 256  # its min
    assert allocate(8192, {OUTPUT_RESERVE: 10_000}).section(OUTPUT_RESERVE).allocated == 4096


def test_max_caps_and_unknown_sections():
    r = allocate(100_000, {"retrieved_memories": 5000, "history": 50_000})
    assert r.section("retrieved_memories").allocated == 2048  # max
    assert r.section("history").limit == 100_000  # uncapped: the bar's length is the window
    with pytest.raises(KeyError):
        allocate(8192, {"bogus": 1})


def test_report_is_json_ready():
    r = allocate(8192, {"system": 100, "history": 200})
    data = json.loads(json.dumps(r.to_json()))
    assert data["window"] == 8192 and data["allocated"] == 100 + 200 + 256
    row = next(s for s in data["sections"] if s["name"] == "history")
    assert row == {"name": "history", "volatility": 1, "requested": 200, "allocated": 200,
                   "floor": 0, "limit": 8192}  # fmt: skip


def test_char_budget_renders_current_over_limit():
    u = char_usage("x" * 1234, 5000)
    assert u.render() == "1234/5000" and not u.over
    assert char_usage("x" * 5001, 5000).over


# -- properties -------------------------------------------------------------------------------


@st.composite
def tables(draw):
    """A random budget table (always with an output reserve) and random requests."""
    names = draw(st.lists(st.sampled_from("abcdefg"), unique=True, max_size=6))
    sections = [
        Section(n, draw(st.integers(0, 2)), draw(st.integers(0, 3000)),
                draw(st.one_of(st.none(), st.integers(0, 6000))), draw(st.integers(0, 3)))
        for n in names
    ]  # fmt: skip
    lo = draw(st.integers(0, 2000))
    sections.append(Section(OUTPUT_RESERVE, 0, lo, lo + draw(st.integers(0, 4000)), 9))
    if draw(st.booleans()):
        sections = list(DEFAULT_SECTIONS)
    requested = {s.name: draw(st.integers(0, 20_000)) for s in sections if draw(st.booleans())}
    return sections, requested, draw(st.integers(0, 40_000))


def _want(s: Section, requested) -> int:
    asked = requested.get(s.name, 0)
    w = asked if s.max_tokens is None else min(asked, s.max_tokens)
    return max(w, s.min_tokens) if s.name == OUTPUT_RESERVE else w


@given(tables())
def test_mins_are_kept_and_nobody_gets_more_than_wanted(case):
    sections, requested, window = case
    r = allocate(window, requested, sections)
    for s in sections:
        got = r.section(s.name)
        want = _want(s, requested)
        assert min(want, s.min_tokens) == got.floor <= got.allocated <= want


@given(tables())
def test_output_reserve_is_never_handed_out(case):
    sections, requested, window = case
    r = allocate(window, requested, sections)
    reserve = r.section(OUTPUT_RESERVE).allocated
    others = r.allocated - reserve
    if r.fits:
        assert others <= window - reserve
    # The reserve is only cut after every other section is down to its floor.
    if reserve < _want(next(s for s in sections if s.name == OUTPUT_RESERVE), requested):
        assert all(x.allocated == x.floor for x in r.sections if x.name != OUTPUT_RESERVE)


@given(tables())
def test_most_volatile_is_cut_first(case):
    sections, requested, window = case
    r = allocate(window, requested, sections)
    order = cut_order(sections)
    got = [r.section(s.name) for s in order]
    cut = [i for i, (s, x) in enumerate(zip(order, got)) if x.allocated < _want(s, requested)]
    if cut:
        last = max(cut)
        # Every section before the last one cut (in cut order: higher volatility first) is down
        # to its floor; every section after it is untouched.
        assert all(x.allocated == x.floor for x in got[:last])
        assert all(x.volatility >= got[last].volatility for x in got[:last])
        untouched = zip(order[last + 1 :], got[last + 1 :])
        assert all(x.allocated == _want(s, requested) for s, x in untouched)


@given(tables())
def test_fits_exactly_when_possible_and_wastes_nothing(case):
    sections, requested, window = case
    r = allocate(window, requested, sections)
    total_want = sum(_want(s, requested) for s in sections)
    total_floor = sum(x.floor for x in r.sections)
    if total_want <= window:
        assert r.fits and r.allocated == total_want
    elif total_floor <= window:
        assert r.fits and r.allocated == window  # cut just enough
    else:
        assert not r.fits and r.allocated == total_floor
        assert r.over_by == total_floor - max(0, window)


def test_a_default_section_can_be_customised():
    small = [replace(s, min_tokens=100, max_tokens=100) if s.name == "note" else s
             for s in DEFAULT_SECTIONS]  # fmt: skip
    assert allocate(8192, {"note": 500}, small).section("note").allocated == 100
