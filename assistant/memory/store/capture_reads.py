"""The reads and the one queue capture keeps in the database: current memories by BM25 (the
"remember"/"forget" commands' lookup), the names of the person's own people and pets, which
messages already gave a memory, and the model-extraction queue of imported messages
(``store_meta`` key ``model_extraction``: JSON ``{"ranges": [[first_id, last_id], ...]}``).
Capture decides what to keep; the store reads and writes."""

from __future__ import annotations

import json
from typing import Any, Sequence

from assistant.memory.records import Kind

# an imported user message still to be read by the model: not redacted, of an imported session,
# holding a statement (it has an episode)
_PENDING = (
    "FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id BETWEEN ? AND ? AND m.role = 'user' "
    "AND m.redacted_at IS NULL AND s.external_id LIKE 'import:%' AND EXISTS "
    "(SELECT 1 FROM memory_sources ms WHERE ms.message_id = m.id AND ms.extractor = 'episode')"
)


def best_matches(c: Any, match: str, kinds: Sequence[Any], k: int) -> list[int]:
    """Ids of the current memories matching the FTS5 expression ``match``, best BM25 first."""
    sql = ("SELECT m.id FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid "
           "WHERE memory_fts MATCH ? AND m.status = 'active' AND m.expired_at IS NULL")  # fmt: skip
    params: list[Any] = [match]
    if kinds:
        sql += f" AND m.kind IN ({','.join('?' * len(kinds))})"
        params += [Kind(x).value for x in kinds]
    sql += " ORDER BY bm25(memory_fts) LIMIT ?"
    params.append(int(k))
    return [int(r[0]) for r in c.execute(sql, params)]


def relation_names(c: Any) -> tuple[set[str], list[tuple[str, str]]]:
    """(entity names of the current partner/family/pet profile memories, (name, text) of the
    current facts about a relation of the person, "User's ...")."""
    rows = c.execute(
        "SELECT DISTINCT e.name FROM entities e JOIN memory_entities me ON me.entity_id = e.id "
        "JOIN memories m ON m.id = me.memory_id WHERE m.kind = 'profile' AND m.status = 'active' "
        "AND m.expired_at IS NULL AND (m.slot IN ('partner', 'pet') OR m.slot LIKE 'family.%')"
    ).fetchall()  # fmt: skip
    facts = c.execute(
        "SELECT e.name, m.text FROM entities e JOIN memory_entities me ON me.entity_id = e.id "
        "JOIN memories m ON m.id = me.memory_id WHERE m.kind = 'fact' AND m.status = 'active' "
        "AND m.expired_at IS NULL AND m.text LIKE 'User''s %'"
    ).fetchall()  # fmt: skip
    return {str(r[0]) for r in rows}, [(str(n), str(t)) for n, t in facts]


def messages_with_memories(c: Any, ids: Sequence[int]) -> set[int]:
    """Of the messages ``ids``, those some memory has as its source."""
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    return {int(r[0]) for r in c.execute(f"SELECT DISTINCT message_id FROM memory_sources WHERE message_id IN ({marks})", list(ids))}


def queue_ranges(c: Any, key: str) -> str | None:
    """The stored queue (JSON) under ``key``, or None."""
    row = c.execute("SELECT value FROM store_meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def save_queue(c: Any, key: str, ranges: list[list[int]]) -> None:
    """Store the queue's ranges (none left: the key goes)."""
    if ranges:
        c.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES (?, ?)", (key, json.dumps({"ranges": ranges})))
    else:
        c.execute("DELETE FROM store_meta WHERE key = ?", (key,))


def pending_count(c: Any, lo: int, hi: int) -> int:
    return int(c.execute(f"SELECT count(*) {_PENDING}", (lo, hi)).fetchone()[0])


def first_pending(c: Any, lo: int, hi: int) -> int | None:
    row = c.execute(f"SELECT m.id {_PENDING} ORDER BY m.id LIMIT 1", (lo, hi)).fetchone()
    return int(row[0]) if row is not None else None
