"""The second pass of ``keepsake repair``: rows read page by page (:mod:`.pages`) when SQLite
cannot walk the damaged file's b-trees (a half-truncated file: every query says "malformed").

Rows go into the fresh store with ``INSERT OR IGNORE`` (a row the first pass copied is kept as
it was), so this pass only adds. Rowid tables: the leaves under a root named by a readable
``sqlite_master`` row, and every other table leaf page not on the freelist, told apart by the
row's shape (:func:`.pages.matches`; a row that fits none or several tables is left out and
counted as ``unplaced``). WITHOUT ROWID tables (links, entity links) only from a known root.
A row the new store refuses (a CHECK or a foreign key it breaks) is left out too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.memory.store.sqlite import db as dbmod
from assistant.memory.store.sqlite import pages as pg
from assistant.memory.store.sqlite.salvage import quoted


@dataclass
class PageScan:
    pages_total: int = 0
    pages_read: int = 0
    pages_bad: int = 0
    added: dict[str, int] = field(default_factory=dict)  # table -> rows added by this pass
    unplaced: int = 0  # rows that fit no table, or several
    refused: int = 0  # rows the new store's constraints refused

    def to_json(self) -> dict[str, Any]:
        return {"pages_total": self.pages_total, "pages_read": self.pages_read, "pages_bad": self.pages_bad,
                "added": dict(self.added), "unplaced": self.unplaced, "refused": self.refused}  # fmt: skip


def _columns(dest: Any, table: str) -> list[pg.Column]:
    info = dest.execute(f"PRAGMA table_info({quoted(table)})").fetchall()
    single = sum(1 for r in info if r[5]) == 1
    return [pg.Column(r[1], (r[2] or "").upper(), bool(r[3]), r[4] is not None, bool(r[5]) and single and (r[2] or "").upper() == "INTEGER")
            for r in info]  # fmt: skip


def _schema_roots(pf: pg.PageFile) -> dict[str, int]:
    """table/index name -> root page, from the ``sqlite_master`` rows that can be read."""
    roots = {}
    for leaf in pg.tree_pages(pf, 1):
        if pg.page_type(pf, leaf) != 13:
            continue
        for _rowid, row in pg.leaf_rows(pf, leaf):
            if len(row) == 5 and isinstance(row[1], str) and isinstance(row[3], int) and row[3] > 0:
                roots[row[1]] = row[3]
    return roots


def scan(path: Path, key_hex: str | None, dest: Any, tables: dict[str, tuple[list[str], list[str]]]) -> PageScan | None:
    """Add what the pages of ``path`` still hold to ``dest`` (outside a transaction); ``tables``:
    the new store's tables (:func:`.salvage._tables`). None when page 1 cannot be read."""
    pf = pg.read_pages(path, key_hex)
    if pf is None:
        return None
    out = PageScan(pf.total, len(pf.pages), pf.bad)
    try:
        free = pg.freelist(pf)
    except Exception:  # noqa: BLE001 - an unreadable freelist: only known trees and table leaves count
        free = set()
    roots = _schema_roots(pf)
    owned: dict[int, str] = {leaf: "sqlite_master" for leaf in pg.tree_pages(pf, 1)}  # leaf page -> its table
    for name, root in roots.items():
        for leaf in pg.tree_pages(pf, root):
            owned[leaf] = name
    rowid_tables = {t: _columns(dest, t) for t, (_cols, keys) in tables.items() if keys == ["rowid"]}
    dest.execute("BEGIN IMMEDIATE")
    try:
        for n in sorted(pf.pages):
            if n == 1 or n in free or pg.page_type(pf, n) != 13:
                continue
            known = owned.get(n)
            if known is not None and known not in rowid_tables:
                continue  # a page of a table the new store does not copy (FTS, vectors, ...)
            for rowid, values in pg.leaf_rows(pf, n):
                if known is not None:
                    table = known
                else:
                    fits = [t for t, cols in rowid_tables.items() if pg.matches(cols, values)]
                    exact = [t for t in fits if len(rowid_tables[t]) == len(values)]
                    fits = exact or fits
                    if len(fits) != 1:
                        out.unplaced += 1
                        continue
                    table = fits[0]
                _insert(dest, table, rowid_tables[table], rowid, values, out)
        for table, (cols, keys) in tables.items():
            if keys != ["rowid"] and table in roots:
                for values in pg.index_tree_rows(pf, roots[table]):
                    _insert(dest, table, _columns(dest, table), None, values, out)
    finally:
        dest.execute("COMMIT")
    return out


def _insert(dest: Any, table: str, cols: list[pg.Column], rowid: int | None, values: tuple[Any, ...], out: PageScan) -> None:
    vals = list(values[: len(cols)])
    names = [c.name for c in cols[: len(vals)]]
    for i, c in enumerate(cols[: len(vals)]):
        if c.alias:
            vals[i] = rowid
    if rowid is not None and not any(c.alias for c in cols):
        names, vals = ["rowid", *names], [rowid, *vals]
    sql = f"INSERT OR IGNORE INTO {quoted(table)}({', '.join(n if n == 'rowid' else quoted(n) for n in names)}) VALUES ({', '.join('?' * len(vals))})"
    try:
        added = dest.execute(sql, tuple(vals)).rowcount
    except dbmod.DatabaseError:
        out.refused += 1
        return
    if added:
        out.added[table] = out.added.get(table, 0) + added
