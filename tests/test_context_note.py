"""The person's "About me & instructions" note: versions, the 32 KiB cap, the CLI, the prefix."""

from __future__ import annotations

import json
import os
import sys

import pytest

from assistant.cli import main
from assistant.context.assembler import Assembler
from assistant.context.note import MAX_NOTE_BYTES, NoteError, NoteStore, NoteTooLong
from assistant.engine.chat import ChatMessage
from assistant.memory.store.facade import MemoryStore
from assistant.config import paths


@pytest.fixture
def notes():
    store = MemoryStore(paths().database)
    yield NoteStore(store.context_archive)
    store.close()


def test_every_version_is_kept_and_restore_adds_a_version(notes, keepsake_home):
    store = notes
    assert store.get() is None and store.text() == "" and store.history() == []
    v1 = store.save("I'm Dana.")
    v2 = store.save("I'm Dana, a nurse.\r\nKeep answers short.")
    assert (v1.version, v2.version) == (1, 2) and store.text() == "I'm Dana, a nurse.\nKeep answers short."
    assert store.save(store.text()) == v2  # unchanged: no new version
    v3 = store.restore(1)
    assert v3.version == 3 and v3.text == "I'm Dana." and v3.restored_from == 1
    assert [v.text for v in store.history()] == ["I'm Dana.", v2.text, "I'm Dana."]
    assert not (keepsake_home / "data" / "note").exists()  # in the encrypted database, not in files
    with pytest.raises(NoteError, match="no note version 9"):
        store.restore(9)


def test_forget_history_keeps_only_the_current_version(notes):
    notes.save("My old address is Rue Garibaldi 17.")
    notes.save("I'm Dana.")
    assert notes.forget_history() == 1
    assert [v.text for v in notes.history()] == ["I'm Dana."] and notes.text() == "I'm Dana."
    assert notes.forget_history() == 0


def test_the_32_kib_cap_is_a_clear_error_and_nothing_is_cut(notes):
    store = notes
    store.save("before")
    assert store.save("a" * MAX_NOTE_BYTES).version == 2  # exactly at the cap: fine
    with pytest.raises(NoteTooLong) as err:
        store.save("a" * (MAX_NOTE_BYTES + 1))
    message = str(err.value)
    assert "32,769 bytes" in message and "32,768" in message and "shorten it by 1 bytes" in message
    assert "Nothing was saved" in message
    with pytest.raises(NoteTooLong):  # bytes, not characters: 11k CJK characters is 33k bytes
        store.save("记" * 11_000)
    assert store.get().version == 2 and len(store.text()) == MAX_NOTE_BYTES


def test_the_note_is_the_only_change_to_the_prefix():
    a = Assembler(lambda t: len(t) // 4, 8192)
    history: list[ChatMessage] = []
    first = a.assemble(history=history, user_input="hi", note="I'm Dana.", memories_block="<retrieved_memories>\n- x\n</retrieved_memories>")
    history += [first.user_message, ChatMessage("assistant", "hello")]
    same = a.assemble(history=history, user_input="again", note="I'm Dana.", memories_block="<retrieved_memories>\n- y\n</retrieved_memories>")
    edited = a.assemble(history=history, user_input="again", note="I'm Dana Moreau.")
    assert same.messages[: len(first.messages)] == first.messages  # memories change: prefix kept
    assert edited.messages[0] != first.messages[0] and "I'm Dana Moreau." in edited.messages[0].content
    assert edited.messages[1:-1] == same.messages[1:-1]  # the history itself is untouched


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def test_cli_show_edit_history_restore(capsys, tmp_path, monkeypatch):
    assert main(["note", "show"]) == 0 and "no note yet" in capsys.readouterr().out
    assert main(["note", "edit", "--text", "I'm Dana."]) == 0 and "Saved your note (version 1" in capsys.readouterr().out
    f = tmp_path / "note.md"
    f.write_text("I'm Dana, a nurse in Lyon.\n", encoding="utf-8")
    assert main(["note", "edit", "--file", str(f), "--json"]) == 0
    assert _json(capsys)["version"] == 2
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\np = sys.argv[1]\nopen(p, 'a').write('Short answers please.\\n')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.delenv("VISUAL", raising=False)
    assert main(["note", "edit"]) == 0 and "version 3" in capsys.readouterr().out
    assert main(["note", "show", "--json"]) == 0
    shown = _json(capsys)
    assert shown["text"] == "I'm Dana, a nurse in Lyon.\nShort answers please.\n" and shown["limit_bytes"] == MAX_NOTE_BYTES
    assert main(["note", "history", "--json"]) == 0
    assert [v["version"] for v in _json(capsys)["versions"]] == [1, 2, 3]
    assert main(["note", "restore", "1"]) == 0 and "as version 4" in capsys.readouterr().out
    assert main(["note", "history"]) == 0 and "restored from 1" in capsys.readouterr().out
    assert main(["note", "forget-history", "--json"]) == 0 and _json(capsys)["removed_versions"] == 3


def test_cli_over_the_cap_tells_the_person_and_keeps_the_editor_draft(capsys, tmp_path, monkeypatch):
    big = tmp_path / "big.md"
    big.write_text("x" * (MAX_NOTE_BYTES + 10), encoding="utf-8")
    assert main(["note", "edit", "--file", str(big)]) == 2
    err = capsys.readouterr().err
    assert "32,778 bytes" in err and "shorten it by 10 bytes" in err and "Nothing was saved" in err
    editor = tmp_path / "editor.py"
    editor.write_text(f"import sys\nopen(sys.argv[1], 'w').write('y' * {MAX_NOTE_BYTES + 1})\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.delenv("VISUAL", raising=False)
    assert main(["note", "edit", "--json"]) == 2
    message = _json(capsys)["error"]
    draft = message.split("Your draft is kept in ")[1].rstrip(".")
    assert open(draft, encoding="utf-8").read() == "y" * (MAX_NOTE_BYTES + 1)  # the person's work is not lost
    os.unlink(draft)
    store = MemoryStore(paths().database)
    assert NoteStore(store.context_archive).get() is None
    store.close()
