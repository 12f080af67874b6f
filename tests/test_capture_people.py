"""Third-person facts about the person's named people (issue 24): a clause whose subject is one of
their people keeps its verb phrase as a fact about that name, whatever the verb; the relation
becomes its profile slot; and "What does Kasper do for work?" is answered from the fact (REAL
MiniLM for the answer; the rules need no model)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from assistant.config import Settings
from assistant.memory.capture.capturer import Capturer
from assistant.memory.language.rules import extract
from assistant.memory.language.statements import classify
from assistant.memory.retrieval import answer as A
from assistant.memory.retrieval.forms import named_forms
from assistant.memory.retrieval.retriever import Retriever
from assistant.memory.store.facade import MemoryStore
from consolidate_support import minilm  # noqa: F401 - the session's real MiniLM

OBS = datetime(2024, 3, 18, 10, 0, tzinfo=timezone.utc)


def facts(text: str, names=()) -> list[tuple[str | None, str]]:
    said = " ".join(u.text for u in classify(text, names).statements)
    return [(c.slot, c.text) for c in extract(said, OBS, names)]


@pytest.mark.parametrize("text, relation, fact", [
    ("My brother Kasper repairs bicycles.", "User's brother is Kasper.", "Kasper repairs bicycles."),
    ("Kasper, my brother, repairs bicycles for a living.", "User's brother is Kasper.", "Kasper repairs bicycles for a living."),
    ("I have a brother, Kasper. He repairs bicycles.", "User's brother is Kasper.", "Kasper repairs bicycles."),
    ("My brother is Kasper. Kasper repairs bicycles for a living.", "User's brother is Kasper.", "Kasper repairs bicycles for a living."),
    # other verbs, same structure: name + verb phrase
    ("My sister Ana breeds alpacas near Cusco.", "User's sister is Ana.", "Ana breeds alpacas near Cusco."),
    ("I've got a daughter called Mia and she coaches hockey.", "User's daughter is Mia.", "Mia coaches hockey."),
    # "my <relation>, <name>," then any verb: the apposition is the subject (was "User's friend, Dana." and
    # "User's friend loves Lego.", the name lost)
    ("My friend, Dana, loves Lego.", "User's friend is Dana.", "Dana loves Lego."),
    ("My youngest, Rory, loves Lego and hates peas.", "User's youngest is Rory.", "Rory hates peas."),
])  # fmt: skip
def test_a_named_persons_verb_phrase_is_a_fact_about_them(text, relation, fact):
    got = facts(text)
    assert relation in [t for _, t in got] and fact in [t for _, t in got], got


@pytest.mark.parametrize("text, fact", [
    # an apposition after the name keeps the name and what it is together (was "User's ginger tabby cat." alone)
    ("Forgot to mention Tattie, our ginger tabby cat.", "User: Forgot to mention Tattie, User's ginger tabby cat."),
    ("I met Shona, my best pal, for lunch.", "User met Shona, User's best pal, for lunch."),  # was "User's best pal, for lunch."
])  # fmt: skip
def test_an_apposition_stays_with_the_name_it_follows(text, fact):
    got = [t for _, t in facts(text)]
    assert fact in got and not any(t.startswith("User's") and "Tattie" not in t and "Shona" not in t for t in got), got


@pytest.mark.parametrize("text, fact", [
    # a capitalised possessive at a sentence's start is the one named before (a new user's in-laws were lost)
    ("My partner is Priya. Her parents are Ravi and Meena Sharma.", "Priya's parents are Ravi and Meena Sharma."),
    ("My brother Tom lives in Leeds. His wife is a doctor.", "Tom's wife is a doctor."),
])  # fmt: skip
def test_his_or_her_at_a_sentence_start_is_resolved(text, fact):
    assert fact in [t for _, t in facts(text)]


def test_a_name_known_from_memory_needs_no_relation_in_the_message():
    assert (None, "Kasper repairs bicycles for a living.") in facts("Kasper repairs bicycles for a living.", ("Kasper",))
    assert facts("Kasper repairs bicycles for a living.") == []  # a stranger's name: not about the person
    # a nationality is no name: "she" stays unresolved rather than becoming "Japanese"
    assert not any(t.startswith("Japanese") for _, t in facts("My wife is Japanese. She teaches piano."))


def test_question_forms_of_a_named_persons_fact_follow_its_clause():
    assert named_forms("Kasper repairs bicycles.") == ["What does Kasper do?", "What does Kasper repair?"]
    assert named_forms("Kasper lives in Aarhus.") == ["Where does Kasper live?"]  # living is no job
    assert named_forms("Kasper loves jazz.") == ["What does Kasper love?"]
    assert named_forms("Joost is a carpenter.") == ["What does Joost do?", "What is Joost's job?"]
    assert named_forms("User's brother is Kasper.") == ["Who is Kasper?"]
    assert named_forms("User lives in Porto.") == []


@pytest.mark.parametrize("messages", [
    ["My brother Kasper repairs bicycles."],
    ["My brother is Kasper.", "Kasper repairs bicycles for a living."],  # the name learnt from the message before
])
def test_what_does_kasper_do_for_work_is_answered_from_the_fact(tmp_path, minilm, messages):  # noqa: F811
    store = MemoryStore(tmp_path / "m.db", embed=minilm.embed, encrypted=False)
    try:
        capturer = Capturer(store, settings=Settings(), use_llm=False, tz=timezone.utc)
        sid = store.create_session("t").id
        for text in messages:
            capturer.capture_message(store.add_message(sid, "user", text, observed_at=OBS).id)
        retriever = Retriever(store, minilm)
        q = "What does Kasper do for work?"
        answer = A.choose(q, retriever.search(q, k=6), retriever.matcher)
        assert answer is not None and "repairs bicycles" in answer.text
    finally:
        store.close()


@pytest.mark.parametrize("text, facts", [
    # a lead, a name with its relation in apposition, a relative clause as the only predicate
    ("oh and Matjes, our ferret, who steals socks", {"User's ferret is Matjes.", "Matjes steals socks."}),
    ("oh and Kasper, my brother, who repairs bicycles", {"User's brother is Kasper.", "Kasper repairs bicycles."}),
    ("Bolacha, our gecko, sleeps all day.", {"User's gecko is Bolacha.", "Bolacha sleeps all day."}),
    ("I live in Leeds with my son Tobi. oh and Matjes, our ferret, who steals socks", {"User's ferret is Matjes."}),  # a later sentence
])  # fmt: skip
def test_a_name_in_apposition_keeps_its_name(text, facts):
    got = {c.text for c in extract(text, datetime(2026, 1, 8, tzinfo=timezone.utc))}
    assert facts <= got
