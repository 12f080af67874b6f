"""Row <-> record conversion and small SQL helpers shared by the store modules (no policy here)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Iterable, Sequence

from assistant.memory.store.sqlite.db import Connection
from assistant.memory.entries import AuditEntry, InjectionRecord, Message, Session
from assistant.memory.records import (
    Actor,
    Kind,
    Link,
    LinkType,
    Memory,
    MemoryVersion,
    Role,
    Scope,
    Source,
    Status,
    Trust,
    UpdateType,
)
from assistant.memory.times import ts_from_db, ts_to_db

# Columns of ``memories`` in the order the list/snapshot queries select them.
MEMORY_COLUMNS = (
    "id", "text", "kind", "scope", "valid_at", "invalid_at", "created_at", "expired_at", "trust",
    "confidence", "content_hash", "status", "version", "expires_at", "pinned", "slot", "use_count",
    "last_used_at", "updated_at", "update_type", "actor", "reason", "start_kind",
)  # fmt: skip
MEMORY_SELECT = ", ".join(MEMORY_COLUMNS)

VERSION_COLUMNS = (
    "memory_id", "version", "text", "content_hash", "kind", "valid_at", "invalid_at", "expired_at",
    "status", "trust", "confidence", "expires_at", "pinned", "slot", "recorded_at",
    "superseded_at", "update_type", "actor", "reason",
)  # fmt: skip


def ids_json(ids: Iterable[int]) -> str:
    """Bind a list of ids as one parameter: ``... IN (SELECT value FROM json_each(?))``."""
    return json.dumps(sorted({int(i) for i in ids}))


IN_IDS = "(SELECT value FROM json_each(?))"


def opt_enum(cls: Any, value: str | None) -> Any:
    return cls(value) if value is not None else None


def load_sources(c: Connection, ids: Sequence[int], known_at: datetime | None = None) -> dict[int, list[Source]]:
    out: dict[int, list[Source]] = {i: [] for i in ids}
    sql = (
        "SELECT memory_id, session_id, message_id, speaker, extractor, extractor_version, observed_at "
        f"FROM memory_sources WHERE memory_id IN {IN_IDS}"
    )
    params: list[Any] = [ids_json(ids)]
    if known_at is not None:
        sql += " AND added_at <= ?"
        params.append(ts_to_db(known_at))
    for r in c.execute(sql + " ORDER BY id", params):
        out[r[0]].append(
            Source(
                session_id=r[1],
                message_id=r[2],
                speaker=r[3],
                extractor=r[4],
                extractor_version=r[5],
                observed_at=ts_from_db(r[6]),
            )
        )
    return out


def load_entities(c: Connection, ids: Sequence[int]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {i: [] for i in ids}
    sql = (
        "SELECT me.memory_id, e.name FROM memory_entities me JOIN entities e ON e.id = me.entity_id "
        f"WHERE me.memory_id IN {IN_IDS} ORDER BY e.name"
    )
    for r in c.execute(sql, (ids_json(ids),)):
        out[r[0]].append(r[1])
    return out


def load_links(c: Connection, ids: Sequence[int]) -> dict[int, list[Link]]:
    out: dict[int, list[Link]] = {i: [] for i in ids}
    j = ids_json(ids)
    sql = (
        "SELECT src_id, dst_id, type FROM memory_links "
        f"WHERE src_id IN {IN_IDS} OR dst_id IN {IN_IDS} ORDER BY src_id, dst_id, type"
    )
    for r in c.execute(sql, (j, j)):
        link = Link(r[0], r[1], LinkType(r[2]))
        if r[0] in out:
            out[r[0]].append(link)
        if r[1] in out and r[1] != r[0]:
            out[r[1]].append(link)
    return out


def hydrate(c: Connection, rows: Sequence[Any], known_at: datetime | None = None) -> list[Memory]:
    """Memory records for ``rows`` (in MEMORY_COLUMNS order), with sources/entities/links in
    three batched queries."""
    if not rows:
        return []
    ids = [r[0] for r in rows]
    sources = load_sources(c, ids, known_at)
    entities = load_entities(c, ids)
    links = load_links(c, ids)
    return [
        Memory(
            id=r[0],
            text=r[1],
            kind=Kind(r[2]),
            scope=Scope(r[3]),
            valid_at=ts_from_db(r[4]),
            invalid_at=ts_from_db(r[5]),
            created_at=ts_from_db(r[6]),  # type: ignore[arg-type]
            expired_at=ts_from_db(r[7]),
            trust=Trust(r[8]),
            confidence=float(r[9]),
            content_hash=r[10],
            status=Status(r[11]),
            version=int(r[12]),
            expires_at=ts_from_db(r[13]),
            pinned=bool(r[14]),
            slot=r[15],
            use_count=int(r[16]),
            last_used_at=ts_from_db(r[17]),
            updated_at=ts_from_db(r[18]),
            start_kind=r[22] if len(r) > 22 else None,
            sources=tuple(sources[r[0]]),
            entities=tuple(entities[r[0]]),
            links=tuple(links[r[0]]),
        )
        for r in rows
    ]


def version_from_row(r: Any) -> MemoryVersion:
    """A row in VERSION_COLUMNS order (``superseded_at`` may be None for the current version)."""
    return MemoryVersion(
        memory_id=r[0],
        version=int(r[1]),
        text=r[2],
        kind=Kind(r[4]),
        valid_at=ts_from_db(r[5]),
        invalid_at=ts_from_db(r[6]),
        expired_at=ts_from_db(r[7]),
        status=Status(r[8]),
        trust=Trust(r[9]),
        confidence=float(r[10]),
        expires_at=ts_from_db(r[11]),
        pinned=bool(r[12]),
        slot=r[13],
        recorded_at=ts_from_db(r[14]),  # type: ignore[arg-type]
        superseded_at=ts_from_db(r[15]),
        update_type=opt_enum(UpdateType, r[16]),
        actor=Actor(r[17]),
        reason=r[18],
    )


def session_from_row(r: Any) -> Session:
    return Session(
        id=r["id"],
        title=r["title"],
        created_at=ts_from_db(r["created_at"]),  # type: ignore[arg-type]
        updated_at=ts_from_db(r["updated_at"]),  # type: ignore[arg-type]
        incognito=bool(r["incognito"]),
        external_id=r["external_id"],
        message_count=int(r["message_count"]),
    )


def message_from_row(r: Any) -> Message:
    return Message(
        id=r["id"],
        session_id=r["session_id"],
        role=Role(r["role"]),
        content=r["content"],
        created_at=ts_from_db(r["created_at"]),  # type: ignore[arg-type]
        observed_at=ts_from_db(r["observed_at"]),  # type: ignore[arg-type]
        redacted=r["redacted_at"] is not None and r["content"] == "",
        external_id=r["external_id"],
        partly_redacted=r["redacted_at"] is not None and r["content"] != "",
    )


def audit_from_row(r: Any) -> AuditEntry:
    try:
        details = json.loads(r["details"]) if r["details"] else {}
    except ValueError:
        details = {"raw": r["details"]}
    return AuditEntry(
        id=r["id"],
        at=ts_from_db(r["at"]),  # type: ignore[arg-type]
        actor=Actor(r["actor"]),
        action=r["action"],
        memory_id=r["memory_id"],
        session_id=r["session_id"],
        update_type=opt_enum(UpdateType, r["update_type"]),
        from_version=r["from_version"],
        to_version=r["to_version"],
        details=details,
        run_id=r["run_id"],
    )


def injection_from_row(r: Any) -> InjectionRecord:
    return InjectionRecord(
        id=r["id"],
        turn_id=r["turn_id"],
        at=ts_from_db(r["at"]),  # type: ignore[arg-type]
        session_id=r["session_id"],
        message_id=r["message_id"],
        memory_id=r["memory_id"],
        rank=r["rank"],
        score=float(r["score"]),
        signals=json.loads(r["signals"] or "{}"),
        source_message_ids=tuple(json.loads(r["source_message_ids"] or "[]")),
    )


def write_audit(
    c: Connection,
    *,
    at: datetime,
    actor: Actor | str,
    action: str,
    memory_id: int | None = None,
    session_id: int | None = None,
    message_id: int | None = None,
    update_type: UpdateType | str | None = None,
    from_version: int | None = None,
    to_version: int | None = None,
    details: dict[str, Any] | None = None,
    run_id: str | None = None,
) -> int:
    cur = c.execute(
        "INSERT INTO audit_log(at, actor, action, memory_id, session_id, message_id, update_type, "
        "from_version, to_version, details, run_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            ts_to_db(at),
            Actor(actor).value,
            action,
            memory_id,
            session_id,
            message_id,
            UpdateType(update_type).value if update_type is not None else None,
            from_version,
            to_version,
            json.dumps(details or {}, ensure_ascii=False, default=str),
            run_id,
        ),
    )
    return int(cur.lastrowid)
