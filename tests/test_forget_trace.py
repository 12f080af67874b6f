"""The trace test of issue 18: a unique marker travels every path a person's text can take -
a chat turn (the REAL SmolLM2 replies), a memory injected into a later turn (the REAL MiniLM
retrieves it), the compaction summary, the archived history, an offloaded long message, a
consolidation merge (the real consolidator), the note, an import - then the person forgets it,
and it is found nowhere: not in any table of the decrypted database (FTS5 and vec0 shadow
tables included), not in any decrypted page of the file (free pages) or WAL frame, not in any
byte of any file under KEEPSAKE_HOME. Before the forget it is already in no file in plaintext.

Assertions never depend on what the 135M model says: whatever it replies is looked at for the
marker like everything else.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from forget_support import count_in_db, count_in_files, count_in_pages, db_key, name_marker

from assistant.config import Settings
from assistant.services import OpenSessions, PromptCaches
from assistant.context.note import NoteStore
from assistant.memory.capture.capturer import Capturer
from assistant.memory.forget.topic import propose as forget_candidates
from assistant.memory.consolidation.consolidator import Consolidator
from assistant.memory.forget.topic import request_for
from assistant.memory.capture.importing.importers import import_file
from assistant.memory.records import Source
from assistant.session import ChatSession


@pytest.fixture
def world(keepsake_home, converted_embedder_path, services):
    store = services.open_store(with_embedder=True)
    retriever = services.retriever(store)
    yield store, retriever, services.chat_model()
    store.close()


def _plant(store, retriever, model, mark: str, tmp_path: Path) -> dict:
    capture = Capturer(store, use_llm=False, settings=Settings())
    notes = NoteStore(store.context_archive)
    notes.save(f"Call me Dana. My neighbour {mark} has my spare key.")  # note (an old version after the edit below)
    sid = store.create_session("chat").id
    chat = ChatSession(store, model, sid, settings=Settings(), retriever=retriever, capture=None)
    # offload: a long message (> 8000 characters, offloaded by compaction) naming the marker in a
    # statement capture reads (capture reads a message's first 4000 characters)
    long_text = f"My spare key stays with {mark} next door. " + "Here is my packing list for the trip, item by item. " * 170
    long_msg = store.get_message(chat.send(long_text, max_tokens=4, temperature=0.0).user_message_id)
    capture.capture_message(long_msg.id)
    # chat turn: "remember that" stores the fact at once; capture adds the episode
    t1 = chat.send(f"Remember that my neighbour is called {mark}.", max_tokens=12, temperature=0.0)
    capture.capture_message(t1.user_message_id)
    # injection: a later turn retrieves the fact and sends it inside the memory block
    t2 = chat.send("Who is my neighbour?", max_tokens=12, temperature=0.0)
    assert any(mark in m.text for m in t2.injected_memories), [m.text for m in t2.injected_memories]
    assert mark in chat.context.history[-2].content  # the turn as sent (archived at compaction)
    chat.send("I bought new running shoes today.", max_tokens=8, temperature=0.0)
    # compaction: the history is archived, the long message offloaded, the summary keeps the name
    chat.context.compactor.keep_turns = 1
    result = chat.context.compact(force_summary=True)
    assert "summary" in result.steps and mark in chat.context.state.summary, chat.context.state.summary
    # consolidation merge: a second copy of the fact, merged into the first by the real consolidator
    fact = next(m for m in store.list(text=mark) if m.text.startswith("User's neighbour"))
    store.add(fact.text.replace("User's", "Users"), source=Source(sid, t1.user_message_id))
    run = Consolidator(store).run(trigger="manual")
    assert run.counts.get("duplicate"), run.counts
    # import: a conversation exported from elsewhere, with a reply quoting the marker
    exported = tmp_path / "old-chat.jsonl"  # the person's file, outside KEEPSAKE_HOME
    exported.write_text("\n".join(json.dumps(r) for r in [
        {"session": "neighbours", "role": "user", "content": f"My neighbour {mark} waters my plants.", "timestamp": "2024-05-02T10:00:00Z"},
        {"session": "neighbours", "role": "assistant", "content": f"How kind of {mark}!", "timestamp": "2024-05-02T10:00:05Z"},
    ]) + "\n", encoding="utf-8")  # fmt: skip
    assert import_file(store, exported, settings=Settings()).captured == 1
    notes.save("Call me Dana.")  # the person edits the note: the marker is only in its old version
    return {"chat": chat, "session": sid, "long": long_msg.id, "exported": exported}


def test_a_forgotten_text_is_nowhere_afterwards(world, keepsake_home, tmp_path):
    store, retriever, model = world
    mark = name_marker()
    planted = _plant(store, retriever, model, mark, tmp_path)
    store.checkpoint()
    before = count_in_db(store, mark)
    for table in ("messages", "memories", "memory_versions", "context_history", "context_offloads", "context_state",
                  "note_versions", "memory_fts_data", "message_fts_data", "audit_log"):  # fmt: skip
        assert table in before, (table, before)
    assert count_in_files(keepsake_home, mark) == {}  # before: in no file in plaintext
    assert count_in_pages(store.path, db_key(store), mark)  # ...though in the database (the scan works)

    cands = forget_candidates(store, retriever, mark)
    assert cands and all(c.pre_ticked for c in cands), [(c.text[:80], c.reason) for c in cands]
    report = store.forget(request_for(cands))
    assert report.ok, report.errors
    assert report.wal_truncated and report.notes == ()

    assert count_in_db(store, mark) == {}
    assert count_in_pages(store.path, db_key(store), mark) == {}  # every page, free pages and WAL frames
    assert count_in_files(keepsake_home, mark) == {}  # db, -wal, -shm, key file, settings, everything
    # what was not about the marker stays
    long_msg = store.get_message(planted["long"])
    assert long_msg.content.startswith("Here is my packing list") and mark not in long_msg.content
    assert NoteStore(store.context_archive).text() == "Call me Dana."
    assert planted["exported"].read_text(encoding="utf-8").count(mark) == 2  # the person's own file: untouched
    # the open session rebuilds its context: the next turn sends nothing of it
    chat = planted["chat"]
    turn = chat.send("What did I tell you?", max_tokens=8, temperature=0.0)
    sent = "\n".join(m.content for m in chat.context._assemble("").messages)
    assert mark not in sent and mark not in turn.reply
    chat.close()


def test_after_deleting_the_memories_the_marker_is_in_no_page_and_no_reply(world, tmp_path):
    """Only the memories holding the marker are deleted (the conversations stay): the marker
    leaves every page of the decrypted database - free pages and WAL frames included - and
    every assistant reply that quoted it."""
    store, retriever, model = world
    mark = name_marker()
    exported = tmp_path / "chat.jsonl"
    exported.write_text("\n".join(json.dumps(r) for r in [
        {"session": "plants", "role": "user", "content": f"I'm going away. My neighbour {mark} waters my plants.", "timestamp": "2024-05-02T10:00:00Z"},
        {"session": "plants", "role": "assistant", "content": f"Lucky you! {mark} sounds helpful. Enjoy the trip.", "timestamp": "2024-05-02T10:00:05Z"},
        {"session": "plants", "role": "user", "content": "What should I pack?", "timestamp": "2024-05-02T10:01:00Z"},
        {"session": "plants", "role": "assistant", "content": f"Pack light, and leave a key with {mark}.", "timestamp": "2024-05-02T10:01:05Z"},
    ]) + "\n", encoding="utf-8")  # fmt: skip
    import_file(store, exported, settings=Settings())
    holding = [m.id for m in store.list(include_all=True) if mark in m.text]
    assert holding
    store.checkpoint()
    assert count_in_pages(store.path, db_key(store), mark)

    report = store.delete(holding)

    assert report.ok and report.session_ids == ()
    session = store.list_sessions()[0]
    # the message's episode (a verbatim copy) was among the memories: its sentences leave the
    # message; the replies lose only the sentences that repeat the marker
    texts = [m.role.value + ": " + m.content for m in store.messages(session.id)]
    assert texts == ["user: ", "assistant: Lucky you! Enjoy the trip.", "user: What should I pack?", "assistant: "]
    assert count_in_pages(store.path, db_key(store), mark) == {}
    assert count_in_db(store, mark) == {}


def test_a_failing_listener_is_reported_and_the_next_turn_does_not_send_the_deleted_text(world, monkeypatch):
    store, retriever, model = world
    mark = name_marker()
    sid = store.create_session("chat").id
    chat = ChatSession(store, model, sid, settings=Settings(), retriever=retriever, capture=None)
    first = chat.send(f"Remember that my neighbour is called {mark}.", max_tokens=8, temperature=0.0)
    assert mark in chat.context.history[-2].content  # the history as sent holds it

    def broken(self, report):
        raise RuntimeError("listener broke")

    # both after-delete steps fail: the prompt caches and the notice to open sessions
    monkeypatch.setattr(PromptCaches, "after", broken)
    monkeypatch.setattr(OpenSessions, "after", broken)
    report = store.delete(first.remembered)
    assert report.executed and not report.ok
    assert sorted(report.errors) == ["open_sessions failed after the delete: RuntimeError: listener broke",
                                     "prompt_caches failed after the delete: RuntimeError: listener broke"]  # fmt: skip
    sent: list[str] = []
    real = chat.model.generate

    def recording(messages, **kw):  # records the real prompt, then lets the real model answer
        sent.extend(m.content for m in messages)
        return real(messages, **kw)

    monkeypatch.setattr(chat.model, "generate", recording)
    chat.send("Who is my neighbour?", max_tokens=8, temperature=0.0)
    assert sent and not any(mark in s for s in sent)
    chat.close()
