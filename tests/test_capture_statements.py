"""Capture keeps only what the person states about themselves (issue 14): the classifier, the
labeled message set, and the chat as a person uses it (a question never becomes a memory)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from store_fakes import FakeClock
from test_cli_core import keepsake

from assistant.bench import capture as bench
from assistant.config import Settings
from assistant.memory.capture.capturer import NOT_A_STATEMENT, Capturer
from assistant.memory.records import Kind
from assistant.memory.language.statements import Act, classify
from assistant.memory.store.facade import MemoryStore

UTC = timezone.utc
OBS = datetime(2024, 3, 18, 10, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path):
    s = MemoryStore(tmp_path / "m.db", clock=FakeClock(datetime(2031, 1, 1, tzinfo=UTC)))
    yield s
    s.close()


def capture(store, text):
    msg = store.add_message(store.create_session("chat").id, "user", text, observed_at=OBS)
    return Capturer(store, use_llm=False, settings=Settings(), tz=UTC).capture_message(msg.id)


# ----------------------------------------------------------------------------- the classifier (pure)

@pytest.mark.parametrize("text, act", [
    ("I live in Lyon.", Act.STATEMENT),
    ("Where do I live?", Act.QUESTION),
    ("how do i get rid of fruit flies in my kitchen", Act.QUESTION),  # no question mark
    ("I was wondering how long it takes to learn the piano.", Act.QUESTION),
    ("Give me five tips for sleeping better", Act.REQUEST),
    ("I need a recipe for vegan lasagna.", Act.REQUEST),
    ("Write a long story about a nurse and her dog", Act.REQUEST),
    ("Thanks!", Act.CHITCHAT),
    ("I love it, thanks!", Act.CHITCHAT),
    ("I have a question about taxes.", Act.CHITCHAT),
    ("Paris is the capital of France.", Act.OTHER),
    ("I think it's going to rain.", Act.OTHER),
    ("From now on, please answer in British English.", Act.STATEMENT),  # a standing instruction
    ("Remember that my locker code is 4512.", Act.STATEMENT),
    ("Just got back from a week in Crete with the kids.", Act.STATEMENT),  # subject left out
    ("我住在北京，在一家银行工作。", Act.STATEMENT),
    ("我住在哪里？", Act.QUESTION),
    ("给我推荐几本科幻小说。", Act.REQUEST),
    ("Vivo en Valencia y trabajo en un hospital.", Act.STATEMENT),
    ("¿Dónde vivo?", Act.QUESTION),
    ("Ich wohne in Hamburg und arbeite bei Airbus.", Act.STATEMENT),
    ("Schreib mir eine kurze Geschichte über einen Drachen.", Act.REQUEST),
    ("J'adore le fromage mais je suis intolérant au lactose.", Act.STATEMENT),
    ("Où est-ce que j'habite ?", Act.QUESTION),
    ("Meu nome é João e moro em Lisboa.", Act.STATEMENT),
    ("Me dá umas dicas para dormir melhor.", Act.REQUEST),
])
def test_one_sentence_acts(text, act):
    (unit,) = classify(text).units
    assert unit.act is act, unit


def test_mixed_messages_keep_their_statement_units_verbatim():
    cases = {
        "I just moved to Lisbon. Can you recommend some restaurants near Alfama?": ["I just moved to Lisbon."],
        "My daughter turns 6 on Saturday — any ideas for a party theme?": ["My daughter turns 6 on Saturday"],
        "I'm vegetarian, so what can I eat in Mongolia?": ["I'm vegetarian"],
        "What's a good gift for my wife? She loves hiking and photography.": ["She loves hiking and photography."],
        "我刚搬到深圳，有什么好吃的餐厅推荐吗？": ["我刚搬到深圳"],
        "If I moved to Canada, would I need a work permit?": [],  # a condition is part of the question
        "Can you make this email sound friendlier?\n\nHi Tom, I wanted to follow up on my invoice.": [],  # pasted text
    }
    for text, expected in cases.items():
        found = classify(text)
        assert [u.text for u in found.statements] == expected, text
        for u in found.units:
            assert text[u.start:u.end] == u.text  # units are verbatim slices of the message


def test_the_persons_life_without_i():
    cases = {
        "Long run today: 16 km in 1:38.": ["Long run today: 16 km in 1:38."],  # a time and a distance
        "Offer on the flat accepted!!": ["Offer on the flat accepted!!"],  # a life event, past tense
        "We finally booked the honeymoon. Two weeks in Sri Lanka.": ["We finally booked the honeymoon.",
                                                                    "Two weeks in Sri Lanka."],  # goes on
        "Quick update: the landlord finally fixed the boiler.": ["the landlord finally fixed the boiler."],  # header left out
        "Here's my background so you have it: I have 8 years of experience in UX.": ["I have 8 years of experience in UX."],
        "The Great Wall of China is over 21,000 km long.": [],  # the world, not the person
        "It's supposed to snow in the Alps tomorrow.": [],
        "Thanks, that worked!": [],
    }
    for text, expected in cases.items():
        assert [u.text for u in classify(text).statements] == expected, text


def test_another_language_is_read_in_its_english_reading():
    # no rule finds these personal in their own words; their word-by-word English does
    cases = {
        "Oma Gerda ist letzte Woche ins Pflegeheim in Emmendingen gezogen.": "their life (English reading)",  # grandmother, last week
        "Camille的妈妈Hélène下个月要从里昂来波尔图住两个星期。": "their life (English reading)",  # mother, next month
        "她对花生过敏。": "someone they know (English reading)",  # she ...
        "El lunes empiezo a trabajar en un colegio de Zaragoza.": "first person (English reading)",
    }
    for text, rule in cases.items():
        assert [u.rule for u in classify(text).units] == [rule], text
    # a time alone in a word-by-word reading is no one's life: the world stays the world
    assert not classify("Según el pronóstico, mañana nevará en Madrid.").statements
    assert not classify("París es la capital de Francia.").statements


def test_the_persons_own_people_by_name():
    # "Tom" is known from memory (the capturer passes the names of partner/family/pet profiles)
    assert [u.rule for u in classify("Tom's band plays at The Old Duke.", ["Tom"]).units] == ["their people"]
    assert [u.rule for u in classify("Tom's band played at The Old Duke.").units] == ["their life"]  # past tense alone
    assert [u.rule for u in classify("Priya keeps changing the requirements.", ["Priya"]).units] == ["their people"]
    assert [u.rule for u in classify("Priya keeps changing the requirements.").units] == ["not about the person"]
    # a message names its own people: "my sister Clara" makes "Clara" one of them
    assert [u.act for u in classify("My sister Clara lives in Cardiff. Clara has a cat.").units] == [Act.STATEMENT] * 2


def test_a_pasted_document_keeps_only_the_personal_sentences():
    text = ("I wrote this for my blog. The bridge opened in 1932. It carried trams until 1961. Traffic grew every "
            "year. A second deck was added in 1975. The city repainted it in 2010.")
    assert [u.text for u in classify(text).statements] == ["I wrote this for my blog."]


# ----------------------------------------------------------------------------- capture (real store, rules)

def test_a_question_stores_nothing(store):
    r = capture(store, "Where do I live?")
    assert r.skipped == NOT_A_STATEMENT and r.episode_id is None
    assert store.count(include_all=True) == 0
    # it stays in the conversation: message search finds it
    assert [m.content for m in store.search_messages("where do I live")] == ["Where do I live?"]


def test_a_mixed_message_keeps_only_its_statement(store):
    r = capture(store, "I live in Lyon. Should I move to Paris for the job at Renault?")
    texts = sorted(m.text for m in store.get_many([r.episode_id, *r.memory_ids]))
    assert texts == ["I live in Lyon.", "User lives in Lyon."]
    assert store.get(r.episode_id).kind == Kind.EPISODE
    # nothing stored mentions what was only asked about
    assert not any(w in t for t in (m.text for m in store.list(include_all=True)) for w in ("Paris", "Renault"))


def test_names_of_the_persons_people_come_from_memory(store):
    capture(store, "My partner Tom is a music teacher.")  # profile: User's partner is Tom.
    r = capture(store, "Tom plays bass in a band.")  # present tense, no "I": only the name tells
    assert r.episode_id is not None and store.get(r.episode_id).text == "Tom plays bass in a band."
    # someone else's opinion of Tom's band is no statement of the person: not even the message's copy is kept
    assert capture(store, "Priya says Tom's band is the best in Bristol.").episode_id is None
    fresh = Capturer(store, use_llm=False, settings=Settings(), tz=UTC)  # a new process: names from the profile
    assert "Tom" in fresh.known_names()


def test_labeled_set_precision_and_recall():
    """The labeled set (tests/data/capture_set.jsonl, >= 200 messages in six languages) through the
    real capture, rules only. precision = correct stored / stored, recall = kept spans / spans;
    the targets are 0.95 and 0.9. The old behaviour (every message whole) is scored the same way
    and must do worse: on this set it stores every question, e.g. 423 episodes for 212 stated
    facts gives precision ~0.49."""
    items = bench.load_set(bench.DEFAULT_SET)
    assert len(items) >= 200 and {i.lang for i in items} >= {"en", "zh", "es", "de", "fr", "pt"}
    assert {i.category for i in items} >= {"statement", "question", "request", "command", "chitchat", "mixed"}
    verdicts, _ = bench.capture_all(items)
    s = bench.score(verdicts)
    assert s["precision"] >= 0.95 and s["recall"] >= 0.9, [(v.item.id, v.wrong, v.missed) for v in verdicts if v.wrong or v.missed]
    old = bench.score(bench.baseline(items))
    assert old["precision"] < 0.6 < s["precision"]


def test_the_judge_catches_a_stored_question():
    item = bench.Labeled("x", "dev", "mixed", "en", "I live in Lyon. Where should I eat?", ("I live in Lyon.",))
    good = bench.judge(item, [bench.StoredMemory("I live in Lyon.", "episode"), bench.StoredMemory("User lives in Lyon.", "profile")])
    bad = bench.judge(item, [bench.StoredMemory(item.text, "episode"), bench.StoredMemory("User should eat.", "fact")])
    assert (good.wrong, good.missed) == ([], [])
    assert [m.kind for m in bad.wrong] == ["episode", "fact"] and bad.missed == []


# ----------------------------------------------------------------------------- as a person uses it (real models)

def test_chat_once_question_stores_no_memory_of_itself(converted_embedder_path, keepsake_home):
    short = ("--max-tokens", "24", "--json")  # the reply does not matter here; keep it short on a busy machine
    intro = keepsake("chat", "--once", "Hi, I'm Dana. I live in Porto and work as a nurse.", *short)
    assert intro.returncode == 0, intro.stderr
    out = keepsake("chat", "--once", "Where do I live?", *short)
    assert out.returncode == 0, out.stderr
    assert not any("Where do I live" in m["text"] for m in json.loads(out.stdout)["injected_memories"])
    texts = [m["text"] for m in json.loads(keepsake("memory", "list", "--all", "--json").stdout)]
    texts += [m["text"] for m in json.loads(keepsake("memory", "list", "--all", "--kind", "episode", "--json").stdout)]
    assert "User lives in Porto." in texts
    assert not any("Where do I live" in t for t in texts), texts  # no memory whose text is the question
    hits = json.loads(keepsake("memory", "search", "Where do I live?", "--json").stdout)
    assert not any("Where do I live" in h["text"] for h in hits)  # so it can never retrieve itself
    found = json.loads(keepsake("sessions", "search", "where do I live", "--json").stdout)
    assert "Where do I live?" in [m["content"] for m in found]  # still in the conversation


def test_what_a_new_user_typed_is_read_as_they_meant_it():
    # a fast-typed question (no apostrophe, no "?") is a question, never a memory
    assert [u.act for u in classify("whats my daughters name and how old is she").units] == [Act.QUESTION]
    # a greeting question before a statement, with no "?" at its end: the statement is kept
    units = classify("how's it going, I got a new job at Tesco").units
    assert [(u.act, u.text) for u in units] == [(Act.QUESTION, "how's it going"), (Act.STATEMENT, "I got a new job at Tesco")]
    assert [u.act for u in classify("I'm vegetarian, so what can I eat?").units] == [Act.STATEMENT, Act.QUESTION]


def test_a_filler_in_another_language_is_no_fact_and_the_subject_goes_on():
    from assistant.memory.language.rules import extract

    said = " ".join(u.text for u in classify("Por cierto, mi mejor amiga Priya vive en Manchester y es dentista.").statements)
    got = [c.text for c in extract(said, datetime(2026, 12, 6, tzinfo=timezone.utc))]
    assert got == ["User: mi mejor amiga Priya vive en Manchester.", "User: mi mejor amiga Priya es dentista."], got


@pytest.mark.parametrize("text", ["Wo spiele ich sonntags Schach, und mit wem?", "Où est-ce que je travaille, déjà ?"])
def test_the_first_clause_of_a_question_in_another_language_is_no_statement(text):
    # a new user's "Wo spiele ich sonntags Schach, und mit wem?" had been saved as "User: Wo spiele ich sonntags Schach."
    assert classify(text).statements == ()


def test_a_statement_before_a_question_is_still_a_statement():
    assert [u.text for u in classify("Mein Hund heißt Rex, wie alt ist er?").statements] == ["Mein Hund heißt Rex"]
