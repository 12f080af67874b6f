"""Holders: everything that keeps a copy of the person's text registers with the Forgetter.

A :class:`Holder` acts inside the delete's one write transaction (``count`` for the preview,
``apply`` for real; both return ``{what: rows}``); if one raises, the transaction is rolled back
and the report says which holder failed - nothing half-done. An :class:`AfterHolder` acts once
the delete is committed (caches, open sessions); if one raises, its error is in the report
(the delete itself stands) and the others still run.

This module holds the memory tables: :class:`MemoryRows` (removed memories: row, versions,
sources, entity links and orphaned entities, links, FTS5 entry - deleted by trigger with FTS5
``secure-delete`` on -, vector), :class:`MemoryCuts` (memories that lose sentences: a new
version without them, the older versions that held them removed, a new vector, entity links
named only by the removed part dropped), :class:`AuditText` and :class:`InjectionLog`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Protocol

from assistant.memory.store.sqlite.db import Connection
from assistant.memory.forget import match
from assistant.memory.forget.scope import Scope, count, ids
from assistant.memory.records import Actor, UpdateType, content_hash
from assistant.memory.times import ts_to_db
from assistant.memory.store import vector_index
from assistant.memory.store.rows import IN_IDS, ids_json

REDACTED_DETAILS = json.dumps({"redacted": True})


@dataclass(frozen=True)
class ApplyContext:
    now: datetime
    actor: Actor
    embed: Callable[[str], bytes | None]  # a new memory text -> its packed vector (None: none now)
    audit: Callable[..., int]  # store.audit_log.add


class Holder(Protocol):
    name: str

    def count(self, c: Connection, scope: Scope) -> dict[str, int]: ...
    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]: ...


class AfterHolder(Protocol):
    name: str

    def after(self, report: Any) -> dict[str, int] | None: ...


def _orphans(c: Connection, doomed: str) -> int:
    return count(
        c,
        f"SELECT count(DISTINCT entity_id) FROM memory_entities WHERE memory_id IN {IN_IDS} AND entity_id NOT IN "
        f"(SELECT entity_id FROM memory_entities WHERE memory_id NOT IN {IN_IDS})",
        doomed, doomed,
    )  # fmt: skip


class MemoryRows:
    name = "memories"

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        d = ids_json(scope.doomed)
        detached = count(
            c,
            f"SELECT count(*) FROM memory_sources WHERE memory_id IN {IN_IDS} AND (session_id = ? OR message_id IN {IN_IDS})",
            ids_json(scope.detached), -1 if scope.session_id is None else scope.session_id, ids_json(scope.session_messages),
        )  # fmt: skip
        return {
            "memories": len(scope.doomed),
            "memory_versions": count(c, f"SELECT count(*) FROM memory_versions WHERE memory_id IN {IN_IDS}", d),
            "memory_sources": count(c, f"SELECT count(*) FROM memory_sources WHERE memory_id IN {IN_IDS}", d) + detached,
            "memory_entities": count(c, f"SELECT count(*) FROM memory_entities WHERE memory_id IN {IN_IDS}", d),
            "entities": _orphans(c, d),
            "memory_links": count(c, f"SELECT count(*) FROM memory_links WHERE src_id IN {IN_IDS} OR dst_id IN {IN_IDS}", d, d),
            "memory_fts": len(scope.doomed),
            "memory_vec": count(c, f"SELECT count(*) FROM memory_vec WHERE rowid IN {IN_IDS}", d),
            "file_refs": count(c, f"SELECT count(*) FROM file_refs WHERE memory_id IN {IN_IDS}", d),
        }

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        counts = self.count(c, scope)
        d = ids_json(scope.doomed)
        c.execute(f"DELETE FROM memory_vec WHERE rowid IN {IN_IDS}", (d,))
        vector_index.forget_partial(c, d)  # and from an index being built by a re-embedding
        entity_ids = ids_json(ids(c, f"SELECT entity_id FROM memory_entities WHERE memory_id IN {IN_IDS}", d))
        c.execute(f"DELETE FROM memory_links WHERE src_id IN {IN_IDS} OR dst_id IN {IN_IDS}", (d, d))
        c.execute(f"DELETE FROM memory_entities WHERE memory_id IN {IN_IDS}", (d,))
        c.execute(f"DELETE FROM entities WHERE id IN {IN_IDS} AND id NOT IN (SELECT entity_id FROM memory_entities)", (entity_ids,))
        c.execute(f"DELETE FROM memory_sources WHERE memory_id IN {IN_IDS}", (d,))
        c.execute(f"DELETE FROM memory_versions WHERE memory_id IN {IN_IDS}", (d,))
        c.execute(f"DELETE FROM file_refs WHERE memory_id IN {IN_IDS}", (d,))
        c.execute(f"DELETE FROM memories WHERE id IN {IN_IDS}", (d,))  # trigger: FTS 'delete'
        if scope.session_id is not None:
            c.execute(
                f"DELETE FROM memory_sources WHERE memory_id IN {IN_IDS} AND (session_id = ? OR message_id IN {IN_IDS})",
                (ids_json(scope.detached), scope.session_id, ids_json(scope.session_messages)),
            )
        req = scope.request
        for mid in sorted(scope.doomed):
            ctx.audit(c, actor=ctx.actor, action=req.action, memory_id=mid, at=ctx.now, run_id=req.run_id, update_type=req.update_type,
                      details={"redacted": True, "requested": mid in scope.requested, "session_id": scope.session_id})  # fmt: skip
        return counts


class MemoryCuts:
    """Memories kept without the forgotten sentences (a part the person chose, a copy of a
    removed text, a derived memory rebuilt from what remains)."""

    name = "memory_edits"

    def _old_versions(self, c: Connection, scope: Scope) -> list[tuple[int, int]]:
        out = [(int(m), int(v)) for m, v in c.execute(
            f"SELECT memory_id, version FROM memory_versions WHERE memory_id IN {IN_IDS}", (ids_json(scope.old_versions_of),))]  # fmt: skip
        for mid, cut_ in scope.memory_cuts.items():
            for (version, text) in c.execute("SELECT version, text FROM memory_versions WHERE memory_id = ?", (mid,)):
                if any(match.contains(text, s) for s in (*cut_.removed, *scope.needles)):
                    out.append((mid, int(version)))
        return out

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        return {"memories_edited": len(scope.memory_cuts), "memory_versions_forgotten": len(self._old_versions(c, scope))}

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        counts = self.count(c, scope)
        for mid, version in self._old_versions(c, scope):
            c.execute("DELETE FROM memory_versions WHERE memory_id = ? AND version = ?", (mid, version))
        for mid in sorted(scope.old_versions_of):
            ctx.audit(c, actor=ctx.actor, action="forget_versions", memory_id=mid, at=ctx.now, details={"redacted": True})
        for mid, cut_ in sorted(scope.memory_cuts.items()):
            row = c.execute("SELECT version, updated_at FROM memories WHERE id = ?", (mid,)).fetchone()
            why = "rebuilt without forgotten text" if mid in scope.rebuilt else "forgotten part removed"
            c.execute(
                "UPDATE memories SET text = ?, content_hash = ?, version = ?, updated_at = ?, update_type = ?, actor = ?, reason = ? WHERE id = ?",
                (cut_.kept, content_hash(cut_.kept), int(row[0]) + 1, max(ts_to_db(ctx.now), row[1]),
                 UpdateType.USER_EDIT.value, ctx.actor.value, why, mid),
            )  # fmt: skip  -- trigger: FTS 'delete' of the old text, then the new one is indexed
            c.execute("DELETE FROM memory_vec WHERE rowid = ?", (mid,))
            vector_index.forget_partial(c, ids_json([mid]))
            blob = ctx.embed(cut_.kept)
            if blob is not None:
                c.execute("INSERT INTO memory_vec(rowid, embedding) VALUES (?, ?)", (mid, blob))
            self._entities(c, mid, cut_.kept)
            ctx.audit(c, actor=ctx.actor, action="forget_part", memory_id=mid, from_version=int(row[0]), to_version=int(row[0]) + 1,
                      update_type=UpdateType.USER_EDIT, at=ctx.now, run_id=scope.request.run_id,
                      details={"redacted": True, "sentences_removed": len(cut_.removed)})  # fmt: skip
        return counts

    @staticmethod
    def _entities(c: Connection, mid: int, kept: str) -> None:
        """Entity links whose name the kept text no longer mentions go (orphans with them)."""
        gone = [eid for eid, name in c.execute(
            "SELECT e.id, e.name FROM entities e JOIN memory_entities me ON me.entity_id = e.id WHERE me.memory_id = ?", (mid,),
        ).fetchall() if not match.contains(kept, name)]  # fmt: skip
        if gone:
            c.execute(f"DELETE FROM memory_entities WHERE memory_id = ? AND entity_id IN {IN_IDS}", (mid, ids_json(gone)))
            c.execute(f"DELETE FROM entities WHERE id IN {IN_IDS} AND id NOT IN (SELECT entity_id FROM memory_entities)", (ids_json(gone),))


def _holds(details: str, needles: list[str], names: set[str]) -> bool:
    try:
        values = json.dumps(json.loads(details), ensure_ascii=False)
    except ValueError:
        values = details
    return any(match.contains(values, n) for n in needles) or bool(match.identifiers(values) & names)


class AuditText:
    """Audit rows stay (the trail "added, edited, deleted by you" survives); their text goes."""

    name = "audit_log"

    def _rows(self, c: Connection, scope: Scope) -> list[int]:
        d = ids_json(scope.doomed)
        sid = -1 if scope.session_id is None else scope.session_id
        out = ids(c, f"SELECT id FROM audit_log WHERE memory_id IN {IN_IDS} OR session_id = ?", d, sid)
        kept = ids_json(set(scope.memory_cuts) | scope.old_versions_of)
        for rid, details in c.execute(f"SELECT id, details FROM audit_log WHERE memory_id IN {IN_IDS} OR session_id IN {IN_IDS}",
                                      (kept, ids_json(scope.touched_sessions))):  # fmt: skip
            if _holds(details, scope.needles, scope.names):
                out.add(int(rid))
        return sorted(out)

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        return {"audit_log_redacted": len(self._rows(c, scope))}

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        rows = self._rows(c, scope)
        c.execute(f"UPDATE audit_log SET details = ? WHERE id IN {IN_IDS}", (REDACTED_DETAILS, ids_json(rows)))
        return {"audit_log_redacted": len(rows)}


class InjectionLog:
    name = "injection_log"

    def count(self, c: Connection, scope: Scope) -> dict[str, int]:
        sid = -1 if scope.session_id is None else scope.session_id
        return {"injection_log": count(c, f"SELECT count(*) FROM injection_log WHERE memory_id IN {IN_IDS} OR session_id = ?",
                                       ids_json(scope.doomed), sid)}  # fmt: skip

    def apply(self, c: Connection, scope: Scope, ctx: ApplyContext) -> dict[str, int]:
        counts = self.count(c, scope)
        sid = -1 if scope.session_id is None else scope.session_id
        c.execute(f"DELETE FROM injection_log WHERE memory_id IN {IN_IDS} OR session_id = ?", (ids_json(scope.doomed), sid))
        return counts
