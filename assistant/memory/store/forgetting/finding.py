"""What "forget X" reads to find the memories about X (:mod:`assistant.memory.forget.topic` decides
which ones and which part): SQL over the store's tables, no decisions. Each function takes the
connection of a ``store.read`` snapshot."""

from __future__ import annotations

from assistant.memory.store.forgetting.scope import full_text
from assistant.memory.store.rows import IN_IDS, ids_json
from assistant.memory.store.sqlite.db import Connection

LISTED = ("active", "resolving", "archived")  # the statuses "forget X" proposes from


def fts_ids(c: Connection, terms: set[str], limit: int) -> set[int]:
    """Memories whose text has any of ``terms`` as a word prefix (FTS5, best bm25 first, at most
    ``limit``); none when the FTS parser refuses a term (retrieval still proposes)."""
    if not terms:
        return set()
    query = " OR ".join('"' + t.replace('"', '""') + '"*' for t in sorted(terms) if t)
    sql = (
        "SELECT m.id FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid WHERE memory_fts MATCH ? "
        f"AND m.status != 'deleted' ORDER BY bm25(memory_fts) LIMIT {int(limit)}"
    )
    try:
        return {int(r[0]) for r in c.execute(sql, (query,))}
    except Exception:  # noqa: BLE001 - a term the FTS parser refuses
        return set()


def name_texts(c: Connection) -> list[str]:
    """The texts of the person's name memories (profile slot ``name``)."""
    return [r[0] for r in c.execute("SELECT text FROM memories WHERE slot = 'name' AND status != 'deleted'")]


def memory_rows(c: Connection, ids: set[int]) -> dict[int, tuple[str, str | None, str]]:
    """id -> (kind, valid_at, text); an offloaded episode's whole text in place of its pointer."""
    rows = c.execute(f"SELECT id, kind, valid_at, text FROM memories WHERE id IN {IN_IDS} AND status IN {LISTED}",
                     (ids_json(ids),)).fetchall()  # fmt: skip
    return {int(r[0]): (r[1], r[2], full_text(c, r[3])) for r in rows}


def offloaded_messages(c: Connection) -> list[tuple[str, str]]:
    """(ref, whole text) of every long message kept in the context archive's offloads."""
    return [(r[0], r[1]) for r in c.execute("SELECT ref, text FROM context_offloads WHERE kind = 'message'")]


def pointing_at(c: Connection, ref: str) -> set[int]:
    """Memories whose text holds the pointer to offload ``ref`` (``...[ref]``)."""
    like = "%" + ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "]"
    return {int(r[0]) for r in c.execute("SELECT id FROM memories WHERE text LIKE ? ESCAPE '\\'", (like,))}
