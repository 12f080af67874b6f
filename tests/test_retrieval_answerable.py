"""Abstention gates (assistant.memory.retrieval.answerable) and per-message diversity, pure and on a real
store. Vectors: a FAKE bag-of-words embedder or ``vector_at`` (an exact cosine to the query), so
the gates are tested apart from MiniLM; quality with the real model is in
test_retrieval_quality.py and ``keepsake bench retrieval --quality``."""

from __future__ import annotations

import numpy as np
import pytest
from retrieval_fakes import FakeBowEmbedder, bow_store, vector_at
from store_fakes import dt

from assistant.memory.retrieval import answerable as ans
from assistant.memory.records import Kind, Role, Source
from assistant.memory.retrieval.retriever import DEFAULT_THRESHOLD, Retriever


@pytest.mark.parametrize("text, says", [
    ("Give me five tips for sleeping better", False),
    ("What's a good recipe for a quick weeknight dinner? Something vegetarian.", False),
    ("Can you make this email sound more polite? 'Send me the files by Friday.'", False),
    ("thanks, you're the best", False),
    ("lol nice", False),
    ("The phone one is hard", False),
    ("Finally did intervals: 6 x 800 m at 5:05 per km. Didn't die.", True),
    ("Tom's band played at The Old Duke tonight.", True),
    ("Can you suggest a 10k plan? I want to run the Bath 10k on July 13.", True),
    ("I'm allergic to shellfish btw", True),
    ("Honestly the best thing this year was finally learning to make sourdough.", True),  # the subject left out
])  # fmt: skip
def test_states_something(text, says):
    assert ans.states_something(text) is says


def test_what_a_question_asks():
    a = ans.asked("What's my grandmother's maiden name?")
    assert a.relations == ("grandmother",) and a.favourite == () and a.names == ()
    assert ans.asked("Do I have a brother?").relations == ("brother",)
    assert ans.asked("What is my cat's favourite toy?").favourite == ("toy",)
    assert ans.asked("Have I ever been to Brazil in March?").names == ("brazil",)  # months are no names
    assert ans.asked("What vegetables do I grow at home?").focus == ("vegetables", "grow", "home")
    assert ans.asks_past("How long did my train ride take?") and not ans.asks_past("How do I get to work?")


@pytest.mark.parametrize("text, relation, has", [
    ("my mum is having surgery", "mother", True),
    ("Mum came down from Gloucester", "mother", True),
    ("I have a grey cat named Pixel", "pet", True),
    ("I'm an auntie!! Clara had a baby girl", "niece", True),
    ("The teacher is from Valencia", "teacher", True),  # a particular teacher in the person's life
    ("my partner is a chemistry teacher", "teacher", False),  # a teacher, not the person's
    ("Her cat Marmalade will not leave her side", "cat", False),  # the mother's cat
    ("my sister lives in Cardiff", "brother", False),
    # chat drops the article or names the role: still the person's own (dev4)
    ("dentist (Dr. Sofia Pinheiro, the one on Rua de Cedofeita) says I need a crown", "dentist", True),
    ("I'm taking French lessons on Thursdays with a tutor called Margaux", "teacher", True),
    ("Called Mum today. Ursula turns 70 in August", "mother", True),  # "Mum" used as her name
    ("We watched Father Ted again", "father", False),
    ("Which dentist is the best in town?", "dentist", False),
])  # fmt: skip
def test_has_relation(text, relation, has):
    assert ans.has_relation(text, relation) is has


def test_relation_names_and_favourites():
    assert ans.relation_names("I has a dog named Pepper.", "dog") == {"pepper"}
    assert ans.relation_names("Quick one: my dog Pepper has been limping", "dog") == {"pepper"}
    assert ans.about_relation("Pepper is obsessed with cheese", "dog", True, {"pepper"})
    assert ans.about_relation("She lives in Cardiff with her husband", "sister", True)  # a message speaking of "her"
    assert not ans.about_relation("I am allergic to peanuts", "sister", False)
    assert ans.mentions_favourite("My favourite color is green", ("colour",))
    assert not ans.mentions_favourite("Maya dislikes horror films", ("film",))


