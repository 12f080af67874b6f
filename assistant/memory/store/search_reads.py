"""The reads a search runs on one connection (:class:`assistant.memory.retrieval.retriever.Retriever`
and its gates): candidate rows by id, by slot or by an FTS5 match, FTS5's own BM25 and document
frequencies, entity links, the person's name records and the messages memories came from. Each
takes the connection of the search's read transaction (``store.read(fn)``) and the filter SQL
built by :func:`assistant.memory.store.filters.select_sql`; retrieval decides, the store reads.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from assistant.memory.store.rows import ids_json

# "+rowid": the candidate list is checked by SQLite on FTS5's one MATCH scan. A plain "rowid IN"
# is handed to FTS5 as one rowid lookup per candidate, and bm25() then recounts every term's
# rows over the whole index for each of them (x10 at the 95th percentile at 100k memories).
_BM25_SQL = ("SELECT rowid, bm25(memory_fts) FROM memory_fts WHERE memory_fts MATCH :match "
             "AND +rowid IN (SELECT value FROM json_each(:ids))")  # fmt: skip
_VOCAB_SQL = "SELECT doc FROM temp.keepsake_memory_vocab WHERE term = ?"


def rows_by_ids(c: Any, sql: str, params: dict[str, Any], ids: list[int]) -> list[Any]:
    """The filter's rows among ``ids`` (semantic candidates re-checked by SQL)."""
    return c.execute(sql + " AND src.id IN (SELECT value FROM json_each(:ids))", {**params, "ids": ids_json(ids)}).fetchall()


def rows_by_slots(c: Any, sql: str, params: dict[str, Any], slots: Iterable[str]) -> list[Any]:
    """The filter's rows holding one of ``slots`` (spaces as "_", any case), newest first."""
    q = sql + " AND lower(replace(src.slot, ' ', '_')) IN (SELECT value FROM json_each(:slots)) ORDER BY src.valid_at DESC, src.id DESC"
    return c.execute(q, {**params, "slots": json.dumps(list(slots))}).fetchall()


def rows_by_role(c: Any, sql: str, params: dict[str, Any], limit: int = 20) -> list[Any]:
    """The filter's rows without a slot that say what the person is ("User is an intensive care
    nurse, ...", "User works as ...") or does for a living ("User restores old furniture for a
    living"): a job by its structure, newest first."""
    q = sql + (" AND src.slot IS NULL AND (src.text LIKE 'User is a %' OR src.text LIKE 'User is an %'"
               " OR src.text LIKE 'User works as %' OR (src.text LIKE 'User %' AND src.text LIKE '% for a living%'))"
               " ORDER BY src.valid_at DESC, src.id DESC LIMIT :lim")
    return c.execute(q, {**params, "lim": int(limit)}).fetchall()


def rows_matching(c: Any, sql: str, params: dict[str, Any], match: str, limit: int) -> list[Any]:
    """The filter's rows whose text matches the FTS5 expression ``match`` (at most ``limit``)."""
    q = sql + " AND src.id IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH :match) LIMIT :lim"
    return c.execute(q, {**params, "match": match, "lim": int(limit)}).fetchall()


def bm25(c: Any, match: str, ids: list[int]) -> dict[int, float]:
    """FTS5's ``bm25(memory_fts)`` of the rows among ``ids`` that match ``match``."""
    return dict(c.execute(_BM25_SQL, {"match": match, "ids": ids_json(ids)}).fetchall())


def count_rows(c: Any) -> int:
    """Memory rows (every one is in the FTS index)."""
    return int(c.execute("SELECT count(*) FROM memories").fetchone()[0])


def doc_freq(c: Any, term: str) -> int:
    """Rows containing ``term``, from FTS5's own index (a per-connection ``fts5vocab`` view,
    made on first use)."""
    try:
        row = c.execute(_VOCAB_SQL, (term,)).fetchone()
    except Exception:  # noqa: BLE001 - first use on this connection: create the view
        c.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.keepsake_memory_vocab USING fts5vocab(main, memory_fts, row)")
        row = c.execute(_VOCAB_SQL, (term,)).fetchone()
    return int(row[0]) if row else 0


def vocabulary(c: Any) -> dict[str, int]:
    """Every term of the memory index (folded, without diacritics) -> rows containing it."""
    doc_freq(c, "")  # the fts5vocab view exists on this connection
    return {str(t): int(d) for t, d in c.execute("SELECT term, doc FROM temp.keepsake_memory_vocab")}


def entity_links(c: Any, ids: list[int]) -> list[tuple[int, int, str]]:
    """(memory id, entity id, entity name) for the memories ``ids``."""
    return c.execute(
        "SELECT me.memory_id, e.id, e.name FROM memory_entities me JOIN entities e ON e.id = me.entity_id "
        "WHERE me.memory_id IN (SELECT value FROM json_each(?))",
        (ids_json(ids),),
    ).fetchall()


def linked_counts(c: Any, entity_ids: list[int]) -> dict[int, int]:
    """How many memories link each entity."""
    return {int(e): int(n) for e, n in c.execute(
        "SELECT entity_id, count(*) FROM memory_entities WHERE entity_id IN (SELECT value FROM json_each(?)) GROUP BY entity_id",
        (ids_json(entity_ids),),
    )}  # fmt: skip


def current_slot_texts(c: Any, slots: Iterable[str]) -> list[str]:
    """Texts of the active, still valid memories in one of ``slots`` (lower case). (``+status``:
    the partial slot index answers this, not the status index, which read every active memory:
    40 ms at 10,000 on a fresh connection, 0.1 ms this way.)"""
    rows = c.execute(
        "SELECT text FROM memories WHERE slot IS NOT NULL AND +status = 'active' AND invalid_at IS NULL "
        "AND lower(slot) IN (SELECT value FROM json_each(?))", (json.dumps(sorted(slots)),),
    ).fetchall()  # fmt: skip
    return [r[0] for r in rows]


def source_messages(c: Any, ids: list[int]) -> list[tuple[int, int]]:
    """(memory id, message id) of the memories ``ids`` that came from a message."""
    return c.execute("SELECT memory_id, message_id FROM memory_sources WHERE message_id IS NOT NULL "
                     "AND memory_id IN (SELECT value FROM json_each(?))", (ids_json(ids),)).fetchall()  # fmt: skip
