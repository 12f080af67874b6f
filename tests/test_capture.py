"""Capture on the hot path: episodes with provenance, rules + the REAL SmolLM2 extraction,
validation (no contamination), ADD-only, trust, incognito, remember/forget."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from capture_fakes import FakeQueuedModel
from store_fakes import FakeClock

from assistant.config import Settings
from assistant.engine import registry
from assistant.engine.chat import LlamaChatModel
from assistant.memory.capture.capturer import Capturer
from assistant.memory.capture.commands import parse_command, remember
from assistant.memory.forget.topic import propose as forget_candidates
from assistant.memory.records import Kind, Trust
from assistant.memory.store.facade import MemoryStore
from assistant.config import load_settings

UTC = timezone.utc
OBS = datetime(2023, 5, 22, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def smollm():
    """The REAL default chat model (SmolLM2-135M-Instruct) through llama.cpp."""
    m = LlamaChatModel(registry.default_chat_path(), n_ctx=2048, n_threads=2)
    m.load()
    return m


@pytest.fixture
def store(tmp_path):
    s = MemoryStore(tmp_path / "m.db", clock=FakeClock(datetime(2031, 1, 1, tzinfo=UTC)))  # "now" is far away
    yield s
    s.close()


def say(store, text, *, when=OBS, session=None, role="user"):
    session = session or store.create_session("chat")
    return store.add_message(session.id, role, text, observed_at=when)


def snapshot(store):
    c = store.conn
    return (
        c.execute("SELECT * FROM memories ORDER BY id").fetchall(),
        c.execute("SELECT count(*) FROM memory_versions").fetchone()[0],
    )


def all_texts(store):
    return [m.text for m in store.list(include_all=True)]


# ----------------------------------------------------------------------------- episodes, rules

def test_episode_with_full_provenance_and_grounded_facts(store):
    msg = say(store, "I went to Paris last week.")
    r = Capturer(store, use_llm=False, tz=UTC, settings=load_settings).capture_message(msg.id)
    ep = store.get(r.episode_id)
    assert ep.kind == Kind.EPISODE and ep.text == "I went to Paris last week."  # verbatim
    assert ep.valid_at == datetime(2023, 5, 15, tzinfo=UTC) and ep.trust == Trust.USER_STATED
    (src,) = ep.sources
    assert (src.session_id, src.message_id, src.speaker, src.extractor, src.observed_at) == (
        msg.session_id, msg.id, "user", "episode", OBS)
    (fact,) = store.get_many(r.memory_ids)
    # grounded against the message's observed_at (2023), not the store's clock (2031)
    assert fact.text == "User went to Paris the week of 2023-05-15."
    assert fact.valid_at == datetime(2023, 5, 15, tzinfo=UTC)
    assert fact.sources[0].extractor == "rules" and fact.sources[0].extractor_version == "1"
    assert "Paris" in fact.entities


def test_a_birthday_said_as_today_is_stored_by_its_day(store):
    # "9 July" is not in the words said: the message with its birthday named by its day supports it
    r = Capturer(store, use_llm=False, tz=UTC, settings=load_settings).capture_message(say(store, "it's my birthday today!!").id)
    assert "User's birthday is 22 May." in [m.text for m in store.get_many(r.memory_ids)], r  # OBS is 2023-05-22


def test_only_user_messages_are_captured(store):
    s = store.create_session("chat")
    r = Capturer(store, use_llm=False, settings=load_settings).capture_message(say(store, "I live in Lyon.", session=s, role="assistant").id)
    assert r.skipped and r.episode_id is None and store.count(include_all=True) == 0


def test_same_message_twice_adds_nothing(store):
    cap = Capturer(store, use_llm=False, settings=load_settings)
    msg = say(store, "I live in Shanghai and I work at Tencent.")
    first = cap.capture_message(msg.id)
    before = snapshot(store), store.conn.execute("SELECT count(*) FROM memory_sources").fetchone()[0]
    again = cap.capture_message(msg.id)  # a retry after a failure
    assert again.memory_ids == first.memory_ids and again.created_ids == []
    assert (snapshot(store), store.conn.execute("SELECT count(*) FROM memory_sources").fetchone()[0]) == before


def test_hot_path_only_adds_and_ends_what_a_message_says_changed(store):
    """Existing memories (including ones the new messages repeat or the model is pointed at)
    keep every column, except that an earlier state a message says changed ("I moved to
    Berlin", "... is Nando's now") is ended: a new version with only its end (issue 23)."""
    shanghai = store.add("User lives in Shanghai.", kind=Kind.PROFILE, slot="home_city")
    olive = store.add("User's favourite restaurant is Olive Garden.", kind=Kind.PROFILE, slot="favourite.restaurant")
    store.add("User works at Tencent.", kind=Kind.PROFILE, slot="employer")
    rows_before, versions_before = snapshot(store)
    model = FakeQueuedModel(  # FAKE model: proposes repeats and references to existing memories
        {"facts": [{"text": "User lives in Shanghai.", "about": 0}, {"text": "User moved to Berlin.", "about": 1}]},
    )
    cap = Capturer(store, model, settings=load_settings)
    store.core._clock.set(datetime(2031, 1, 2, 12, tzinfo=UTC))
    for text in ("I live in Shanghai.", "I moved to Berlin last month.", "My favourite restaurant is Nando's now.",
                 "I work at Tencent."):  # said a day after the memories above were learned
        cap.capture_message(say(store, text, when=datetime(2031, 1, 2, tzinfo=UTC)).id)
    rows_after, versions_after = snapshot(store)
    assert versions_before == 0
    for before, after in zip(rows_before, rows_after):
        if before[0] not in (shanghai, olive):
            assert after == before
    ended = {m.id: m for m in (store.get(shanghai), store.get(olive))}
    assert all(m.invalid_at is not None and m.version == 2 for m in ended.values())
    assert ended[shanghai].text == "User lives in Shanghai."  # the text is never touched
    assert len(rows_after) > len(rows_before)


# ----------------------------------------------------------------------------- the real model

def test_contamination_never_reaches_memory_with_real_smollm(store, smollm):
    """New "I had a great meal" + existing "favourite restaurant is Olive Garden": the REAL
    SmolLM2 is shown the existing memory; nothing written may name Olive Garden."""
    old = store.add("User's favourite restaurant is Olive Garden.", kind=Kind.PROFILE, slot="favourite.restaurant")
    msg = say(store, "I had a great meal")
    r = Capturer(store, smollm, settings=load_settings).capture_message(msg.id)
    assert "Olive Garden" in r.llm_prompt  # the model did see it
    new = [m for m in store.list(include_all=True) if m.id != old]
    assert new and all("olive" not in m.text.lower() and "garden" not in m.text.lower() for m in new), [m.text for m in new]
    for text, reason in r.rejected:  # whatever the model copied was caught, with the reason
        if "Olive" in text:
            assert "contamination" in reason
    assert store.get(old).version == 1


def test_proper_nouns_kept_with_real_smollm(store, smollm):
    msg = say(store, "I drive a Ferrari 488 GTB now, and I got promoted to assistant manager last week.")
    r = Capturer(store, smollm, tz=UTC, settings=load_settings).capture_message(msg.id)
    texts = [m.text for m in store.get_many(r.memory_ids)]
    joined = " ".join(texts)
    assert "Ferrari 488 GTB" in joined and "assistant manager" in joined
    assert "sports car" not in joined.lower()
    for t in texts:  # every written fact about the car names it exactly
        if "ferrari" in t.lower() or "car" in t.lower().split():
            assert "Ferrari 488 GTB" in t, t
    assert any("the week of 2023-05-15" in t for t in texts)
    for m in store.get_many(r.memory_ids):
        extractor = m.sources[0].extractor
        assert m.trust == (Trust.ASSISTANT_INFERRED if extractor.startswith("llm:") else Trust.USER_STATED)


# ----------------------------------------------------------------------------- model-independent logic (FAKE model)

def test_llm_only_fact_is_assistant_inferred_with_fake_model(store):
    model = FakeQueuedModel({"facts": [{"text": "User adopted a kitten called Miso."}, {"text": "Miso is a kitten."}]})
    r = Capturer(store, model, settings=load_settings).capture_message(say(store, "We adopted a kitten called Miso.").id)
    (m,) = [m for m in store.get_many(r.memory_ids) if m.text == "Miso is a kitten."]
    assert m.trust == Trust.ASSISTANT_INFERRED  # the rules' own facts ("User has a kitten named Miso.") are user_stated
    assert m.sources[0].extractor == "llm:fake-queued" and r.llm_proposed == 2 and r.llm_accepted == 1
    # the model's rewording of the rules' clause fact ("User's household adopted ...") is stored once, as the rules said it
    texts = [m.text for m in store.get_many(r.memory_ids)]
    assert "User adopted a kitten called Miso." not in texts and "User's household adopted a kitten called Miso." in texts


def test_fake_model_output_is_range_checked_and_validated(store):
    existing = store.add("User lives in Shanghai.", kind=Kind.PROFILE, slot="home_city")
    model = FakeQueuedModel({"facts": [
        {"text": "User's favourite restaurant is Olive Garden.", "about": 0},  # contamination
        {"text": "I really had a great meal", "about": 7},  # first person, out-of-range id
        {"text": "User had a meal with 4 friends.", "about": 0},  # invented number
    ]})
    r = Capturer(store, model, settings=load_settings).capture_message(say(store, "I really had a great meal").id)
    (_, schema), = model.calls
    assert schema["properties"]["facts"]["items"]["properties"]["about"] == {"enum": [-1, 0]}  # ids 0..n-1, never uuids
    assert "0: User lives in Shanghai." in model.calls[0][0][1].content
    reasons = dict(r.rejected)
    assert "hallucination" in reasons["User's favourite restaurant is Olive Garden."]
    assert "number" in reasons["User had a meal with 4 friends."]
    assert [m.text for m in store.get_many(r.memory_ids)] == ["User really had a great meal."]
    assert store.get(existing).links == ()  # the out-of-range reference was dropped


def test_bad_model_output_is_not_an_error_with_fake_model(store):
    r = Capturer(store, FakeQueuedModel(ValueError("truncated JSON")), settings=load_settings).capture_message(say(store, "I live in Lyon.").id)
    assert r.llm_error and "User lives in Lyon." in [m.text for m in store.get_many(r.memory_ids)]


# ----------------------------------------------------------------------------- trust, incognito, settings

def test_imported_session_gives_imported_trust(store):
    s = store.create_session("old chat", external_id="import:test:1")
    r = Capturer(store, FakeQueuedModel({"facts": [{"text": "User adopted a kitten called Miso."}]}), settings=load_settings).capture_message(
        say(store, "I live in Lyon. We adopted a kitten called Miso.", session=s).id)
    ids = [r.episode_id, *r.memory_ids]
    assert len(ids) >= 3 and {m.trust for m in store.get_many(ids)} == {Trust.IMPORTED}


def test_incognito_session_captures_nothing(store):
    s = store.create_session("secret", incognito=True)
    r = Capturer(store, use_llm=False, settings=load_settings).capture_message(say(store, "I live in Lyon.", session=s).id)
    assert r.skipped == "incognito session" and store.count(include_all=True) == 0


@pytest.mark.parametrize("settings", [Settings(memory_enabled=False), Settings(incognito=True)])
def test_memory_off_in_settings_captures_nothing(store, settings):
    r = Capturer(store, use_llm=False, settings=settings).capture_message(say(store, "I live in Lyon.").id)
    assert r.skipped and store.count(include_all=True) == 0


# ----------------------------------------------------------------------------- remember / forget

def test_remember_stores_a_user_stated_fact_at_once(store):
    msg = say(store, "Remember that my locker code is 4512.")
    cmd = parse_command(msg.content)
    added = remember(store, cmd, message=msg)
    m = store.get(added.id)
    assert (m.text, m.trust, m.confidence, m.kind) == ("User's locker code is 4512.", Trust.USER_STATED, 1.0, Kind.FACT)
    r = Capturer(store, use_llm=False, settings=load_settings).capture_message(msg.id)  # the later capture adds no second copy
    assert added.id in r.memory_ids and len(store.get(added.id).sources) == 1


def test_forget_never_deletes_without_confirmation(store):
    cap = Capturer(store, use_llm=False, settings=load_settings)
    cap.capture_message(say(store, "Remember that my locker code is 4512.").id)
    cap.capture_message(say(store, "I live in Lyon.").id)
    total = store.count(include_all=True)
    msg = say(store, "Forget my locker code")
    r = cap.capture_message(msg.id)
    assert r.command.kind == "forget" and r.skipped and store.count(include_all=True) == total  # nothing stored
    candidates = forget_candidates(store, None, r.command.text)
    assert candidates and all("locker code" in c.text for c in candidates) and all(c.pre_ticked for c in candidates)
    assert store.count(include_all=True) == total  # still nothing deleted
    from assistant.memory.forget.topic import request_for

    assert store.forget(request_for(candidates)).ok  # the caller confirmed
    assert all("4512" not in t for t in all_texts(store) if not t.startswith("Remember"))


def test_forget_candidates_are_about_the_topic_not_only_similar(store):
    a = store.add("User lives in Lyon.")
    b = store.add("User's locker code is 4512.")

    class Hit:  # stands in for retrieve.Hit
        def __init__(self, memory, score):
            self.memory, self.score = memory, score

    class FakeRetriever:  # FAKE: returns fixed hits with fixed scores; the words decide the rest
        def search(self, query, k=5):
            return [Hit(store.get(a), 0.4)]

    found = forget_candidates(store, FakeRetriever(), "locker code", k=5)
    assert [(c.memory_id, c.pre_ticked) for c in found] == [(b, True)]  # Lyon: close in meaning (0.4), not about it


def test_extraction_schema_compiles_to_a_llama_grammar():
    """The grammar is built from the schema (a bad schema must fail loudly, not fall back)."""
    import json

    import llama_cpp

    from assistant.memory.capture.llm import schema

    for n in (0, 1, 8):
        assert llama_cpp.LlamaGrammar.from_json_schema(json.dumps(schema(n)), verbose=False) is not None


def test_joost_and_pepper_clause_by_clause_then_forget_the_cat_keeps_the_carpenter(store):
    """Issue 24's sentence: each clause its own memory, a "Saved: ..." notice listing them, and
    "forget my cat" cuts the cat clause only (rules only: no model)."""
    from assistant.memory.capture.saved import saved_from, saved_notice
    from assistant.memory.forget.topic import request_for

    msg = say(store, "My partner Joost is a carpenter, and we have a cat called Pepper.")
    Capturer(store, settings=load_settings, use_llm=False).capture_message(msg.id)
    kept = saved_from(store, msg.id)
    texts = {m.text for m in kept}
    assert {"User's partner is Joost.", "Joost is a carpenter."} <= texts
    assert any("cat" in t and "Pepper" in t for t in texts), texts
    notice = saved_notice(kept)
    assert notice.startswith("Saved: ") and all(f"(#{m.id})" in notice for m in kept)
    assert saved_notice(saved_from(store, say(store, "What's the capital of Peru?").id)) is None  # nothing stored: no notice

    found = forget_candidates(store, None, "my cat")
    ticked = [c for c in found if c.pre_ticked]
    episode = next(c for c in ticked if c.kind == "episode")
    assert episode.kept == "My partner Joost is a carpenter."  # the clause about the cat goes, its neighbour stays
    assert not any("carpenter" in c.text for c in ticked if c.kind != "episode")
    store.forget(request_for(ticked))
    left = {m.text for m in store.list(limit=50)}
    assert "Joost is a carpenter." in left and "User's partner is Joost." in left
    assert not any("Pepper" in t for t in left), left
    # the episode and the person's own message keep the neighbouring clause, not just the facts
    assert "My partner Joost is a carpenter." in left, left
    assert store.get_message(msg.id).content == "My partner Joost is a carpenter."