# -- on a store --------------------------------------------------------------------------------


@pytest.fixture
def emb():
    return FakeBowEmbedder()


@pytest.fixture
def store(tmp_path, emb):
    with bow_store(tmp_path / "m.db", emb, dt(2025, 7, 1, 12)) as s:
        yield s


def _q(emb, text):
    return np.asarray(emb.embed([text])[0])


def test_a_relation_nobody_mentioned_gets_no_memory_and_a_known_one_gets_its_messages(store, emb):
    q = "What's my grandmother's name?"
    qv = _q(emb, q)
    store.add("My mother Grace lives in Abuja", kind=Kind.EPISODE, embedding=vector_at(qv, 0.6, 1))
    r = Retriever(store, emb)
    assert r.search(q) == []
    [hit] = r.search(q, include_rejected=True)
    assert "no memory says the person has a grandmother" in hit.why_not
    q2 = "What is my sister's husband called?"
    store.add("My sister Clara is pregnant", kind=Kind.EPISODE, embedding=vector_at(_q(emb, q2), 0.1, 2))
    said = store.add("She lives in Cardiff with her husband Owen", kind=Kind.EPISODE, embedding=vector_at(_q(emb, q2), 0.5, 3))
    other = store.add("I run along the harbour", kind=Kind.EPISODE, embedding=vector_at(_q(emb, q2), 0.55, 4))
    got = [h.memory.id for h in r.search(q2)]
    assert said in got and other not in got  # "her": the message speaks of someone; the run does not


def test_an_unknown_name_needs_a_close_match(store, emb):
    q = "Have I ever been to Brazil?"
    qv = _q(emb, q)
    loose = store.add("I live in Lisbon, Portugal", embedding=vector_at(qv, ans.NAME_COSINE - 0.05, 1))
    assert Retriever(store, emb).search(q) == []
    close = store.add("I have never travelled outside Europe", embedding=vector_at(qv, ans.NAME_COSINE + 0.05, 2))
    assert [h.memory.id for h in Retriever(store, emb).search(q)] == [close]
    assert loose != close


def test_one_hit_per_source_message_first(store, emb):
    q = "where does Clara live"
    qv = _q(emb, q)
    session = store.create_session("s").id
    one = store.add_message(session, Role.USER, "Clara lives in Cardiff. I love her.", observed_at=dt(2025, 5, 1)).id
    two = store.add_message(session, Role.USER, "Clara moved to Cardiff last year.", observed_at=dt(2025, 5, 2)).id
    src = lambda m: Source(session_id=session, message_id=m, extractor="test", observed_at=dt(2025, 5, 1))  # noqa: E731
    a = store.add("Clara lives in Cardiff.", source=src(one), embedding=vector_at(qv, 0.9, 1))
    b = store.add("Clara lives in Cardiff. I love her.", kind=Kind.EPISODE, source=src(one), embedding=vector_at(qv, 0.85, 2))
    c = store.add("Clara moved to Cardiff last year.", kind=Kind.EPISODE, source=src(two), embedding=vector_at(qv, 0.5, 3))
    r = Retriever(store, emb)
    assert [h.memory.id for h in r.search(q, k=2)] == [a, c]  # the episode of message one gives way
    assert [h.memory.id for h in r.search(q, k=3)] == [a, b, c]  # ... and fills what is left


def test_a_past_question_also_finds_what_is_no_longer_true(store, emb):
    q = "How long did my train ride to work take"
    qv = _q(emb, q)
    old = store.add("I commute by train, only 12 minutes", valid_at=dt(2025, 4, 8), invalid_at=dt(2025, 5, 16),
                    embedding=vector_at(qv, 0.6, 1))  # fmt: skip
    r = Retriever(store, emb)
    assert [h.memory.id for h in r.search(q)] == [old]
    assert r.search("How long is my train ride to work", vector=vector_at(qv, 1.0, 0)) == []  # about now: retired
    assert DEFAULT_THRESHOLD < 0.6
