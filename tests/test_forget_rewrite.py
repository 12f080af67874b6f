"""A forget rewrites every page (``VACUUM``): ``secure_delete`` alone leaves stale copies of cells
in rebalanced b-tree pages, so a redacted sentence could stay in the file with no row holding it
(the rare failure of ``test_forget_trace``). Real SQLite (the sqlcipher3 build Keepsake ships),
a plain file so its bytes can be read as they are."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from assistant.memory.store.sqlite.db import driver
from assistant.memory.store.sqlite.rewrite import rewrite_pages

MARK = "ZQMARKERXJ"
SENTENCE = f"My key stays with {MARK} next door. "


def _history(path: Path, seed: int):
    """600 rows of mixed sizes (up to 9,000 characters: overflow pages), a tenth starting with
    the marker's sentence, some rows growing later (pages rebalance), then every marker
    sentence cut in one transaction and the WAL checkpointed, as a forget did before."""
    c = driver.connect(str(path), isolation_level=None)
    c.execute("PRAGMA journal_mode = WAL")
    c.execute("PRAGMA secure_delete = ON")
    c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    rnd = random.Random(seed)
    for n in range(1, 601):
        words = rnd.choice([20, 50, 200, 900, 9000]) // 6
        body = " ".join(rnd.choice(["alpha", "beta", "gamma", "packing", "list", "trip"]) for _ in range(words))
        c.execute("INSERT INTO t (id, body) VALUES (?, ?)", (n, (SENTENCE if rnd.random() < 0.1 else "") + body))
        if rnd.random() < 0.2:
            grown = rnd.randint(1, n)
            c.execute("UPDATE t SET body = body || ? WHERE id = ?", (" extra words" * rnd.randint(1, 30), grown))
    c.execute("BEGIN")
    for rid, body in c.execute("SELECT id, body FROM t").fetchall():
        if MARK in body:
            c.execute("UPDATE t SET body = ? WHERE id = ?", (body.replace(SENTENCE, ""), rid))
    c.execute("COMMIT")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return c


@pytest.mark.parametrize("seed", [4, 8])  # histories where secure_delete leaves a stale cell
def test_rewriting_the_pages_removes_the_stale_copies_secure_delete_leaves(tmp_path, seed):
    path = tmp_path / "t.db"
    c = _history(path, seed)
    rows = c.execute("SELECT id, body FROM t ORDER BY id").fetchall()
    assert not any(MARK in body for _id, body in rows)  # no row holds it...
    assert MARK.encode() in path.read_bytes()  # ...but a page still does (SQLite's rebuildPage gap)

    assert rewrite_pages(c) is True
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    assert MARK.encode() not in path.read_bytes()
    assert c.execute("SELECT id, body FROM t ORDER BY id").fetchall() == rows  # same rows, same ids
    c.close()


def test_a_busy_database_is_reported_not_raised(tmp_path):
    path = tmp_path / "t.db"
    c = _history(path, 1)
    other = driver.connect(str(path), isolation_level=None, timeout=0.05)
    other.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
    c.execute("PRAGMA busy_timeout = 50")
    try:
        assert rewrite_pages(c, attempts=2, pause=0.01) is False
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert rewrite_pages(c) is True
    c.close()
