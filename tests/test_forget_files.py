"""Files: what an older Keepsake kept in plaintext moves into the encrypted database on the first
start and is removed; everything under the profile is private (files 0600, folders 0700) on
creation and on every start; the files Keepsake still writes are written atomically; files it
did not write are never touched."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.config import Settings, load_settings, paths, save_settings
from assistant.context.note import NoteStore
from assistant.context.state import load_state, read_history

REF = "session-5/message-0123456789abcdef.txt"


def test_old_plaintext_files_move_into_the_database_and_are_removed(keepsake_home, services):
    store = services.open_store(with_embedder=False)
    s = store.create_session("old")
    long_msg = store.add_message(s.id, "user", "A long message. " * 600)
    p = paths()
    offload_file = p.archive / REF
    store.write(lambda c: c.execute("INSERT INTO file_refs(path, message_id, created_at) VALUES (?, ?, '2024-01-01')",
                                    (str(offload_file.resolve()), long_msg.id)))  # fmt: skip
    store.close()
    # the layout of the previous version: plaintext next to the encrypted database
    folder = p.archive / "session-5"
    folder.mkdir(parents=True)
    (folder / "history.jsonl").write_text(
        json.dumps({"id": 1, "role": "user", "content": "I live at Rue Garibaldi 17.", "raw": None}) + "\n"
        + json.dumps({"id": 2, "role": "assistant", "content": "Noted.", "raw": None}) + "\n" + '{"id": 3, "role": "us', encoding="utf-8")  # fmt: skip
    offload_file.write_text(long_msg.content, encoding="utf-8")
    mine = folder / "my-own-notes.txt"  # not a name Keepsake writes: never touched
    mine.write_text("mine", encoding="utf-8")
    (p.data / "context").mkdir()
    (p.data / "context" / "5.json").write_text(json.dumps({"session_id": "5", "summary": "Names: Rue Garibaldi", "archive": "session-5/history.jsonl"}))
    (p.data / "note").mkdir()
    for v, text in ((1, "I'm Dana."), (2, "I'm Dana, a nurse.")):
        (p.data / "note" / f"v{v:06d}.json").write_text(json.dumps({"version": v, "text": text, "saved_at": "2024-05-01T10:00:00+00:00"}))
    export = p.exports / "backup.json"
    export.parent.mkdir()
    export.write_text('{"memories": ["Rue Garibaldi"]}', encoding="utf-8")

    store = services.open_store(with_embedder=False)

    archive = store.context_archive
    assert [(m.id, m.content) for m in read_history(archive, 5)] == [(1, "I live at Rue Garibaldi 17."), (2, "Noted.")]  # the torn line was unreadable
    assert archive.offload(REF).startswith("A long message.")
    assert store.conn.execute("SELECT message_id FROM context_offloads WHERE ref = ?", (REF,)).fetchone()[0] == long_msg.id
    assert load_state(archive, 5).summary == "Names: Rue Garibaldi"
    assert NoteStore(archive).text() == "I'm Dana, a nurse." and len(NoteStore(archive).history()) == 2
    assert not (p.data / "context").exists() and not (p.data / "note").exists()
    assert sorted(x.name for x in folder.iterdir()) == ["my-own-notes.txt"]  # Keepsake's files gone, the person's stays
    assert mine.read_text() == "mine" and export.read_text() == '{"memories": ["Rue Garibaldi"]}'
    plaintext = [f for f in keepsake_home.rglob("*") if f.is_file() and b"Garibaldi" in f.read_bytes() and f != export]
    assert plaintext == []
    assert store.conn.execute("SELECT count(*) FROM file_refs").fetchone()[0] == 0
    store.close()
    again = services.open_store(with_embedder=False)  # a second start finds nothing more to do
    assert len(read_history(again.context_archive, 5)) == 2
    again.close()


def _modes(root: Path) -> dict[str, str]:
    """Every file and folder under ``root`` whose mode is not 0600 / 0700."""
    wrong = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs:
            mode = stat.S_IMODE((Path(dirpath) / name).stat().st_mode)
            if mode != 0o700:
                wrong[str(Path(dirpath) / name)] = oct(mode)
        for name in files:
            mode = stat.S_IMODE((Path(dirpath) / name).lstat().st_mode)
            if mode != 0o600:
                wrong[str(Path(dirpath) / name)] = oct(mode)
    return wrong


def _keepsake(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "KEEPSAKE_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], env=env, capture_output=True, text=True, timeout=300)


def test_every_file_and_folder_under_the_profile_is_private(keepsake_home):
    home = keepsake_home / "profile"  # a fresh profile the CLI creates from nothing
    for args in (("note", "edit", "--text", "I'm Dana."), ("sessions", "list"),
                 ("export", str(home / "data" / "exports" / "all.json")), ("memory", "list", "--json")):  # fmt: skip
        done = _keepsake(home, *args)
        assert done.returncode == 0, done.stderr
    names = {p.name for p in home.rglob("*")}
    assert {"keepsake.db", "db.key", "all.json", "data", "config", "exports"} <= names, names
    assert _modes(home) == {}  # created private
    # an older profile: everything 0644 / 0755; the next start tightens it (not the person's exports)
    for p in home.rglob("*"):
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    export_mode = 0o644
    assert _keepsake(home, "memory", "list").returncode == 0
    wrong = _modes(home)
    assert wrong == {str(home / "data" / "exports" / "all.json"): oct(export_mode)}  # only the person's export is left as it was


def test_settings_are_written_atomically_and_private(keepsake_home, monkeypatch):
    save_settings(Settings(context_size=2048), paths())
    f = paths().settings_file
    assert stat.S_IMODE(f.stat().st_mode) == 0o600 and load_settings(paths()).context_size == 2048
    before = f.read_bytes()

    def crash(src, dst):  # the rename never happens (a crash between write and rename)
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        save_settings(Settings(context_size=8192), paths())
    assert f.read_bytes() == before  # the old file is whole
    assert [x.name for x in f.parent.iterdir() if x.name.endswith(".tmp")] == []  # no temp file left behind
