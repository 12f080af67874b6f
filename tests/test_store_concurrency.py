"""Concurrency: two processes and a background thread write the same database for 30 s
(``KEEPSAKE_STRESS_SECONDS``) while the main thread reads: no "database is locked" (or any
other error) reaches a caller, no acknowledged write is lost, and a counter incremented by all
of them with optimistic concurrency (``expected_version``) ends exactly at the number of
acknowledged increments (no lost update)."""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from pathlib import Path

import pytest
from store_fakes import TEST_KEY, fake_hash_embedder

from assistant.memory.errors import VersionConflict
from assistant.memory.records import Source
from assistant.memory.store.facade import MemoryStore

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="uses fork")]

SECONDS = float(os.environ.get("KEEPSAKE_STRESS_SECONDS", "30"))


def _writer(db: Path, name: str, counter_id: int, deadline: float, ack) -> None:
    """Write until ``deadline``; ``ack(line)`` reports each acknowledged write or an error."""
    try:
        store = MemoryStore(db, key=TEST_KEY, embed=fake_hash_embedder)
        s = store.create_session(f"writer {name}")
        i = 0
        own: list[int] = []
        while time.time() < deadline:
            msg = store.add_message(s.id, "user", f"{name} says {i}")
            mid = store.add(f"{name} memory {i}", source=Source(s.id, msg.id))
            own.append(mid)
            ack(f"add {mid} {name} {i}")
            if i % 3 == 0:  # optimistic read-modify-write of the shared counter
                while True:
                    m = store.get(counter_id)
                    n = int(m.text.rsplit(" ", 1)[1])
                    try:
                        store.edit(counter_id, f"counter {n + 1}", expected_version=m.version, actor="consolidator")
                        break
                    except VersionConflict:
                        continue
                ack("inc")
            if i % 40 == 39:
                victim = own.pop(0)
                store.delete(victim)
                ack(f"del {victim}")
            i += 1
        store.close()
    except BaseException:  # noqa: BLE001 - reported to the parent, which fails the test
        ack("ERR " + traceback.format_exc().replace("\n", " | "))


def _fork_writer(db: Path, name: str, counter_id: int, deadline: float) -> tuple[int, int]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            _writer(db, name, counter_id, deadline, lambda line: os.write(w, (line + "\n").encode()))
        finally:
            os._exit(0)
    os.close(w)
    return pid, r


def _drain(fd: int, sink: list[str]) -> None:
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    sink.extend(b"".join(chunks).decode().splitlines())


def test_two_processes_and_a_thread_write_for_30_seconds(tmp_path: Path) -> None:
    db = tmp_path / "busy.db"
    store = MemoryStore(db, key=TEST_KEY, embed=fake_hash_embedder)
    counter = store.add("counter 0")
    deadline = time.time() + SECONDS
    children = [_fork_writer(db, f"proc{k}", counter, deadline) for k in range(2)]
    lines: list[str] = []
    drains = [threading.Thread(target=_drain, args=(fd, lines)) for _, fd in children]  # read pipes as we go
    for t in drains:
        t.start()
    thread_lines: list[str] = []
    thread = threading.Thread(target=_writer, args=(db, "thread", counter, deadline, thread_lines.append))
    thread.start()
    readers = 0
    read_errors: list[str] = []
    while time.time() < deadline:  # the main thread keeps reading meanwhile
        try:
            store.count()
            store.list(limit=20)
            store.list_sessions(limit=5)
            readers += 1
        except Exception:  # noqa: BLE001
            read_errors.append(traceback.format_exc())
        time.sleep(0.01)
    for pid, _ in children:
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    for t in drains:
        t.join()
    thread.join()
    lines += thread_lines

    errors = [line for line in lines if line.startswith("ERR")] + read_errors
    assert not errors, errors[0]
    added = {int(line.split()[1]) for line in lines if line.startswith("add ")}
    deleted = {int(line.split()[1]) for line in lines if line.startswith("del ")}
    incs = sum(1 for line in lines if line == "inc")
    assert len(added) > 100 and incs > 30 and readers > 100

    present = {r[0] for r in store.conn.execute("SELECT id FROM memories")}
    assert added - deleted <= present, "acknowledged writes lost"
    assert not (deleted & present), "acknowledged deletes undone"
    final = store.get(counter)
    assert final.text == f"counter {incs}", "lost update on the shared counter"
    assert final.version == incs + 1
    assert store.integrity_check() == "ok"
    print(f"{SECONDS:.0f}s: {len(added)} adds, {len(deleted)} deletes, {incs} counter increments, {readers} read rounds")
    store.close()
