"""Truth over time (issue 23): a change said in plain words stays true, and tidy-up never
reverses it. Real capture rules, real MiniLM, real SQLite; ``now`` fixed (Thursday 2026-12-03)."""

from __future__ import annotations

import pytest

from assistant.config import load_settings
from assistant.memory.capture.capturer import Capturer
from assistant.memory.consolidation.consolidator import Consolidator
from assistant.memory.records import Kind, Role
from assistant.memory.retrieval.retriever import Retriever
from consolidate_support import dt, minilm, store  # noqa: F401 - fixtures
from consolidate_support import UTC


@pytest.fixture
def clock():  # replaces consolidate_support's clock: the day of the issue's transcript
    from store_fakes import FakeClock

    return FakeClock(dt(2026, 12, 3, 9))


def _say(store, clock, capturer, session, text, minutes):
    clock.set(dt(2026, 12, 3, 9, minutes))
    msg = store.add_message(session, Role.USER, text, observed_at=clock())
    return capturer.capture_message(msg.id)


def _where(store, word, **kw):
    return [m for m in store.list(limit=None, **kw) if word in m.text]


def test_ghent_then_antwerp_the_move_wins_on_the_hot_path_and_after_tidy_up(store, clock, minilm):
    cap = Capturer(store, use_llm=False, tz=UTC, settings=load_settings)
    s = store.create_session("chat").id
    _say(store, clock, cap, s, "Hi, I'm Marta. I live in Ghent and work as a nurse.", 0)
    [ghent] = [m for m in _where(store, "Ghent", kind=Kind.PROFILE)]
    assert ghent.start_kind == "observed" and ghent.valid_at == dt(2026, 12, 3, 9, 0)  # "true since at least"
    moved = _say(store, clock, cap, s, "I moved to Antwerp last week.", 5)
    # "last week" of Thursday 2026-12-03 is the week of Monday 2026-11-23: a stated start
    [antwerp] = _where(store, "Antwerp", kind=Kind.PROFILE)
    assert antwerp.start_kind == "stated" and antwerp.valid_at.date().isoformat() == "2026-11-23"

    def check(when):
        assert _where(store, "Ghent") == [], when  # nothing about Ghent is current
        gone = store.get(ghent.id)
        assert gone.invalid_at == antwerp.valid_at, when  # ended when the move happened ...
        assert gone.valid_at is None, when  # ... its observed start (3 Dec) is no longer a start
        for m in _where(store, "Antwerp", include_expired=True, include_invalid=True):
            assert m.invalid_at is None and m.expired_at is None, (when, m.text)  # the move stays true
        october = _where(store, "Ghent", as_of=dt(2026, 10, 15))
        assert any(m.id == ghent.id for m in october), when  # as of October: Ghent
        assert _where(store, "Antwerp", as_of=dt(2026, 10, 15)) == [], when
        hits = Retriever(store, minilm).search("Where do I live?", k=3)
        assert hits and "Antwerp" in hits[0].memory.text, (when, [h.memory.text for h in hits])

    assert ghent.id in moved.retired
    check("after the hot path")
    preview = Consolidator(store).run(dry_run=True)
    report = Consolidator(store).run()
    check("after consolidate")
    assert [c.to_json() for c in report.changes] == [c.to_json() for c in preview.changes]


def test_an_explicitly_past_statement_never_retires_the_current_one(store, clock):
    cap = Capturer(store, use_llm=False, tz=UTC, settings=load_settings)
    s = store.create_session("chat").id
    _say(store, clock, cap, s, "I live in Ghent.", 0)
    r = _say(store, clock, cap, s, "In 2019 I lived in Lagos.", 5)
    assert r.retired == []
    Consolidator(store).run()
    assert any(m.slot for m in _where(store, "Ghent"))  # Ghent is still where the person lives


