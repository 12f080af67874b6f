"""Updates retire every copy of the old value (issue 14 item 2) and paraphrases of one claim
merge, the person's name being the subject "User" (item 3). Real capture (rules), real MiniLM,
real SQLite; the decisions are the interval algebra's."""

from __future__ import annotations

import json

import pytest

from assistant.memory.consolidation.consolidator import ConsolidationConfig, Consolidator
from assistant.memory.store.tidying.changes import Invalidate, Merge
from assistant.memory.language.claims import Claim, claims, person_names
from assistant.memory.capture.importing.importers import import_file
from assistant.memory.records import Kind, Status
from assistant.memory.retrieval.retriever import Retriever
from assistant.config import load_settings
from consolidate_support import Speaker, dt, minilm, store  # noqa: F401 - fixtures
from consolidate_support import clock  # noqa: F401 - fixture


def _import(store, tmp_path, lines):
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps({"session": s, "role": "user", "content": c, "timestamp": t}) for s, c, t in lines))
    return import_file(store, path, settings=load_settings)  # rules capture; import never runs the chat model


def _mentioning(store, word, **kw):
    return [m for m in store.list(limit=None, **kw) if word in m.text]


def test_beijing_to_shanghai_retires_every_copy_and_keeps_the_history(store, tmp_path, clock):
    _import(store, tmp_path, [("s1", "I live in Beijing, near the Drum Tower.", "2024-01-10T09:00:00"),
                              ("s2", "Big news: I moved to Shanghai last week!", "2025-03-20T09:00:00")])  # fmt: skip
    # the import's hot path already retired them (issue 23); the run keeps it that way
    before = _mentioning(store, "Beijing", as_of=dt(2024, 6, 1))
    kinds = {m.kind for m in before}
    assert {Kind.PROFILE, Kind.FACT, Kind.EPISODE} <= kinds, [m.text for m in before]
    profile = next(m for m in before if m.kind is Kind.PROFILE)
    # valid_at from the message's observation time (the sentence grounds no other date)
    assert profile.valid_at == dt(2024, 1, 10, 9)

    Consolidator(store).run(trigger="test")

    assert _mentioning(store, "Beijing") == []  # nothing mentioning Beijing is valid now
    then = _mentioning(store, "Beijing", as_of=dt(2024, 6, 1))
    assert {m.id for m in then} == {m.id for m in before}  # ... and all of them were on 2024-06-01
    for m in then:  # retired, never erased: "last week" of 2025-03-20 is the week of 2025-03-10
        assert m.invalid_at == dt(2025, 3, 10) and m.expired_at is not None and m.status is Status.ACTIVE
    assert any("Shanghai" in m.text for m in store.list(kind=Kind.PROFILE))


def test_a_habit_change_outside_the_slots_retires_the_old_habit(store, tmp_path, minilm, clock):
    _import(store, tmp_path, [("h1", "I cycle to work", "2025-03-05T08:00:00"),
                              ("h2", "I sold my bike, I take the train to work now", "2025-06-10T08:00:00")])  # fmt: skip
    clock.set(dt(2025, 7, 1))
    report = Consolidator(store).run()
    [inv] = [c for c in report.changes if isinstance(c, Invalidate)]
    assert inv.via == "claim" and inv.invalid_at == dt(2025, 6, 10, 8)
    retriever = Retriever(store, minilm)
    now = retriever.search("How do I get to work?", k=5)
    assert now and "train" in now[0].memory.text
    assert all("cycle" not in h.memory.text for h in now)
    april = retriever.search("How do I get to work?", k=5, as_of=dt(2025, 4, 15))
    assert april and "cycle" in april[0].memory.text
    assert all("train" not in h.memory.text for h in april)


