"""A real delete reaches the derived context (assistant.context.redact, registered with the
store's Forgetter in services.open_store): the compaction summary of a session loses the facts of
a forgotten message, rebuilt at once in the delete's own transaction.

Real store (encrypted, in the per-test KEEPSAKE_HOME), real archive and state (tables of the
encrypted database). Tests ending in ``_no_model`` use no model at all (token counts: ~4 chars
per token); ``_fake_model`` ones use a recording fake for the summary's narrative (the narrative
must not survive a delete).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assistant.context.compaction import Compactor, ContextMessage, load_state, read_history
from assistant.context.facts import Fact, salvage
from assistant.memory.records import Role, Source

SECRET = "My new address is Rue Garibaldi 17 in Grenoble since 2024-03-02."
TALK = [
    "Hi, I'm Dana Moreau and I work as a nurse at the Lyon hospital.",
    SECRET,
    "I decided to book a trip to Porto on June 14th with my sister Lea.",
    "The budget for the trip is 850 euros.",
    "My dog Biscuit is 3 years old.",
    "Tomorrow I will call Dr. Patel about my knee.",
    "Can you suggest a dinner with lentils?",
    "I'm meeting Lea at 7pm on Friday.",
    "The pottery class costs 120 euros per term.",
    "Marc says hi.",
]
GONE = ("Garibaldi", "Grenoble", "2024-03-02")  # only in the secret message
KEPT = ("Dana Moreau", "Lyon", "Porto", "June 14th", "850 euros")  # facts of other covered messages


def chars(text: str) -> int:
    return (len(text) + 3) // 4


class RecordingModel:
    """FAKE model: returns a fixed narrative (quoting the secret) and records its prompts."""

    def __init__(self, reply: str) -> None:
        self.reply, self.prompts = reply, []

    def complete(self, messages, **kw):
        self.prompts.append("\n".join(m.content for m in messages))
        return self.reply, None


def stored_conversation(store, talk=TALK):
    """A session with ``talk`` as user turns (and short replies) in the store, as ContextMessages."""
    s = store.create_session("chat")
    history, ids = [], {}
    for t, text in enumerate(talk):
        u = store.add_message(s.id, Role.USER, text)
        a = store.add_message(s.id, Role.ASSISTANT, f"Thanks for telling me ({t}).")
        history += [ContextMessage("user", text, u.id, raw=text), ContextMessage("assistant", a.content, a.id)]
        ids[text] = u.id
    return s.id, history, ids


def files_with(root: Path, word: str) -> list[str]:
    hits = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "models"]  # model files (vocabularies) are not the app's copies
        for name in files:
            p = Path(dirpath) / name
            if word.lower().encode() in p.read_bytes().lower():
                hits.append(str(p.relative_to(root)))
    return hits


def in_db(store, word: str) -> list[str]:
    """Tables of the decrypted database that still hold ``word``."""
    found = []
    for (t,) in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        for row in store.conn.execute(f'SELECT * FROM "{t}"'):
            if any(isinstance(v, str) and word.lower() in v.lower() for v in row):
                found.append(t)
                break
    return found


def compact(store, sid, history, model=None):
    return Compactor(chars, model, archive=store.context_archive).compact(sid, history, target_tokens=0)


@pytest.fixture
def store(services):
    s = services.open_store(with_embedder=False)  # the app's store, with its on_delete wiring
    yield s
    s.close()


def test_deleting_a_memory_removes_its_source_facts_from_the_summary_no_model(store, keepsake_home):
    sid, history, ids = stored_conversation(store)
    compact(store, sid, history)
    before = load_state(store.context_archive, sid)
    assert before.covered_up_to >= ids[SECRET]
    assert all(w in before.summary for w in GONE + KEPT), before.summary
    memory = store.add("Lives at Rue Garibaldi 17, Grenoble", source=Source(sid, ids[SECRET]))

    report = store.delete(memory)  # redact_sources by default

    assert report.ok and ids[SECRET] in report.redacted_message_ids
    assert [h.counts for h in report.holders if h.name == "context_summaries"] == [{"summaries_rebuilt": 1}]
    for word in GONE:
        assert in_db(store, word) == [], word  # state, archive, messages: nothing keeps it
        assert files_with(keepsake_home, word) == []
    after = load_state(store.context_archive, sid)
    assert all(w in after.summary for w in KEPT), after.summary
    assert after.covered_up_to == before.covered_up_to and after.archive == before.archive
    assert not any(f.message_id == ids[SECRET] for f in after.facts)
    assert len(after.summary) <= len(before.summary)  # the window still fits
    archived = {m.id: m for m in read_history(store.context_archive, sid)}
    assert archived[ids[SECRET]].content == "" and archived[ids["Marc says hi."]].content == "Marc says hi."
    assert after.facts  # still a summary, not an emptied state


def test_a_short_message_is_redacted_in_the_archive_and_the_summary_too_no_model(store):
    # The old file scan skipped deleted texts under 12 characters: "Berlin." stayed in the
    # archive and a refresh brought it back. Matching now works at any length.
    talk = [TALK[0], "Berlin.", *TALK[2:]]
    sid, history, ids = stored_conversation(store, talk)
    compact(store, sid, history)
    assert "Berlin" in load_state(store.context_archive, sid).summary
    memory = store.add("Moved to Berlin recently", source=Source(sid, ids["Berlin."]))

    store.delete(memory)

    assert in_db(store, "Berlin") == []
    assert "Dana Moreau" in load_state(store.context_archive, sid).summary


def test_the_narrative_is_dropped_when_a_covered_message_is_redacted_fake_model(store):
    sid, history, ids = stored_conversation(store)
    compact(store, sid, history, RecordingModel("Dana moved to Rue Garibaldi in Grenoble."))
    assert "Narrative: Dana moved to Rue Garibaldi" in load_state(store.context_archive, sid).summary
    memory = store.add("Lives at Rue Garibaldi 17, Grenoble", source=Source(sid, ids[SECRET]))

    store.delete(memory)

    summary = load_state(store.context_archive, sid).summary
    assert "Narrative" not in summary and "Garibaldi" not in summary and "Dana Moreau" in summary


def test_deleting_the_session_removes_its_state_and_leaves_other_sessions_alone_no_model(store):
    sid, history, ids = stored_conversation(store)
    other, other_history, _ = stored_conversation(store, [f"Noor Haddad paid {100 + k} euros for lesson {k}." for k in range(10)])
    compact(store, sid, history)
    compact(store, other, other_history)
    other_state = store.context_archive.state(str(other))

    report = store.delete_session(sid)

    assert report.ok and report.session_ids == (sid,)
    assert store.context_archive.state(str(sid)) is None and read_history(store.context_archive, sid) == []
    assert in_db(store, "Garibaldi") == []
    assert store.context_archive.state(str(other)) == other_state  # not refreshed


def test_a_message_after_the_summary_is_redacted_in_the_archive_without_a_refresh_fake_model(store):
    sid, history, ids = stored_conversation(store, [t for t in TALK if t != SECRET] + [SECRET])
    compact(store, sid, history, RecordingModel("Dana is planning a trip."))
    state = store.context_archive.state(str(sid))
    assert load_state(store.context_archive, sid).covered_up_to < ids[SECRET]
    memory = store.add("Lives at Rue Garibaldi 17, Grenoble", source=Source(sid, ids[SECRET]))

    store.delete(memory)

    assert store.context_archive.state(str(sid)) == state  # narrative kept: nothing of it was covered
    assert {m.id: m.content for m in read_history(store.context_archive, sid)}[ids[SECRET]] == ""


def test_a_failing_rebuild_fails_the_delete_as_a_whole_and_says_so_no_model(store, monkeypatch):
    sid, history, ids = stored_conversation(store)
    compact(store, sid, history)
    memory = store.add("Lives at Rue Garibaldi 17, Grenoble", source=Source(sid, ids[SECRET]))

    def boom(self, session_id):
        raise OSError("disk full")

    monkeypatch.setattr(Compactor, "refresh", boom)
    report = store.delete(memory)
    assert not report.executed and not report.ok
    assert report.errors == ("context_summaries failed, so nothing was deleted: disk full",)
    assert store.get_message(ids[SECRET]).content == SECRET and store.get(memory).text  # nothing half-done
    assert "Garibaldi" in load_state(store.context_archive, sid).summary


def test_facts_of_a_message_overwritten_with_the_deleted_marker_are_not_salvaged_no_model():
    # An archive migrated from an older version may hold "[deleted]" where a message was
    # redacted: that message's facts must not be kept.
    history = [ContextMessage("user", "[deleted]", 3, raw="[deleted]"), ContextMessage("user", "", 5, raw=None),
               ContextMessage("user", "Call Anna.", 7, raw=None)]  # fmt: skip
    previous = [Fact("decision", "[deleted]", 3), Fact("name", "Ana", 5), Fact("name", "Anna", 7)]
    assert salvage(previous, history) == [Fact("name", "Anna", 7)]
