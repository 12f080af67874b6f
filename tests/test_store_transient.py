"""A "corrupt" error from a read that met another process's change is not damage (issue 26):
the unit is retried on a fresh connection, and "damaged" is said only when the integrity check
of the file agrees. The fault is INJECTED (a real driver exception carrying SQLite's
SQLITE_CORRUPT_VTAB code, raised by the first tries of a unit): the store, the file, the
integrity check and the damage marker are real."""

from __future__ import annotations

import pytest
from store_fakes import fake_hash_embedder, run_cli

from assistant.config import paths
from assistant.memory.errors import DamagedError, InterruptedReadError
from assistant.memory.store.facade import MemoryStore
from assistant.memory.store.sqlite import db as dbmod
from assistant.memory.store.sqlite.integrity import marker_path

SQLITE_CORRUPT_VTAB = 267  # (11 | 1 << 8): what FTS5 raises for "corruption found reading blob"


def _fts_error() -> Exception:
    exc = dbmod.DatabaseError("fts5: corruption found reading blob 137438953475 from table \"memory_fts\"")
    exc.sqlite_errorcode = SQLITE_CORRUPT_VTAB
    return exc


def _failing_first(monkeypatch, name: str, times: int) -> list:
    """``db.<name>`` (read_tx / write_tx, as the store core calls it) raises the FTS error on its
    first ``times`` calls, then runs for real. Returns the connection of each call."""
    real = getattr(dbmod, name)
    calls: list = []

    def flaky(conn, fn, *a, **kw):
        calls.append(conn)  # kept: a new connection is a new object
        if len(calls) <= times:
            raise _fts_error()
        return real(conn, fn, *a, **kw)

    import assistant.memory.store.core as core

    monkeypatch.setattr(core, name, flaky)
    return calls


def test_a_transient_fts_error_is_retried_on_a_fresh_connection_and_the_forget_completes(monkeypatch):
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    dog = store.add("My dog is called Miso.")
    keep = store.add("I live in Porto.")
    calls = _failing_first(monkeypatch, "write_tx", 2)
    report = store.delete(dog)
    assert report.ok and report.memory_ids == (dog,)
    assert len(calls) == 3 and len({id(c) for c in calls}) == 3  # each retry on a new connection
    assert store.damage is None and not marker_path(store.path).exists()
    assert [m.id for m in store.list(include_all=True)] == [keep]
    store.close()


def test_a_persistent_error_on_a_healthy_file_is_interrupted_never_damaged(monkeypatch):
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    store.add("My dog is called Miso.")
    with monkeypatch.context() as mp:
        _failing_first(mp, "read_tx", 100)
        with pytest.raises(InterruptedReadError) as err:
            store.read(lambda c: c.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'dog'").fetchone())
    assert "the integrity check found the file healthy" in str(err.value) and "Try again" in str(err.value)
    assert store.damage is None and not marker_path(store.path).exists()
    assert store.add("Still writable.")  # nothing refuses writes afterwards
    store.close()


def test_real_damage_is_still_damage(monkeypatch):
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    for i in range(400):
        store.add(f"filler memory {i} about gardens and tea and a long enough text to fill pages")
    store.checkpoint()
    path = store.path
    store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    for off in range(8 * page, 12 * page):  # a few pages in the middle of the file: garbage
        data[off] = 0x5A
    path.write_bytes(bytes(data))
    store = MemoryStore(path, embed=fake_hash_embedder)
    with pytest.raises(DamagedError):  # reading the damaged pages, or the check before the first write
        store.read(lambda c: c.execute("SELECT count(*), max(length(text)) FROM memories").fetchone())
        store.add("one more")
    assert marker_path(path).exists()
    store.close()


def test_an_escaped_corrupt_error_in_a_command_is_not_reported_as_damage(capsys, monkeypatch):
    code, _, err = run_cli(capsys, "memory", "add", "My dog is called Miso.")
    assert code == 0, err
    import assistant.cli.memory as cli_memory

    def broken(args):
        raise _fts_error()

    with monkeypatch.context() as mp:
        mp.setattr(cli_memory, "cmd_list", broken)
        code, out, err = run_cli(capsys, "memory", "list")
    assert code == 2 and "damaged" not in err and "the integrity check found the file healthy" in err, err
    assert not marker_path(paths().database).exists()
    code, out, err = run_cli(capsys, "memory", "list")
    assert code == 0 and "Miso" in out


def test_a_forget_waits_for_a_tidy_up_in_another_process(tmp_path):
    """Another process holds the maintenance lock (as a consolidation run does): the forget
    starts only once it let go (the holder writes its marker file just before letting go)."""
    import subprocess
    import sys

    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    dog = store.add("My dog is called Miso.")
    released = tmp_path / "released"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from pathlib import Path\n"
        "from assistant.memory.store.sqlite.worklock import maintenance\n"
        "with maintenance(Path(sys.argv[1])):\n"
        "    print('held', flush=True); time.sleep(1.0); Path(sys.argv[2]).write_text('x')\n"
    ), str(store.path), str(released)], stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert holder.stdout.readline().strip() == "held"
    report = store.delete(dog)
    assert report.ok and released.exists()  # it waited for the other process
    assert holder.wait(30) == 0
    store.close()