def test_saying_a_thing_ended_retires_it_and_only_it(store, clock):
    sp = Speaker(store)
    tesco = sp.fact("User works at Tesco.", dt(2024, 1, 5), kind=Kind.PROFILE, slot="employer", valid_at=dt(2024, 1, 5))
    coffee = sp.fact("I drink two cups of coffee every morning", dt(2024, 2, 1), kind=Kind.EPISODE)
    sister = sp.fact("My sister works at Tesco.", dt(2024, 2, 2), kind=Kind.EPISODE)
    tea = sp.fact("I drink green tea in the evening", dt(2024, 2, 3), kind=Kind.EPISODE)
    quit_ = sp.fact("I quit my job at Tesco, and I don't drink coffee anymore.", dt(2025, 1, 20), kind=Kind.EPISODE)
    report = Consolidator(store, config=ConsolidationConfig(stages=("conflicts",))).run()
    retired = {c.memory_id: c for c in report.changes if isinstance(c, Invalidate)}
    assert set(retired) == {tesco, coffee}
    assert all(c.winner == quit_ and c.invalid_at == dt(2025, 1, 20) for c in retired.values())
    for kept in (sister, tea, quit_):  # someone else's job; another drink; the statement itself
        assert store.get(kept).invalid_at is None


def test_a_copy_from_another_message_goes_and_other_peoples_homes_stay(store, clock):
    sp = Speaker(store)
    old = sp.fact("User lives in Lyon.", dt(2023, 5, 1), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2023, 5, 1))
    again = sp.fact("I'm still living in Lyon, close to the river", dt(2024, 2, 1), kind=Kind.EPISODE, valid_at=dt(2024, 2, 1))
    mum = sp.fact("My mum lives in Lyon", dt(2024, 3, 1), kind=Kind.EPISODE, valid_at=dt(2024, 3, 1))
    visit = sp.fact("I visited Lyon for a wedding", dt(2024, 4, 1), kind=Kind.EPISODE, valid_at=dt(2024, 4, 1))
    new = sp.fact("User lives in Nantes.", dt(2025, 2, 1), kind=Kind.PROFILE, slot="home_city", valid_at=dt(2025, 2, 1))
    Consolidator(store, config=ConsolidationConfig(stages=("conflicts",))).run()
    assert store.get(old).invalid_at == dt(2025, 2, 1) and store.get(again).invalid_at == dt(2025, 2, 1)
    assert store.get(mum).invalid_at is None and store.get(visit).invalid_at is None and store.get(new).invalid_at is None


def test_the_persons_name_and_user_are_one_subject_and_paraphrases_merge_undoably(store, clock):
    sp = Speaker(store)
    sp.fact("User's name is Dana.", dt(2025, 1, 10), kind=Kind.PROFILE, slot="name")
    slot = sp.fact("User has a dog named Miso.", dt(2025, 1, 10), kind=Kind.PROFILE, slot="pet")
    named = sp.fact("Dana has a dog named Miso.", dt(2025, 2, 1))
    phrased = sp.fact("Dana's dog is called Miso.", dt(2025, 2, 3))
    other = sp.fact("Dana's sister has a dog named Rex.", dt(2025, 2, 4))
    report = Consolidator(store, config=ConsolidationConfig(stages=("dedup",))).run()
    [merge] = [c for c in report.changes if isinstance(c, Merge)]
    assert merge.survivor == slot and set(merge.merged) == {named, phrased}
    assert store.get(named).status is Status.ARCHIVED and store.get(other).status is Status.ACTIVE
    Consolidator(store).undo(report.run_id)
    assert store.get(named).status is Status.ACTIVE and store.get(phrased).status is Status.ACTIVE


NAMES = person_names(["User's name is Dana Reyes."])


