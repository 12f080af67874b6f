"""Schema migrations: numbered, named steps recorded in ``schema_migrations``.

Each step runs in its own ``BEGIN IMMEDIATE`` transaction and re-checks, inside it, whether it
was already applied, so two processes opening a fresh database at once agree. A database from a
newer Keepsake (an unknown version number) is refused rather than modified.

Steps:
1. ``core``: sessions, messages, memories, memory_versions, memory_sources, entities,
   memory_entities, memory_links, audit_log, injection_log, store_meta.
2. ``fts``: FTS5 ``memory_fts`` (memories.text) and ``message_fts`` (messages.content), external
   content, kept in sync by triggers, with FTS5 ``secure-delete`` on so a delete removes the
   tokens from the index itself; existing rows are indexed.
3. ``vectors``: sqlite-vec ``memory_vec(embedding float[dim] distance_metric=cosine)``,
   rowid = memories.id.
4. ``file_refs``: files the app keeps (archive, exports) that hold a memory's or message's text.
5. ``consolidation_runs``: one row per background consolidation run (trigger, dry-run flag,
   started/finished, counts by update_type, conflicts, undone flag); no memory text.
6. ``context_archive``: what used to be plaintext files next to the database, now inside it
   (encrypted with it): a session's archived history as sent (``context_history``), offloaded
   long texts (``context_offloads``), the compaction state with its summary
   (``context_state``), the versions of the person's note (``note_versions``), the exports
   Keepsake wrote (``exports``: path and which memories/sessions, never their text) and the
   ``forget_generation`` counter (bumped by every delete; open sessions compare it).
7. ``start_kind``: ``memories.start_kind`` says what ``valid_at`` is: ``stated`` (the person
   gave the start: "since 2019", "last week") or ``observed`` (only when it was said: the fact
   was true *at least* since then). Existing rows: ``observed`` when ``valid_at`` equals one of
   their sources' ``observed_at``, ``stated`` for any other ``valid_at``, NULL without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from assistant.memory.store.sqlite.db import RETRY_DEADLINE, Connection, driver, write_tx
from assistant.memory.errors import StoreError
from assistant.memory.store.sqlite.schema import CONSOLIDATION_RUNS_SQL, CONTEXT_ARCHIVE_SQL, CORE_SQL, FILE_REFS_SQL, FTS_SQL
from assistant.memory.times import ts_to_db, utcnow


@dataclass(frozen=True)
class MigrationContext:
    dim: int


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    apply: Callable[[Connection, MigrationContext], None]


def _script(conn: Connection, sql: str) -> None:
    """Run a multi-statement script inside the current transaction (``executescript`` would
    commit it). Statements are split where SQLite says a statement is complete."""
    buf = ""
    for line in (sql.rstrip() + ";").splitlines(keepends=True):
        buf += line
        if driver.complete_statement(buf):
            if buf.strip().strip(";").strip():
                conn.execute(buf)
            buf = ""
    if buf.strip().strip(";").strip():
        raise StoreError(f"incomplete SQL in migration: {buf[:80]!r}")


def _core(conn: Connection, ctx: MigrationContext) -> None:
    _script(conn, CORE_SQL)


def _fts(conn: Connection, ctx: MigrationContext) -> None:
    _script(conn, FTS_SQL)


def _vectors(conn: Connection, ctx: MigrationContext) -> None:
    if not (1 <= ctx.dim <= 8192):
        raise StoreError(f"invalid embedding dimension {ctx.dim}")
    conn.execute(f"CREATE VIRTUAL TABLE memory_vec USING vec0(embedding float[{int(ctx.dim)}] distance_metric=cosine)")
    conn.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES ('embedding_dim', ?)", (str(ctx.dim),))


def _file_refs(conn: Connection, ctx: MigrationContext) -> None:
    _script(conn, FILE_REFS_SQL)


def _consolidation_runs(conn: Connection, ctx: MigrationContext) -> None:
    _script(conn, CONSOLIDATION_RUNS_SQL)


def _context_archive(conn: Connection, ctx: MigrationContext) -> None:
    _script(conn, CONTEXT_ARCHIVE_SQL)


def _start_kind(conn: Connection, ctx: MigrationContext) -> None:
    conn.execute("ALTER TABLE memories ADD COLUMN start_kind TEXT CHECK (start_kind IS NULL OR start_kind IN ('stated','observed'))")
    conn.execute(
        "UPDATE memories SET start_kind = CASE WHEN valid_at IS NULL THEN NULL "
        "WHEN EXISTS (SELECT 1 FROM memory_sources s WHERE s.memory_id = memories.id AND s.observed_at = memories.valid_at) "
        "THEN 'observed' ELSE 'stated' END"
    )


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "core", _core),
    Migration(2, "fts", _fts),
    Migration(3, "vectors", _vectors),
    Migration(4, "file_refs", _file_refs),
    Migration(5, "consolidation_runs", _consolidation_runs),
    Migration(6, "context_archive", _context_archive),
    Migration(7, "start_kind", _start_kind),
)
LATEST = MIGRATIONS[-1].version


def _ensure_table(conn: Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )


def applied(conn: Connection) -> list[tuple[int, str, str]]:
    """(version, name, applied_at) of every applied step, in order."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'").fetchone()
    if not exists:
        return []
    return [tuple(r) for r in conn.execute("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")]


def current_version(conn: Connection) -> int:
    rows = applied(conn)
    return rows[-1][0] if rows else 0


def migrate(conn: Connection, *, target: int | None = None, dim: int = 384, now: datetime | None = None,
            deadline: float = RETRY_DEADLINE) -> list[int]:  # fmt: skip
    """Apply pending steps up to ``target`` (default: all). Returns the versions applied now.
    An up-to-date database is only read (opening it takes no write lock)."""
    target = LATEST if target is None else target
    ctx = MigrationContext(dim=dim)
    done: list[int] = []
    known = {m.version for m in MIGRATIONS}
    newest = current_version(conn)
    if newest > LATEST or any(v not in known for v, _, _ in applied(conn)):
        raise StoreError(
            f"the memory database has schema version {newest}, newer than this Keepsake "
            f"understands ({LATEST}); upgrade Keepsake instead of opening it with this version"
        )
    present = {v for v, _, _ in applied(conn)}
    for step in MIGRATIONS:
        if step.version > target:
            break
        if step.version in present:
            continue

        def run(c: Connection, step: Migration = step) -> bool:
            _ensure_table(c)
            if c.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (step.version,)).fetchone():
                return False
            step.apply(c, ctx)
            c.execute(
                "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)",
                (step.version, step.name, ts_to_db(now or utcnow())),
            )
            return True

        if write_tx(conn, run, deadline=deadline):
            done.append(step.version)
    return done