def test_preview_lists_exactly_what_the_run_applies(store, clock):
    """``consolidate --dry-run`` and the run, on the same store and clock: the same changes
    (with their followers), the same counts, and the run leaves nothing more to do."""
    from consolidate_support import Speaker

    sp = Speaker(store)
    sp.fact("I live in Ghent and work as a nurse.", dt(2026, 11, 1), kind=Kind.EPISODE)
    sp.fact("User lives in Ghent.", dt(2026, 11, 1), kind=Kind.PROFILE, slot="home_city")
    sp.fact("User lives in Antwerp.", dt(2026, 12, 1), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2026, 11, 23))
    sp.fact("User drinks coffee every morning.", dt(2026, 11, 2))
    sp.fact("User drinks coffee every morning.", dt(2026, 11, 3), kind=Kind.EPISODE)
    sp.fact("User likes jazz.", dt(2026, 11, 4))
    clock.set(dt(2026, 12, 3, 12))
    preview = Consolidator(store).run(dry_run=True)
    run = Consolidator(store).run()
    assert preview.changes, "the store has something to tidy"
    assert [c.to_json() for c in run.changes] == [c.to_json() for c in preview.changes]
    assert run.applied == preview.proposed and sum(run.applied.values()) >= 2  # Ghent and its episode (a follower)
    assert Consolidator(store).run(dry_run=True).changes == []


def test_bench_truth_scenarios_cover_the_issue_and_one_runs_clean(minilm, tmp_path):
    """The generated suite of ``keepsake bench truth`` (figures come from the bench, not here):
    >= 60 state changes over every topic, order and date cue; one imported out of order is
    right after the hot path, after tidy-up and after undo."""
    from assistant.bench.truth import run_scenario
    from assistant.bench.truth_scenarios import CUES, ORDERS, TOPICS, generate

    scenarios = generate()
    assert len(scenarios) >= 60
    assert {(s.topic, s.order, s.cue) for s in scenarios} == {(t, o, c) for t in TOPICS for o in ORDERS for c in CUES}
    [home] = [s for s in scenarios if s.id == "home/imported out of order/last week"]
    r = run_scenario(home, minilm.embed, str(tmp_path))
    assert r["hot"] == r["tidy"] == {"now": True, "as_of": True}
    assert not r["reversed_by_tidyup"] and r["undo_exact"]


def test_a_change_that_names_nothing_ends_only_the_state_it_replaces(store, clock, minilm):
    # "these days" names no earlier state: the one clearly nearest earlier statement (coffee)
    # ends, by meaning (MiniLM); name, home, job and partner said before stay current
    cap = Capturer(store, use_llm=False, tz=UTC, settings=load_settings)
    s = store.create_session("chat").id
    for i, text in enumerate(["My name is Marta.", "I live in Ghent.", "I work as a nurse at the hospital.",
                              "I drink coffee every morning.", "My partner is Joost."]):  # fmt: skip
        _say(store, clock, cap, s, text, i)
    before = {m.id: m.text for m in store.list(limit=None)}
    _say(store, clock, cap, s, "I drink green tea in the mornings these days.", 10)

    def check(when):
        now = {m.id for m in store.list(limit=None)}
        gone = sorted(before[i] for i in set(before) - now)
        assert gone and all("coffee" in t for t in gone), (when, gone)
        assert _where(store, "coffee") == [], when
        assert _where(store, "green tea"), when

    check("after the hot path")
    Consolidator(store).run()
    check("after tidy-up")
    Consolidator(store).run()
    check("after a second tidy-up (nothing walks down the list)")


def test_a_move_within_the_city_that_names_the_old_flat_keeps_the_city(store, clock, minilm):
    # "left the flat in Bonfim" names what ended: the plain-word "now" ends nothing else, so the
    # city said before stays current (it ended "User lives in Porto." by meaning, cosine 0.48 with
    # "on Rua do Padrão, 10 min walk to the beach" and no other earlier statement)
    cap = Capturer(store, use_llm=False, tz=UTC, settings=load_settings)
    s = store.create_session("chat").id
    _say(store, clock, cap, s, "I've been living in Porto for almost seven years now.", 0)
    moved = _say(store, clock, cap, s, "Finally done with the move!! We left the flat in Bonfim and now we're in a little "
                                       "house in Foz do Douro, on Rua do Padrão, 10 min walk to the beach.", 5)  # fmt: skip
    assert moved.retired == []
    assert _where(store, "Porto", kind=Kind.PROFILE)
    Consolidator(store).run()
    assert _where(store, "Porto", kind=Kind.PROFILE), "after tidy-up"
