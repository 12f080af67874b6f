"""A real delete reaches the derived context files (assistant.context.redact, wired in
services.open_store): the compaction summary of a session loses the facts of a redacted message.

Real store (encrypted, in the per-test KEEPSAKE_HOME), real archive and state files. Tests ending
in ``_no_model`` use no model at all (token counts: ~4 chars per token); ``_fake_model`` ones use
a recording fake for the summary's narrative (the narrative must not survive a delete).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from assistant import services
from assistant.context import offload
from assistant.context.compaction import Compactor, ContextMessage, load_state, read_history
from assistant.context.facts import Fact, salvage
from assistant.context.redact import refresh_after_delete
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


@pytest.fixture
def store():
    s = services.open_store(with_embedder=False)  # the app's store, with its on_delete wiring
    yield s
    s.close()


def test_deleting_a_memory_removes_its_source_facts_from_the_summary_no_model(store, keepsake_home):
    sid, history, ids = stored_conversation(store)
    Compactor(chars).compact(sid, history, target_tokens=0)
    state_path = offload.context_state_path(sid)
    before = load_state(sid)
    assert before.covered_up_to >= ids[SECRET]
    assert all(w in before.summary for w in GONE + KEPT), before.summary
    memory = store.add("Lives at Rue Garibaldi 17, Grenoble", source=Source(sid, ids[SECRET]))

    report = store.delete(memory)  # redact_sources by default

    assert report.redacted_message_ids == (ids[SECRET],)
    text = state_path.read_text(encoding="utf-8")
    for word in GONE:
        assert word not in text
        assert files_with(keepsake_home, word) == []  # state, archive, anything the app keeps
    after = load_state(sid)
    assert all(w in after.summary for w in KEPT), after.summary
    assert after.covered_up_to == before.covered_up_to and after.archive == before.archive
    assert not any(f.message_id == ids[SECRET] for f in after.facts)
    assert len(after.summary) <= len(before.summary)  # the window still fits
    archived = {m.id: m for m in read_history(sid)}
    assert archived[ids[SECRET]].content == "[deleted]" and archived[ids["Marc says hi."]].content == "Marc says hi."
    assert json.loads(text)["facts"]  # still a summary, not an emptied file


def test_a_message_too_short_for_the_file_scan_is_redacted_in_the_archive_too_no_model(store, keepsake_home):
    # The store's file scan only rewrites deleted texts of 12+ characters: "Berlin." is not
    # found in the archive by it, and a refresh from that archive would bring "Berlin" back.
    talk = [TALK[0], "Berlin.", *TALK[2:]]
    sid, history, ids = stored_conversation(store, talk)
    Compactor(chars).compact(sid, history, target_tokens=0)
    assert "Berlin" in load_state(sid).summary
    memory = store.add("Moved to Berlin recently", source=Source(sid, ids["Berlin."]))

    store.delete(memory)

    assert files_with(keepsake_home, "Berlin") == []
    assert "Dana Moreau" in load_state(sid).summary


def test_the_narrative_is_dropped_when_a_covered_message_is_redacted_fake_model(store):
    sid, history, ids = stored_conversation(store)
    Compactor(chars, RecordingModel("Dana moved to Rue Garibaldi in Grenoble.")).compact(sid, history, target_tokens=0)
    assert "Narrative: Dana moved to Rue Garibaldi" in load_state(sid).summary
    memory = store.add("Lives at Rue Garibaldi 17, Grenoble", source=Source(sid, ids[SECRET]))

    store.delete(memory)

    summary = load_state(sid).summary
    assert "Narrative" not in summary and "Garibaldi" not in summary and "Dana Moreau" in summary


def test_deleting_the_session_removes_its_state_and_leaves_other_sessions_alone_no_model(store, keepsake_home):
    sid, history, ids = stored_conversation(store)
    # other texts: the delete also rewrites any file holding a deleted message's text verbatim
    other, other_history, _ = stored_conversation(store, [f"Noor Haddad paid {100 + k} euros for lesson {k}." for k in range(10)])
    Compactor(chars).compact(sid, history, target_tokens=0)
    Compactor(chars).compact(other, other_history, target_tokens=0)
    other_state = offload.context_state_path(other).read_bytes()

    report = store.delete_session(sid)

    assert report.session_ids == (sid,)
    assert not offload.context_state_path(sid).exists() and read_history(sid) == []
    assert files_with(keepsake_home, "Garibaldi") == []
    assert offload.context_state_path(other).read_bytes() == other_state  # not refreshed


def test_a_message_after_the_summary_is_redacted_in_the_archive_without_a_refresh_fake_model(store):
    sid, history, ids = stored_conversation(store, [t for t in TALK if t != SECRET] + [SECRET])
    Compactor(chars, RecordingModel("Dana is planning a trip.")).compact(sid, history, target_tokens=0)
    state = offload.context_state_path(sid).read_bytes()
    assert load_state(sid).covered_up_to < ids[SECRET]
    memory = store.add("Lives at Rue Garibaldi 17, Grenoble", source=Source(sid, ids[SECRET]))

    store.delete(memory)

    assert offload.context_state_path(sid).read_bytes() == state  # narrative kept: nothing of it was covered
    assert {m.id: m.content for m in read_history(sid)}[ids[SECRET]] == "[deleted]"


def test_a_failing_refresh_is_logged_and_does_not_break_the_delete_no_model(store, monkeypatch, caplog):
    sid, history, ids = stored_conversation(store)
    Compactor(chars).compact(sid, history, target_tokens=0)
    memory = store.add("Lives at Rue Garibaldi 17, Grenoble", source=Source(sid, ids[SECRET]))

    def boom(self, session_id):
        raise OSError("disk full")

    monkeypatch.setattr(Compactor, "refresh", boom)
    with caplog.at_level(logging.ERROR, logger="assistant.context.redact"):
        report = store.delete(memory)
    assert report.executed and store.get_message(ids[SECRET]).content == ""
    assert any("could not refresh the context summary" in r.getMessage() for r in caplog.records)


def test_refresh_after_delete_skips_messages_whose_session_is_gone_no_model(store):
    class Report:
        redacted_message_ids = (987654,)  # no such message (deleted with its session)

    assert refresh_after_delete(store, Report()) == []


def test_facts_of_a_message_overwritten_with_the_deleted_marker_are_not_salvaged_no_model():
    # The file scan may have turned a whole-message fact (a decision) into "[deleted]" in the
    # state file and the archived message into "[deleted]": that fact must not be kept.
    history = [ContextMessage("user", "[deleted]", 3, raw="[deleted]"), ContextMessage("user", "", 5, raw=None),
               ContextMessage("user", "Call Anna.", 7, raw=None)]  # fmt: skip
    previous = [Fact("decision", "[deleted]", 3), Fact("name", "Ana", 5), Fact("name", "Anna", 7)]
    assert salvage(previous, history) == [Fact("name", "Anna", 7)]
