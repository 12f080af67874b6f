"""``keepsake repair``: save what can still be read from a damaged database into a new one.

The damaged file is only read (``query_only``). Every table the current schema has is copied
row by row into a fresh database made by the migrations (same key), walking each table in rowid
order, 256 rows at a time. A read that meets a damaged page is skipped past: the walk probes
further rowids (doubling the step, then narrowing back by bisection) until the b-tree answers
again, so one bad leaf page loses only the rows on it. Then:

- the search indexes are rebuilt from the copied rows (FTS5 ``rebuild``); vectors are copied
  where they can be read (``memory_vec``) and the rest are re-embedded later
  (:meth:`MemoryStore.backfill_vectors`);
- rows whose parent was lost (a source of a memory that could not be read, ...) are removed
  (``PRAGMA foreign_key_check``), so the new file is consistent; it must pass
  ``PRAGMA integrity_check``;
- :func:`replace_database` keeps the damaged file next to it as ``<db>.damaged-<time>`` (with
  its ``-wal``/``-shm``) and moves the new one into place; the damage marker is cleared.

Nothing is guessed: a row is copied exactly as stored or not at all.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import sqlite_vec

from assistant.memory.store.sqlite import db as dbmod
from assistant.memory.store.sqlite.integrity import clear_marker

CHUNK = 256
SKIP_TABLES = {"schema_migrations", "sqlite_sequence", "sqlite_stat1"}
MAX_ROWID = 2**63 - 1


@dataclass
class TableSalvage:
    name: str
    copied: int = 0
    unreadable_stretches: int = 0  # damaged regions skipped (each may hold one or more rows)
    error: str | None = None  # the table could not be read at all

    def to_json(self) -> dict[str, Any]:
        return {"table": self.name, "copied": self.copied, "unreadable_stretches": self.unreadable_stretches,
                "error": self.error}  # fmt: skip


@dataclass
class SalvageReport:
    source: str
    target: str
    tables: list[TableSalvage] = field(default_factory=list)
    orphans_removed: int = 0
    vectors: int = 0
    integrity: str = ""
    aside: str | None = None  # where the damaged file was kept
    pages: Any = None  # the page-by-page pass (:class:`.salvage_pages.PageScan`), when it ran

    def copied(self, table: str) -> int:
        """Rows of ``table`` in the new file (walked, plus found page by page)."""
        walked = next((t.copied for t in self.tables if t.name == table), 0)
        return walked + (self.pages.added.get(table, 0) if self.pages is not None else 0)

    @property
    def lossless(self) -> bool:
        return not any(t.unreadable_stretches or t.error for t in self.tables)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "tables": [t.to_json() for t in self.tables],
                "orphans_removed": self.orphans_removed, "vectors": self.vectors, "integrity": self.integrity,
                "aside": self.aside, "lossless": self.lossless,
                "pages": self.pages.to_json() if self.pages is not None else None}  # fmt: skip


def open_damaged(path: Path, key_hex: str | None) -> Any:
    """A read-only connection to the damaged file (no verification, no pragmas that write)."""
    conn = dbmod.driver.connect(str(path), isolation_level=None, check_same_thread=False)
    if key_hex is not None:
        with contextlib.suppress(dbmod.DatabaseError):
            conn.execute("PRAGMA cipher_log_level = NONE")
        conn.execute(f"PRAGMA key = \"x'{key_hex}'\"")
    conn.execute("PRAGMA query_only = ON")
    conn.enable_load_extension(True)
    try:
        sqlite_vec.load(conn)
    finally:
        conn.enable_load_extension(False)
    return conn


class Source:
    """A connection to the damaged file that is opened again after every failed read: a page
    that failed to decrypt leaves the connection's pager in an error state in which later reads
    of healthy pages fail too."""

    def __init__(self, opener: Callable[[], Any]) -> None:
        self._opener = opener
        self.conn = opener()

    def reset(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        self.conn = self._opener()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


def _readable(src: Source, sql: str, params: tuple[Any, ...]) -> list[Any] | None:
    try:
        return src.conn.execute(sql, params).fetchall()
    except dbmod.DatabaseError:
        src.reset()
        return None


LOW = -(2**63)
HIGH = b"\xff" * 16  # a BLOB sorts after every number and text: (k, HIGH, ...) > (k, anything)


def quoted(name: str) -> str:
    """An SQL identifier, double-quoted (a ``"`` inside doubled)."""
    return '"' + name.replace('"', '""') + '"'


def walk_rows(src: Source, table: str, select: list[str], keys: list[str], report: TableSalvage) -> Iterator[tuple[Any, ...]]:
    """Every readable row of ``table`` (the ``select`` columns) in key order, skipping damaged
    stretches. ``keys``: ``["rowid"]``, or a WITHOUT ROWID table's primary key (integer first).

    Rows are read :data:`CHUNK` at a time; a chunk that fails is read again one row at a time
    up to the damage, and the damage is skipped with :func:`_skip_damage`."""
    sel, order = ", ".join(quoted(c) if c != "rowid" else "rowid" for c in select), ", ".join(quoted(k) if k != "rowid" else "rowid" for k in keys)
    first = keys[0] if keys[0] == "rowid" else quoted(keys[0])
    by_first = f'SELECT {sel} FROM "{table}" WHERE {first} > ? ORDER BY {order} LIMIT ?'
    by_key = f'SELECT {sel} FROM "{table}" WHERE ({order}) > ({", ".join("?" * len(keys))}) ORDER BY {order} LIMIT ?'
    idx = [select.index(k) for k in keys]
    last: tuple[Any, ...] | None = None
    size = CHUNK
    while True:
        rows = _readable(src, by_first, (LOW, size)) if last is None else _readable(src, by_key, (*last, size))
        if rows is None and size > 1:
            size = 1  # read up to the damage one row at a time
            continue
        if rows is None:
            start = LOW if last is None else last[0]
            report.unreadable_stretches += 1
            nxt = _skip_damage(src, by_first, start) if isinstance(start, int) else None
            if nxt is None:
                return
            last = (nxt,) + (HIGH,) * (len(keys) - 1)  # everything whose first key is above nxt
            size = CHUNK
            continue
        if not rows:
            return
        yield from rows
        last = tuple(rows[-1][i] for i in idx)
        size = CHUNK


def _skip_damage(src: Source, sql: str, last: int) -> int | None:
    """The smallest ``x > last`` from which the next row reads again (``sql`` with LIMIT 1),
    found by doubling the step and then bisecting; None when nothing further can be read.
    A read from ``x`` fails exactly while the first row above ``x`` sits on the damage."""
    step, good = 1, None
    while last + step < MAX_ROWID:
        if _readable(src, sql, (last + step, 1)) is not None:
            good = last + step
            break
        step *= 2
    if good is None:
        return None
    lo = last + step // 2 if step > 1 else last  # unreadable from lo, readable from good
    while good - lo > 1:
        mid = (lo + good) // 2
        if _readable(src, sql, (mid, 1)) is not None:
            good = mid
        else:
            lo = mid
    return good


def _tables(conn: Any) -> dict[str, tuple[list[str], list[str]]]:
    """Ordinary tables (no virtual tables or their shadow tables): name -> (columns, walk key:
    ``["rowid"]`` or the primary key of a WITHOUT ROWID table)."""
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL TABLE")]
    out = {}
    for name, sql in rows:
        if name in SKIP_TABLES or name in virtual or any(name.startswith(v + "_") for v in virtual):
            continue
        info = conn.execute(f"PRAGMA table_info({quoted(name)})").fetchall()
        columns = [r[1] for r in info]
        pk = [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]
        keys = pk if "WITHOUT ROWID" in (sql or "").upper() else ["rowid"]
        out[name] = (columns, keys)
    return out


def salvage(open_source: Callable[[], Any], dest: Any, scan_pages: Callable[[Any, dict], Any] | None = None) -> SalvageReport:
    """Copy what the damaged file can still give into ``dest`` (a fresh, migrated store's
    connection, outside a transaction). ``open_source()`` gives a new connection to the damaged
    file (:func:`open_damaged`), opened again after every failed read (:class:`Source`).
    ``scan_pages(dest, tables)``: the page-by-page pass (:mod:`.salvage_pages`), run when this
    walk lost something (or SQLite cannot read the schema at all); its result is ``report.pages``."""
    report = SalvageReport("", "")
    src = Source(open_source)
    try:
        source_tables = _tables(src.conn)
    except dbmod.DatabaseError as exc:
        report.tables.append(TableSalvage("sqlite_master", error=str(exc)))
        source_tables = {}
        if scan_pages is None:
            src.close()
            return report
    dest.execute("PRAGMA foreign_keys = OFF")
    try:
        for name, (columns, keys) in (_tables(dest).items() if source_tables else ()):
            if name not in source_tables:
                continue
            select = [c for c in columns if c in source_tables[name][0]]
            if keys == ["rowid"]:
                select = ["rowid", *select]
            elif not all(k in select for k in keys):
                continue
            t = TableSalvage(name)
            report.tables.append(t)
            verb = "INSERT OR REPLACE" if name == "store_meta" else "INSERT OR IGNORE"
            cols = ", ".join(c if c == "rowid" else quoted(c) for c in select)
            insert = f"{verb} INTO {quoted(name)}({cols}) VALUES ({', '.join('?' * len(select))})"
            src.reset()
            dest.execute("BEGIN IMMEDIATE")
            try:
                for row in walk_rows(src, name, select, keys, t):
                    t.copied += dest.execute(insert, tuple(row)).rowcount
            finally:
                dest.execute("COMMIT")
        if scan_pages is not None and not report.lossless:
            report.pages = scan_pages(dest, _tables(dest))
        src.reset()
        report.vectors = _copy_vectors(src, dest) if source_tables else 0
        report.orphans_removed = _drop_orphans(dest)
        for fts in ("memory_fts", "message_fts"):
            dest.execute(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')")
    finally:
        src.close()
        dest.execute("PRAGMA foreign_keys = ON")
    report.integrity = "\n".join(str(r[0]) for r in dest.execute("PRAGMA integrity_check"))
    return report


def _copy_vectors(src: Source, dest: Any) -> int:
    """Vectors of the copied memories that can still be read (one at a time past damage)."""
    ids = [r[0] for r in dest.execute("SELECT id FROM memories ORDER BY id")]
    n = 0
    dest.execute("BEGIN IMMEDIATE")
    try:
        for mid in ids:
            row = _readable(src, "SELECT embedding FROM memory_vec WHERE rowid = ?", (mid,))
            if row:
                dest.execute("INSERT OR REPLACE INTO memory_vec(rowid, embedding) VALUES (?, ?)", (mid, row[0][0]))
                n += 1
    finally:
        dest.execute("COMMIT")
    return n


def _drop_orphans(dest: Any) -> int:
    """Remove rows whose parent row was lost (per foreign key), until ``foreign_key_check`` is
    clean (a removal can orphan rows of another table)."""
    removed = 0
    for _ in range(10):
        if not dest.execute("PRAGMA foreign_key_check").fetchall():
            break
        dest.execute("BEGIN IMMEDIATE")
        try:
            for (table,) in dest.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                for fk in dest.execute(f"PRAGMA foreign_key_list({quoted(table)})").fetchall():
                    parent, col, to = fk[2], fk[3], fk[4] or "rowid"
                    target = "rowid" if to == "rowid" else quoted(to)
                    removed += dest.execute(
                        f"DELETE FROM {quoted(table)} WHERE {quoted(col)} IS NOT NULL AND {quoted(col)} NOT IN (SELECT {target} FROM {quoted(parent)})"
                    ).rowcount
        finally:
            dest.execute("COMMIT")
    return removed


def _side(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def replace_database(damaged: Path, repaired: Path, now: datetime | None = None) -> Path:
    """Keep ``damaged`` (and its ``-wal``/``-shm``) as ``<name>.damaged-<time>``, move
    ``repaired`` into its place, clear the damage marker. Returns where the damaged file went."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    aside = _side(damaged, f".damaged-{stamp}")
    os.replace(damaged, aside)
    for extra in ("-wal", "-shm"):
        if _side(damaged, extra).exists():
            os.replace(_side(damaged, extra), _side(aside, extra))
    for extra in ("-wal", "-shm"):  # the new file was closed cleanly: nothing of it remains outside
        with contextlib.suppress(FileNotFoundError):
            _side(repaired, extra).unlink()
    os.replace(repaired, damaged)
    with contextlib.suppress(OSError):
        fd = os.open(damaged.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    clear_marker(damaged)
    return aside
