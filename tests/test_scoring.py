"""Scoring formulas (assistant.memory.retrieval.scoring) and the decay rank (assistant.memory.consolidation.plans.decay).

Worked arithmetic is in the comments; expected values are computed by hand, not by the code.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.memory.consolidation.plans.decay import DecayPolicy, decay_rank, half_life
from assistant.memory.retrieval.scoring import (
    EntityMatch,
    Signal,
    bm25_params,
    bm25_signal,
    entity_boost,
    entity_signal,
    fuse,
    passes_threshold,
    query_terms,
    semantic_signal,
)

# -- semantic ---------------------------------------------------------------------------------


def test_semantic_is_clamped_cosine():
    assert semantic_signal(0.73) == Signal("semantic", 0.73, 0.73, 1.0)
    assert semantic_signal(-0.2).normalized == 0.0  # unrelated, not "anti-relevant"
    assert semantic_signal(1.0000001).normalized == 1.0  # float noise above 1


def test_threshold_is_inclusive_and_reads_the_normalized_value():
    assert passes_threshold(semantic_signal(0.30), 0.30)
    assert not passes_threshold(semantic_signal(0.2999), 0.30)
    assert passes_threshold(0.5, 0.3) and not passes_threshold(-0.5, 0.0001)


# -- bm25 -------------------------------------------------------------------------------------


def test_query_terms_counts_words():
    assert query_terms("where do I live") == 4
    assert query_terms("") == 1  # never 0: the midpoint needs n >= 1
    assert query_terms("我住在哪里") == 1  # a CJK run is one unicode61 token
    assert query_terms('"Paris" NEAR trip*') == 3


@pytest.mark.parametrize(
    "n, midpoint, steepness",
    [
        (1, 5.0, 0.6),  # 2.5*(1+1) = 5,    3/5 = 0.6
        (4, 7.5, 0.4),  # 2.5*(1+2) = 7.5,  3/7.5 = 0.4
        (9, 10.0, 0.3),  # 2.5*(1+3) = 10,  3/10 = 0.3
    ],
)
def test_bm25_midpoint_grows_with_query_length(n, midpoint, steepness):
    m, k = bm25_params(n)
    assert m == pytest.approx(midpoint) and k == pytest.approx(steepness)


def test_bm25_sigmoid_worked_examples():
    # FTS5 bm25() is negative: -5.0 means relevance 5.0.
    # n=1: midpoint 5 -> exactly 0.5 at relevance 5.
    assert bm25_signal(-5.0, 1).normalized == pytest.approx(0.5)
    # n=1, relevance 10: 1/(1+exp(-0.6*(10-5))) = 1/(1+e^-3) = 0.952574
    assert bm25_signal(-10.0, 1).normalized == pytest.approx(0.952574, abs=1e-6)
    # Same raw value, longer query: n=4 has midpoint 7.5, so relevance 7.5 -> 0.5,
    # while for n=1 relevance 7.5 -> 1/(1+exp(-0.6*2.5)) = 1/(1+e^-1.5) = 0.817574
    assert bm25_signal(-7.5, 4).normalized == pytest.approx(0.5)
    assert bm25_signal(-7.5, 1).normalized == pytest.approx(0.817574, abs=1e-6)


def test_bm25_keeps_the_raw_fts5_value_and_zero_for_no_match():
    s = bm25_signal(-3.25, 2)
    assert s.name == "bm25" and s.raw == -3.25 and s.weight == 1.0
    assert bm25_signal(None, 3).normalized == 0.0  # no FTS match
    assert bm25_signal(0.0, 3).normalized == 0.0  # relevance 0
    assert bm25_signal(4.0, 3).normalized == 0.0  # a positive value is not relevance
    assert bm25_signal(-1e9, 1).normalized == pytest.approx(1.0)
    assert bm25_signal(float("nan"), 1).normalized == 0.0


@given(
    a=st.floats(-1e6, 0, allow_nan=False),
    b=st.floats(-1e6, 0, allow_nan=False),
    n=st.integers(1, 200),
)
def test_bm25_is_bounded_and_monotone_in_relevance(a, b, n):
    sa, sb = bm25_signal(a, n).normalized, bm25_signal(b, n).normalized
    assert 0.0 <= sa <= 1.0 and 0.0 <= sb <= 1.0
    if a < b < 0:  # a is more negative = more relevant
        assert sa >= sb


# -- entities ---------------------------------------------------------------------------------


def test_entity_boost_worked_examples():
    assert entity_boost(0.9, 1) == pytest.approx(0.45)  # 0.9*0.5 / (1 + 0.001*0)
    # 11 linked memories: 0.9*0.5 / (1 + 0.001*10^2) = 0.45/1.1 = 0.409091
    assert entity_boost(0.9, 11) == pytest.approx(0.409091, abs=1e-6)
    # 101 linked: 0.45 / (1 + 0.001*100^2) = 0.45/11 = 0.040909
    assert entity_boost(0.9, 101) == pytest.approx(0.040909, abs=1e-6)
    assert entity_boost(0.5, 1) == 0.25  # the 0.5 cut-off is inclusive
    assert entity_boost(0.49, 1) == 0.0  # dropped


def test_entity_signal_takes_the_best_match_and_weight_times_normalized_is_the_boost():
    s = entity_signal([EntityMatch(0.6, 1), EntityMatch(0.9, 11), EntityMatch(0.3, 1)])
    # boosts: 0.30, 0.409091, 0 -> best is the 0.9 match
    assert s.raw == 0.9
    assert s.weight * s.normalized == pytest.approx(0.409091, abs=1e-6)
    assert s.normalized == pytest.approx(0.818182, abs=1e-6)  # 0.409091 / 0.5
    assert entity_signal([]) == Signal("entity", 0.0, 0.0, 0.5)
    assert entity_signal([EntityMatch(0.4, 1)]).normalized == 0.0


# -- fusion -----------------------------------------------------------------------------------


def test_fusion_divides_by_the_weights_present():
    sem = semantic_signal(0.8)
    kw = bm25_signal(-5.0, 1)  # 0.5
    ent = entity_signal([EntityMatch(0.8, 1)])  # boost 0.4, normalized 0.8, weight 0.5
    assert fuse([sem]).score == pytest.approx(0.8)  # 0.8 / 1
    assert fuse([sem, kw]).score == pytest.approx(0.65)  # (0.8 + 0.5) / 2
    assert fuse([sem, None, ent]).score == pytest.approx(0.8)  # (0.8 + 0.4) / 1.5
    assert fuse([sem, kw, ent]).score == pytest.approx(0.68)  # (0.8 + 0.5 + 0.4) / 2.5
    assert fuse([]).score == 0.0
    fused = fuse([sem, None, kw])
    assert fused.signals == (sem, kw)  # explain: only what counted
    assert fused.signal("bm25") == kw and fused.signal("entity") is None


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0.01, 5)), min_size=1, max_size=6))
def test_fusion_is_a_weighted_mean(pairs):
    signals = [Signal(f"s{i}", x, x, w) for i, (x, w) in enumerate(pairs)]
    score = fuse(signals).score
    lo, hi = min(x for x, _ in pairs), max(x for x, _ in pairs)
    assert lo - 1e-9 <= score <= hi + 1e-9


def test_threshold_gates_before_fusion():
    # The gate reads the semantic score alone: a perfect keyword and entity match cannot rescue
    # a semantically weak candidate (the retriever checks it before fusing).
    strong = [EntityMatch(1.0, 1)]
    assert not passes_threshold(semantic_signal(0.29), 0.3) and passes_threshold(semantic_signal(0.30), 0.3)
    fused = fuse([semantic_signal(0.30), bm25_signal(-50.0, 1), entity_signal(strong)])
    # (0.30 + ~1.0 + 0.5*1.0) / 2.5 = 0.72
    assert fused.score == pytest.approx(0.72, abs=1e-6)


def test_presence_is_per_query_not_per_candidate():
    # The query ran BM25 but this candidate did not match: bm25 is present with 0,
    # so it does not beat a candidate that matched: (0.6 + 0) / 2 = 0.3
    assert fuse([semantic_signal(0.6), bm25_signal(None, 1)]).score == pytest.approx(0.3)
    # The query had no keyword signal at all (the signal is absent, None): the divisor is 1.
    assert fuse([semantic_signal(0.6), None]).score == pytest.approx(0.6)
    # Entities: absent = the query named no entity; [] = it did, this memory is not linked: (0.6 + 0) / 1.5
    assert fuse([semantic_signal(0.6), entity_signal([])]).score == pytest.approx(0.4)


# -- decay ------------------------------------------------------------------------------------

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)


def _rank(days_old, *, confidence=0.8, used_days_ago=None, uses=0, pinned=False):
    last = NOW - timedelta(days=used_days_ago) if used_days_ago is not None else None
    return decay_rank(
        confidence=confidence,
        created_at=NOW - timedelta(days=days_old),
        last_used_at=last,
        use_count=uses,
        now=NOW,
        pinned=pinned,
    )


def test_half_life_grows_with_use():
    assert half_life(0) == 90.0  # 90 * (1 + ln 1)
    assert half_life(3) == pytest.approx(214.7664, abs=1e-4)  # 90 * (1 + ln 4)


def test_decay_rank_worked_examples():
    r = _rank(180)  # never used: idle = age = 180 days = 2 half-lives -> 0.8 * 0.25
    assert r.rank == pytest.approx(0.2) and not r.archive and r.idle_days == 180
    r = _rank(450)  # 5 half-lives: 0.8 / 32 = 0.025 < 0.05
    assert r.rank == pytest.approx(0.025) and r.archive and "below floor" in r.reason
    r = _rank(450, uses=3, used_days_ago=450)  # 0.8 * 0.5 ** (450/214.7664 = 2.0953) = 0.1872
    assert r.rank == pytest.approx(0.1872, abs=1e-4) and not r.archive
    r = _rank(900, used_days_ago=90)  # last use resets the clock: 0.8 * 0.5 = 0.4
    assert r.rank == pytest.approx(0.4) and r.age_days == 900


def test_pinned_and_young_memories_are_never_archived():
    assert _rank(5000, pinned=True).archive is False
    assert "pinned" in _rank(5000, pinned=True).reason
    # confidence 0.01 is below the floor from day one, but the grace period holds it
    young = _rank(10, confidence=0.01)
    assert young.rank < 0.05 and not young.archive and "grace" in young.reason
    assert _rank(31, confidence=0.01).archive


def test_decay_policy_is_configurable_and_needs_aware_datetimes():
    strict = DecayPolicy(half_life_days=10, floor=0.5, grace_days=0)
    r = decay_rank(confidence=1.0, created_at=NOW - timedelta(days=10), last_used_at=None,
                   use_count=0, now=NOW, policy=strict)  # fmt: skip
    assert r.rank == pytest.approx(0.5) and not r.archive  # at the floor is kept
    with pytest.raises(ValueError):
        decay_rank(confidence=1.0, created_at=datetime(2024, 1, 1), last_used_at=None,
                   use_count=0, now=NOW)  # fmt: skip


@given(
    conf=st.floats(0, 1),
    age=st.floats(0, 5000),
    idle=st.floats(0, 5000),
    uses=st.integers(0, 10_000),
)
def test_decay_rank_is_bounded_and_never_above_confidence(conf, age, idle, uses):
    r = _rank(age + idle, confidence=conf, used_days_ago=idle, uses=uses)
    assert 0.0 <= r.rank <= conf + 1e-12