@pytest.mark.parametrize("text, expected", [
    ("I live in Beijing, near the Drum Tower.", [Claim("home_city", frozenset({"beijing"}))]),
    ("User lives in Beijing.", [Claim("home_city", frozenset({"beijing"}))]),
    ("Dana Reyes lives in Porto.", [Claim("home_city", frozenset({"porto"}))]),
    ("Big news: I moved to Shanghai last week!", [Claim("home_city", frozenset({"shanghai"}), change=True)]),
    ("I moved from Berlin to Lisbon", [Claim("home_city", frozenset({"lisbon"}), change=True),
                                       Claim("home_city", frozenset({"berlin"}), ended=True),
                                       Claim("*", frozenset({"berlin"}), ended=True)]),
    ("I usually ride my bike to work", [Claim("commute", frozenset({"bicycle"}))]),
    ("User sold User's bike, User takes the train to work now.", [Claim("commute", frozenset({"train"}), change=True),
                                                                 Claim("*", frozenset({"bicycle"}), ended=True)]),
    ("I no longer eat meat", [Claim("*", frozenset({"meat"}), ended=True)]),
    ("Hi, I'm Dana. I live in Porto and work as a nurse.", [Claim("home_city", frozenset({"porto"})),
                                                            Claim("job_title", frozenset({"nurs"}))]),
    ("My favourite colour is green", [Claim("favourite.colour", frozenset({"green"}))]),
    ("Dana's dog is called Miso.", [Claim("pet", frozenset({"dog", "miso"}))]),
    ("We've been renting a flat in Easton for three years.", [Claim("home_city", frozenset({"easton"}))]),
    ("I work as a UX designer at Ledgerline", [Claim("employer", frozenset({"ledgerline"})),
                                               Claim("job_title", frozenset({"ux", "designer"}))]),
    ("I handed in my notice at Ledgerline today.", [Claim("employer", frozenset({"ledgerline"}), ended=True)]),
    ("I've decided to stop doing Duolingo", [Claim("*", frozenset({"duolingo"}), ended=True)]),
    ("My partner Tom and I want a house", [Claim("partner", frozenset({"tom"}))]),
    # not about the person, not a statement, not current
    ("My sister lives in Beijing", []),
    ("Do I live in Berlin?", []),
    ("I lived in Berlin in 2019", []),
    ("If I moved to Paris I would miss my friends", []),
])  # fmt: skip
def test_claims_table(text, expected):
    assert list(claims(text, NAMES)) == expected


def test_a_plan_is_known_from_when_it_was_said_not_from_its_date(store, tmp_path, clock):
    _import(store, tmp_path, [("p", "I signed up for the Bath Half Marathon on March 16, it'll be my first.", "2025-01-06T07:40:00"),
                              ("q", "I moved to Lyon last week.", "2025-01-20T10:00:00")])  # fmt: skip
    clock.set(dt(2025, 2, 1))
    plan = _mentioning(store, "Bath Half")
    assert plan and all(m.valid_at == dt(2025, 1, 6, 7, 40) for m in plan)  # visible in February
    moved = [m for m in _mentioning(store, "Lyon") if m.kind is Kind.PROFILE]
    assert moved and moved[0].valid_at == dt(2025, 1, 13)  # "last week": the grounded, earlier date


def test_two_tellings_of_one_ending_do_not_retire_each_other(store, clock):
    sp = Speaker(store)
    a = sp.fact("I sold my Kindle to Tomás", dt(2025, 1, 8), kind=Kind.EPISODE, valid_at=dt(2025, 1, 8))
    b = sp.fact("User sold a Kindle to Tomás.", dt(2025, 1, 24), valid_at=dt(2025, 1, 24))
    reading = sp.fact("I read on my Kindle every night", dt(2024, 6, 1), kind=Kind.EPISODE, valid_at=dt(2024, 6, 1))
    again = sp.fact("I cycle to work on my new bike", dt(2025, 3, 1), kind=Kind.EPISODE, valid_at=dt(2025, 3, 1))
    sold_bike = sp.fact("I sold my bike", dt(2025, 2, 1), kind=Kind.EPISODE, valid_at=dt(2025, 2, 1))
    report = Consolidator(store, config=ConsolidationConfig(stages=("conflicts",))).run()
    retired = {c.memory_id for c in report.changes if isinstance(c, Invalidate)}
    assert reading in retired  # the Kindle was sold: reading on it is over
    assert not retired & {a, b, again, sold_bike}  # the two tellings stay; cycling resumed after the sale
