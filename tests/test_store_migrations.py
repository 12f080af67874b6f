"""Migrations: numbered, named steps recorded in the database; a v1 file upgrades in place."""

from __future__ import annotations

from pathlib import Path

import pytest
from store_fakes import TEST_KEY, fake_hash_embedder

from assistant.memory.store.sqlite import migrations
from assistant.memory.store.sqlite.db import open_connection
from assistant.memory.errors import StoreError
from assistant.memory.store.facade import MemoryStore


def _make_v1(db: Path) -> None:
    """A database as the first release wrote it: only migration 1, with data in it."""
    conn = open_connection(db, TEST_KEY)
    assert migrations.migrate(conn, target=1) == [1]
    t = "2024-03-01T10:00:00.000000+00:00"
    conn.execute("INSERT INTO sessions(id, title, created_at, updated_at) VALUES (1, 'old chat', ?, ?)", (t, t))
    conn.execute(
        "INSERT INTO messages(id, session_id, role, content, created_at, observed_at) VALUES (1, 1, 'user', 'I moved to Lisbon in 2023', ?, ?)",
        (t, t),
    )
    conn.execute(
        "INSERT INTO memories(id, text, kind, scope, valid_at, created_at, trust, confidence, content_hash, status, version, "
        "updated_at, actor) VALUES (1, 'Lives in Lisbon', 'profile', 'default', '2023-01-01T00:00:00.000000+00:00', ?, "
        "'user_stated', 1.0, 'x', 'active', 1, ?, 'capture')",
        (t, t),
    )
    conn.execute(
        "INSERT INTO memory_sources(memory_id, session_id, message_id, speaker, extractor, extractor_version, observed_at, added_at) "
        "VALUES (1, 1, 1, 'user', 'rules', '1', ?, ?)",
        (t, t),
    )
    conn.close()


def test_v1_file_upgrades_to_latest(tmp_path: Path) -> None:
    db = tmp_path / "v1.db"
    _make_v1(db)
    conn = open_connection(db, TEST_KEY)
    assert migrations.current_version(conn) == 1
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name IN ('memory_fts', 'memory_vec')").fetchone()[0] == 0
    conn.close()

    store = MemoryStore(db, key=TEST_KEY, embed=fake_hash_embedder)
    assert store.schema_version == migrations.LATEST
    applied = migrations.applied(store.conn)
    assert [(v, n) for v, n, _ in applied] == [(m.version, m.name) for m in migrations.MIGRATIONS]
    assert [n for _, n, _ in applied] == ["core", "fts", "vectors", "file_refs", "consolidation_runs", "context_archive", "start_kind"]
    # old rows are indexed by the FTS step, and still readable through the API
    assert store.conn.execute("SELECT rowid FROM memory_fts WHERE memory_fts MATCH 'lisbon'").fetchall()[0][0] == 1
    assert store.conn.execute("SELECT rowid FROM message_fts WHERE message_fts MATCH 'lisbon'").fetchall()[0][0] == 1
    m = store.get(1)
    assert m.text == "Lives in Lisbon" and m.sources[0].message_id == 1
    # step 7: valid_at 2023-01-01 is not when it was said (2024-03-01): a stated start
    assert m.start_kind == "stated" and m.to_json()["start_kind"] == "stated"
    # the old memory has no vector yet; backfill embeds it
    assert store.missing_vectors() == [(1, "Lives in Lisbon")]
    assert store.backfill_vectors() == 1 and store.missing_vectors() == []
    # and the upgraded store works normally
    new = store.add("Works at Feedzai", source=None)
    assert store.conn.execute("SELECT rowid FROM memory_fts WHERE memory_fts MATCH 'feedzai'").fetchall()[0][0] == new
    store.close()
    # reopening applies nothing more
    conn = open_connection(db, TEST_KEY)
    assert migrations.migrate(conn) == []
    conn.close()


def test_database_from_a_newer_keepsake_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "future.db"
    MemoryStore(db, key=TEST_KEY).close()
    conn = open_connection(db, TEST_KEY)
    conn.execute("INSERT INTO schema_migrations(version, name, applied_at) VALUES (99, 'future', '2030-01-01')")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        MemoryStore(db, key=TEST_KEY)


def test_embedding_dimension_mismatch_is_explained(tmp_path: Path) -> None:
    db = tmp_path / "dim.db"
    MemoryStore(db, key=TEST_KEY, embed=fake_hash_embedder).close()
    with pytest.raises(StoreError, match="384-dimensional"):
        MemoryStore(db, key=TEST_KEY, embed=lambda texts: [[0.0] * 8 for _ in texts], dim=8)
    store = MemoryStore(db, key=TEST_KEY)
    mid = store.add("A memory to re-embed")
    assert store.rebuild_vectors(lambda texts: [[1.0] + [0.0] * 7 for _ in texts], dim=8) == 1
    assert store.dim == 8 and store.missing_vectors() == []
    store.close()
    assert MemoryStore(db, key=TEST_KEY, embed=lambda texts: [[1.0] * 8 for _ in texts], dim=8).get(mid).id == mid
