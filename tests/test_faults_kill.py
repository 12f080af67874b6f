"""SIGKILL during an import (issue 19.6; the store writer and consolidation are killed in
test_store_crash.py and test_faults_consolidate.py): every message the import acknowledged
(its progress callback ran) survives, the file stays intact, and running the import again
finishes it with each message exactly once. The embedder is a FAKE (hash vectors)."""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import time
from pathlib import Path

import pytest
from store_fakes import TEST_KEY, fake_hash_embedder

from assistant.memory.capture.importing.importers import import_file
from assistant.memory.store.facade import MemoryStore
from assistant.config import load_settings

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="fork + SIGKILL are POSIX")]
KILLS = int(os.environ.get("KEEPSAKE_IMPORT_KILLS", "6"))
N = 240


def _chats(path: Path) -> None:
    lines = [json.dumps({"session": f"chat {i // 12}", "role": "user" if i % 2 == 0 else "assistant",
                         "content": f"I moved to town number {i} last spring and my cat is called Cat{i}.",
                         "timestamp": f"2024-0{1 + i % 9}-{1 + i % 27:02d}T10:{i % 60:02d}:00Z"}) for i in range(N)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _child(db: Path, chats: Path, w: int) -> None:
    store = MemoryStore(db, key=TEST_KEY, embed=fake_hash_embedder)
    # ImportProgress.messages: messages written (committed) so far
    import_file(store, chats, progress=lambda p: os.write(w, f"{p.messages}\n".encode()), settings=load_settings)


def test_sigkill_during_import_loses_no_acknowledged_message(tmp_path):
    db, chats = tmp_path / "k.db", tmp_path / "chats.jsonl"
    _chats(chats)
    MemoryStore(db, key=TEST_KEY).close()
    rng = random.Random(3)
    acknowledged = 0
    for round_no in range(KILLS):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(r)
                _child(db, chats, w)
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        time.sleep(rng.uniform(0.2, 2.5))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        os.close(r)
        done = [int(x) for x in data.decode().split("\n")[:-1] if x]  # a torn last line is no acknowledgement
        store = MemoryStore(db, key=TEST_KEY)
        assert store.integrity_check() == "ok", f"round {round_no}"
        have = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        # progress(done) runs after message number `done` is committed; a re-run counts from 0
        # again, passing the messages already there (they are not added twice)
        assert have >= max(done, default=0), (round_no, have, done)
        acknowledged = max(acknowledged, max(done, default=0))
        dup = store.conn.execute("SELECT count(*) - count(DISTINCT external_id) FROM messages").fetchone()[0]
        assert dup == 0
        store.close()
    assert acknowledged > 0, "no round got far enough to acknowledge a message"
    store = MemoryStore(db, key=TEST_KEY, embed=fake_hash_embedder)
    report = import_file(store, chats, settings=load_settings)  # the import run to its end
    assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == N
    assert report.messages_added + report.messages_existing == N
    again = import_file(store, chats, settings=load_settings)
    assert again.messages_added == 0 and again.memories_added == 0
    # every user message was captured once: an interrupted capture is done by a later run
    users = store.conn.execute("SELECT count(*) FROM messages WHERE role = 'user'").fetchone()[0]
    sourced = store.conn.execute("SELECT count(DISTINCT message_id) FROM memory_sources").fetchone()[0]
    assert sourced <= users
    store.close()
