"""`keepsake repair` of a half-truncated database (issue 26.6): SQLite cannot read the file at
all (the schema's and the tables' upper b-tree pages are in the lost half: every query says
"malformed"), yet the pages that are left hold half the rows. Repair reads them page by page
(each SQLCipher page verified by its HMAC, then decrypted; :mod:`.pages`), saves every row it
can into a new file, says how many memories it saved, and keeps the damaged file as a backup.
Real SQLCipher file; the embedder is a FAKE (hash vectors): no assertion depends on a vector's
meaning."""

from __future__ import annotations

import json
import os
import shutil

from store_fakes import FakeEmbedder, fake_hash_embedder, run_cli

from assistant.config import paths
from assistant.memory.records import NewMemory, Source
from assistant.memory.store.sessions import MessageSpec
from assistant.memory.store.facade import MemoryStore
from assistant.services import Services

N = 1200


def _seed() -> dict[int, tuple]:
    """N messages and N memories (with sources and fake vectors), written 100 + 100 at a time
    as a conversation and its capture would (pages of both tables interleave through the file;
    the vector index's first chunk, ~1.5 MB, sits near the start)."""
    store = MemoryStore(paths().database, embed=fake_hash_embedder)
    s = store.create_session("seed")
    for start in range(0, N, 100):
        specs = [MessageSpec(s.id, "user", f"note {i}: my friend number {i} lives in city {i}. " + "and more words " * 12)
                 for i in range(start, start + 100)]  # fmt: skip
        ids = [mid for mid, _ in store.add_messages(specs)]
        store.add_many([NewMemory(f"User's friend number {i} lives in city {i}.", sources=(Source(s.id, mid),))
                        for i, mid in zip(range(start, start + 100), ids)])  # fmt: skip
    store.checkpoint()
    rows = {r[0]: tuple(r) for r in store.conn.execute("SELECT * FROM memories")}
    store.close()
    return rows


def test_repair_saves_the_readable_half_of_a_truncated_file_and_keeps_a_backup(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(Services, "embedder", lambda self: FakeEmbedder())
    original = _seed()
    db = paths().database
    size = db.stat().st_size
    os.truncate(db, size // 2)  # what a copy cut short or a full disk during a move leaves
    cut = db.read_bytes()
    code, _, err = run_cli(capsys, "memory", "list")
    assert code == 2 and "damaged" in err  # unreadable as it is
    code, out, err = run_cli(capsys, "repair", "--json")
    assert code == 0, out + err
    report = json.loads(out)
    saved = report["pages"]["added"]["memories"]
    # the memories on the pages that are left (the vector chunk takes much of the first half)
    with capsys.disabled():
        print(f"\nrepair of a half-truncated file: saved {saved} of {N} memories, "
              f"{report['pages']['added'].get('messages', 0)} of {N} messages")
    assert 0.2 * N <= saved < N and report["pages"]["added"]["messages"] >= 0.2 * N, report["pages"]
    assert report["pages"]["pages_read"] == size // 2 // 4096 and report["integrity"] == "ok"
    # the damaged file is kept byte for byte next to the new one
    assert open(report["aside"], "rb").read() == cut
    code, out, err = run_cli(capsys, "repair")  # now healthy: nothing more to do
    assert code == 0 and "nothing to repair" in out
    store = MemoryStore(db)
    rows = {r[0]: tuple(r) for r in store.conn.execute("SELECT * FROM memories")}
    assert len(rows) == saved and all(original[i] == row for i, row in rows.items())  # every saved row exactly as stored
    found = store.conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'friend'").fetchone()[0]
    assert found == saved  # the search index was rebuilt from the saved rows
    assert store.integrity_check() == "ok"
    store.close()


def test_a_file_shorter_than_one_page_is_refused_and_left_alone(monkeypatch, capsys):
    monkeypatch.setattr(Services, "embedder", lambda self: FakeEmbedder())
    _seed()
    db = paths().database
    os.truncate(db, 1000)
    before = db.read_bytes()
    code, _, err = run_cli(capsys, "repair")
    assert code == 2 and "nothing could be read" in err and db.read_bytes() == before
