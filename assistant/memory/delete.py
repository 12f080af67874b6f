"""Real deletion: a memory (or a session) leaves every table, index and file that held it.

Deleting memories removes, for each: the row, its versions, sources, entity links (and entities
left without any memory), links, FTS5 entries (external-content ``delete`` with FTS5
``secure-delete`` on, so the tokens leave the index b-tree), the sqlite-vec vector (zeroed by
vec0), injection-log rows, and the text of its audit rows (the rows stay, redacted, so the trail
"added, edited, deleted by user" survives). With ``redact_sources`` (default) the source
messages are redacted too (content emptied, FTS updated; the row stays as a tombstone so the
sequence and other memories' provenance keep their ids), and episode memories that are verbatim
copies of those messages go with them.

Derived summaries: a memory linked from a deleted one by ``evolve_to`` (or linking to it by
``derived_from``) is removed when all its inputs are deleted and it has no source of its own
left; otherwise it is kept, loses the link, and is set to ``resolving`` so the consolidator
regenerates it from what remains.

Deleting a session removes its messages and the memories whose every source is in it; memories
with other sources keep those and lose the link to this session. The session's own files
(``MemoryStore(session_files=...)``; by default ``archive/session-<id>/`` and
``data/context/<id>.json``, the context manager's offload and compaction files) are removed.

Files: files registered with :meth:`register_file` for a deleted memory/message/session are
overwritten and removed; other files under the app's archive and exports folders that contain a
deleted text (at least ``MIN_SCAN_CHARS`` long; raw or JSON-escaped) are rewritten in place with
``[deleted]`` (files that are not UTF-8 text are removed). Finally the WAL is checkpointed with
``TRUNCATE`` so no old page image survives in the ``-wal`` file (``secure_delete=ON`` zeroes the
freed space in the main file).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from assistant.fileio import overwrite_in_place
from assistant.memory.base import StoreBase
from assistant.memory.db import Connection
from assistant.memory.errors import NotFound
from assistant.memory.records import Actor, Status, UpdateType, ts_to_db
from assistant.memory.rows import IN_IDS, ids_json

MIN_SCAN_CHARS = 12
REDACTED = "[deleted]"
_REDACTED_DETAILS = json.dumps({"redacted": True})


@dataclass(frozen=True)
class DeletePlan:
    """What a delete removes; the same object is the preview and (after execution) the report."""

    requested_ids: tuple[int, ...]
    memory_ids: tuple[int, ...]  # every memory removed: requested + episodes + derived
    derived_ids: tuple[int, ...]  # removed because they only existed through a deleted record
    regenerate_ids: tuple[int, ...]  # derived summaries kept (other sources), set to resolving
    detached_ids: tuple[int, ...]  # memories that only lose their link to the deleted session
    redacted_message_ids: tuple[int, ...]
    deleted_message_ids: tuple[int, ...]
    session_ids: tuple[int, ...]
    counts: dict[str, int]  # table/index -> rows removed or redacted
    files_deleted: tuple[str, ...] = ()
    files_redacted: tuple[str, ...] = ()
    executed: bool = False
    wal_truncated: bool | None = None
    errors: tuple[str, ...] = field(default_factory=tuple)
    needles: tuple[str, ...] = field(default=(), repr=False)  # deleted texts, for file redaction

    def to_json(self) -> dict[str, Any]:
        return {
            "requested_ids": list(self.requested_ids),
            "memory_ids": list(self.memory_ids),
            "derived_ids": list(self.derived_ids),
            "regenerate_ids": list(self.regenerate_ids),
            "detached_ids": list(self.detached_ids),
            "redacted_message_ids": list(self.redacted_message_ids),
            "deleted_message_ids": list(self.deleted_message_ids),
            "session_ids": list(self.session_ids),
            "counts": dict(self.counts),
            "files_deleted": list(self.files_deleted),
            "files_redacted": list(self.files_redacted),
            "executed": self.executed,
            "wal_truncated": self.wal_truncated,
            "errors": list(self.errors),
        }


def _count(c: Connection, sql: str, *params: Any) -> int:
    return int(c.execute(sql, params).fetchone()[0])


def _ids(c: Connection, sql: str, *params: Any) -> set[int]:
    return {int(r[0]) for r in c.execute(sql, params) if r[0] is not None}


def _variants(text: str) -> list[str]:
    out = {text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]}
    return sorted((v for v in out if len(v) >= MIN_SCAN_CHARS), key=len, reverse=True)



class DeleteMixin(StoreBase):
    # ------------------------------------------------------------------ public

    def delete_preview(self, ids: int | Sequence[int], *, redact_sources: bool = True) -> DeletePlan:
        """What :meth:`delete` would remove (per table/index/file counts); changes nothing."""
        ids = [ids] if isinstance(ids, int) else list(ids)
        return self.read(lambda c: self._plan(c, ids, redact_sources=redact_sources))

    def delete(self, ids: int | Sequence[int], *, actor: Actor | str = Actor.USER, redact_sources: bool = True,
               run_id: str | None = None) -> DeletePlan:  # fmt: skip
        """Delete memories for real (see the module docstring). Returns the executed plan.
        ``run_id``: the consolidation run (or its undo) the audit rows belong to."""
        ids = [ids] if isinstance(ids, int) else list(ids)
        return self._execute(lambda c: self._plan(c, ids, redact_sources=redact_sources), actor, run_id=run_id)

    def delete_session_preview(self, session_id: int) -> DeletePlan:
        return self.read(lambda c: self._plan(c, [], redact_sources=False, session_id=session_id))

    def delete_session(self, session_id: int, *, actor: Actor | str = Actor.USER) -> DeletePlan:
        """Delete a session, its messages, and the memories that have no other source."""
        return self._execute(lambda c: self._plan(c, [], redact_sources=False, session_id=session_id), actor)

    def purge_expired(self, *, actor: Actor | str = Actor.CONSOLIDATOR, redact_sources: bool = False,
                      run_id: str | None = None) -> DeletePlan:  # fmt: skip
        """Delete memories whose TTL (``expires_at``) has passed (the background job's purge).
        Audited as ``purge_ttl`` (update_type ``ttl``) with ``run_id``, in the same transaction."""
        now = ts_to_db(self.now())
        ids = sorted(_ids(self.conn, "SELECT id FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?", now))
        return self._execute(lambda c: self._plan(c, ids, redact_sources=redact_sources), actor, run_id=run_id,
                             action="purge_ttl", update_type=UpdateType.TTL)  # fmt: skip

    # ------------------------------------------------------------------ planning

    def _plan(self, c: Connection, ids: Sequence[int], *, redact_sources: bool, session_id: int | None = None) -> DeletePlan:
        requested = {int(i) for i in ids}
        missing = requested - _ids(c, f"SELECT id FROM memories WHERE id IN {IN_IDS}", ids_json(requested))
        if missing:
            raise NotFound(f"no memory with id {', '.join(map(str, sorted(missing)))}")
        doomed = set(requested)
        direct: set[int] = set()  # sourced only from the session being deleted
        detached: set[int] = set()
        session_msgs: set[int] = set()
        if session_id is not None:
            if c.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
                raise NotFound(f"no session with id {session_id}")
            session_msgs = _ids(c, "SELECT id FROM messages WHERE session_id = ?", session_id)
            touched = _ids(
                c,
                f"SELECT DISTINCT memory_id FROM memory_sources WHERE session_id = ? OR message_id IN {IN_IDS}",
                session_id,
                ids_json(session_msgs),
            )
            for mid in touched:
                others = _count(
                    c,
                    "SELECT count(*) FROM memory_sources WHERE memory_id = ? AND (session_id IS NOT ? OR session_id IS NULL) "
                    f"AND (message_id IS NULL OR message_id NOT IN {IN_IDS})",
                    mid,
                    session_id,
                    ids_json(session_msgs),
                )
                (detached if others else direct).add(mid)
            doomed |= direct
        redact_msgs: set[int] = set()
        if redact_sources and requested:
            redact_msgs = _ids(
                c,
                f"SELECT DISTINCT s.message_id FROM memory_sources s JOIN messages m ON m.id = s.message_id "
                f"WHERE s.memory_id IN {IN_IDS} AND m.redacted_at IS NULL",
                ids_json(requested),
            )
        gone_msgs = redact_msgs | session_msgs

        def has_outside_source(mid: int) -> bool:
            rows = c.execute("SELECT session_id, message_id FROM memory_sources WHERE memory_id = ?", (mid,)).fetchall()
            for sid, msg in rows:
                if msg is not None and msg in gone_msgs:
                    continue
                if session_id is not None and sid == session_id:
                    continue
                return True
            return False

        # episodes: verbatim copies of messages that are going away
        if gone_msgs:
            for mid in _ids(
                c,
                f"SELECT DISTINCT s.memory_id FROM memory_sources s JOIN memories m ON m.id = s.memory_id "
                f"WHERE m.kind = 'episode' AND s.message_id IN {IN_IDS}",
                ids_json(gone_msgs),
            ):
                if mid not in doomed and not has_outside_source(mid):
                    doomed.add(mid)
        # derived summaries (transitively)
        regenerate: set[int] = set()
        changed = True
        while changed:
            changed = False
            d = ids_json(doomed)
            candidates = _ids(
                c,
                f"SELECT dst_id FROM memory_links WHERE type = 'evolve_to' AND src_id IN {IN_IDS} "
                f"UNION SELECT src_id FROM memory_links WHERE type = 'derived_from' AND dst_id IN {IN_IDS}",
                d,
                d,
            ) - doomed
            for s in sorted(candidates):
                inputs = _ids(
                    c,
                    "SELECT src_id FROM memory_links WHERE type = 'evolve_to' AND dst_id = ? "
                    "UNION SELECT dst_id FROM memory_links WHERE type = 'derived_from' AND src_id = ?",
                    s,
                    s,
                )
                if inputs <= doomed and not has_outside_source(s):
                    doomed.add(s)
                    changed = True
                else:
                    regenerate.add(s)
        regenerate -= doomed
        detached -= doomed
        derived = doomed - requested - direct
        counts = self._counts(c, doomed, detached, redact_msgs, session_msgs, session_id)
        ref_files, scan_files, needles = self._files(c, doomed, gone_msgs, session_id)
        counts["files"] = len(ref_files) + len(scan_files)
        return DeletePlan(
            requested_ids=tuple(sorted(requested)),
            memory_ids=tuple(sorted(doomed)),
            derived_ids=tuple(sorted(derived)),
            regenerate_ids=tuple(sorted(regenerate)),
            detached_ids=tuple(sorted(detached)),
            redacted_message_ids=tuple(sorted(redact_msgs - session_msgs)),
            deleted_message_ids=tuple(sorted(session_msgs)),
            session_ids=(session_id,) if session_id is not None else (),
            counts=counts,
            files_deleted=tuple(ref_files),
            files_redacted=tuple(scan_files),
            needles=tuple(needles),
        )

    @staticmethod
    def _counts(
        c: Connection, doomed: set[int], detached: set[int], redact: set[int], session_msgs: set[int], session_id: int | None
    ) -> dict[str, int]:
        d, m = ids_json(doomed), ids_json(session_msgs)
        sid = -1 if session_id is None else session_id
        counts = {
            "memories": len(doomed),
            "memory_versions": _count(c, f"SELECT count(*) FROM memory_versions WHERE memory_id IN {IN_IDS}", d),
            "memory_sources": _count(c, f"SELECT count(*) FROM memory_sources WHERE memory_id IN {IN_IDS}", d)
            + _count(
                c,
                f"SELECT count(*) FROM memory_sources WHERE memory_id IN {IN_IDS} AND (session_id = ? OR message_id IN {IN_IDS})",
                ids_json(detached),
                sid,
                m,
            ),
            "memory_entities": _count(c, f"SELECT count(*) FROM memory_entities WHERE memory_id IN {IN_IDS}", d),
            "entities": _count(
                c,
                f"SELECT count(DISTINCT entity_id) FROM memory_entities WHERE memory_id IN {IN_IDS} AND entity_id NOT IN "
                f"(SELECT entity_id FROM memory_entities WHERE memory_id NOT IN {IN_IDS})",
                d,
                d,
            ),
            "memory_links": _count(c, f"SELECT count(*) FROM memory_links WHERE src_id IN {IN_IDS} OR dst_id IN {IN_IDS}", d, d),
            "memory_fts": len(doomed),
            "memory_vec": _count(c, f"SELECT count(*) FROM memory_vec WHERE rowid IN {IN_IDS}", d),
            "audit_log_redacted": _count(c, f"SELECT count(*) FROM audit_log WHERE memory_id IN {IN_IDS} OR session_id = ?", d, sid),
            "injection_log": _count(c, f"SELECT count(*) FROM injection_log WHERE memory_id IN {IN_IDS} OR session_id = ?", d, sid),
            "messages_redacted": len(redact - session_msgs),
            "messages_deleted": len(session_msgs),
            "message_fts": len(redact | session_msgs),
            "file_refs": _count(
                c,
                f"SELECT count(*) FROM file_refs WHERE memory_id IN {IN_IDS} OR message_id IN {IN_IDS} OR session_id = ?",
                d,
                ids_json(redact | session_msgs),
                sid,
            ),
            "sessions": 0 if session_id is None else 1,
        }
        return counts

    def _files(
        self, c: Connection, doomed: set[int], gone_msgs: set[int], session_id: int | None
    ) -> tuple[list[str], list[str], list[str]]:
        sid = -1 if session_id is None else session_id
        ref_files = sorted(
            {
                r[0]
                for r in c.execute(
                    f"SELECT path FROM file_refs WHERE memory_id IN {IN_IDS} OR message_id IN {IN_IDS} OR session_id = ?",
                    (ids_json(doomed), ids_json(gone_msgs), sid),
                )
                if os.path.exists(r[0])
            }
            | (set(self._session_paths(session_id)) if session_id is not None else set())
        )
        texts = {r[0] for r in c.execute(f"SELECT text FROM memories WHERE id IN {IN_IDS}", (ids_json(doomed),))}
        texts |= {r[0] for r in c.execute(f"SELECT text FROM memory_versions WHERE memory_id IN {IN_IDS}", (ids_json(doomed),))}
        texts |= {r[0] for r in c.execute(f"SELECT content FROM messages WHERE id IN {IN_IDS}", (ids_json(gone_msgs),))}
        d = ids_json(doomed)
        texts |= {  # names of entities that disappear with these memories
            r[0]
            for r in c.execute(
                f"SELECT e.name FROM entities e JOIN memory_entities me ON me.entity_id = e.id WHERE me.memory_id IN {IN_IDS} "
                f"AND e.id NOT IN (SELECT entity_id FROM memory_entities WHERE memory_id NOT IN {IN_IDS})",
                (d, d),
            )
        }
        needles = sorted({v for t in texts for v in _variants(t)}, key=len, reverse=True)
        scan = sorted(str(p) for p in self._scan(needles) if str(p) not in ref_files)
        return ref_files, scan, needles

    def _session_paths(self, session_id: int) -> list[str]:
        out = []
        for p in self.session_files(session_id):
            if p.is_file():
                out.append(str(p))
            elif p.is_dir():
                out += [str(Path(d) / f) for d, _dirs, files in os.walk(p) for f in files]
        return out

    def _scan(self, needles: list[str]) -> Iterable[Path]:
        if not needles:
            return []
        raw = [n.encode("utf-8", "surrogatepass") for n in needles]
        skip = {self.path, Path(str(self.path) + "-wal"), Path(str(self.path) + "-shm")}
        hits = []
        for root in self.file_roots:
            if not root.is_dir():
                continue
            for dirpath, _dirs, files in os.walk(root):
                for name in files:
                    p = Path(dirpath) / name
                    if p in skip:
                        continue
                    try:
                        data = p.read_bytes()
                    except OSError:
                        continue
                    if any(n in data for n in raw):
                        hits.append(p)
        return hits

    # ------------------------------------------------------------------ execution

    def _execute(self, planner: Any, actor: Actor | str, *, run_id: str | None = None, action: str = "delete",
                 update_type: UpdateType | None = None) -> DeletePlan:  # fmt: skip
        actor = Actor(actor)

        def run(c: Connection) -> DeletePlan:
            plan: DeletePlan = planner(c)
            now = self.now()
            d = ids_json(plan.memory_ids)
            sid = plan.session_ids[0] if plan.session_ids else -1
            gone_msgs = ids_json(set(plan.redacted_message_ids) | set(plan.deleted_message_ids))
            c.execute(f"UPDATE audit_log SET details = ? WHERE memory_id IN {IN_IDS} OR session_id = ?", (_REDACTED_DETAILS, d, sid))
            c.execute(f"DELETE FROM injection_log WHERE memory_id IN {IN_IDS} OR session_id = ?", (d, sid))
            c.execute(f"DELETE FROM memory_vec WHERE rowid IN {IN_IDS}", (d,))
            entity_ids = ids_json(_ids(c, f"SELECT entity_id FROM memory_entities WHERE memory_id IN {IN_IDS}", d))
            c.execute(f"DELETE FROM memory_links WHERE src_id IN {IN_IDS} OR dst_id IN {IN_IDS}", (d, d))
            c.execute(f"DELETE FROM memory_entities WHERE memory_id IN {IN_IDS}", (d,))
            c.execute(f"DELETE FROM entities WHERE id IN {IN_IDS} AND id NOT IN (SELECT entity_id FROM memory_entities)", (entity_ids,))
            c.execute(f"DELETE FROM memory_sources WHERE memory_id IN {IN_IDS}", (d,))
            c.execute(f"DELETE FROM memory_versions WHERE memory_id IN {IN_IDS}", (d,))
            c.execute(f"DELETE FROM memories WHERE id IN {IN_IDS}", (d,))  # trigger: FTS 'delete'
            c.execute(
                f"DELETE FROM memory_sources WHERE memory_id IN {IN_IDS} AND (session_id = ? OR message_id IN {IN_IDS})",
                (ids_json(plan.detached_ids), sid, gone_msgs),
            )
            c.execute(
                f"DELETE FROM file_refs WHERE memory_id IN {IN_IDS} OR message_id IN {IN_IDS} OR session_id = ?",
                (d, gone_msgs, sid),
            )
            c.execute(
                f"UPDATE messages SET content = '', redacted_at = ? WHERE id IN {IN_IDS}",
                (ts_to_db(now), ids_json(plan.redacted_message_ids)),
            )  # trigger: FTS 'delete' of the old content
            if plan.session_ids:
                c.execute("DELETE FROM memory_sources WHERE session_id = ?", (sid,))
                c.execute("DELETE FROM messages WHERE session_id = ?", (sid,))
                c.execute("DELETE FROM sessions WHERE id = ?", (sid,))
            for mid in plan.regenerate_ids:
                self.update(  # type: ignore[attr-defined]
                    mid,
                    status=Status.RESOLVING,
                    update_type=UpdateType.CONSOLIDATE,
                    actor=actor,
                    reason="a memory it was derived from was deleted; needs regeneration",
                    action="needs_regeneration",
                    run_id=run_id,
                )
            for mid in plan.memory_ids:
                self._audit(
                    c,
                    actor=actor,
                    action=action,
                    update_type=update_type,
                    run_id=run_id,
                    memory_id=mid,
                    details={"redacted": True, "requested": mid in plan.requested_ids, "session_id": plan.session_ids[0] if plan.session_ids else None},
                    at=now,
                )
            if plan.session_ids:
                self._audit(c, actor=actor, action="delete_session", session_id=sid, details={"redacted": True, "counts": plan.counts}, at=now)
            return plan

        plan = self.write(run)
        errors = list(self._apply_files(plan))
        for sid in plan.session_ids:
            for p in self.session_files(sid):
                if p.is_dir():
                    shutil.rmtree(p, ignore_errors=True)
        truncated = self.checkpoint()
        from dataclasses import replace

        report = replace(plan, executed=True, wal_truncated=truncated, errors=tuple(errors), needles=())
        for listener in list(self._delete_listeners):
            with contextlib.suppress(Exception):
                listener(report)
        return report

    def _apply_files(self, plan: DeletePlan) -> Iterable[str]:
        for f in plan.files_deleted:
            p = Path(f)
            try:
                size = p.stat().st_size
                overwrite_in_place(p, b"\0" * size)
                p.unlink()
            except FileNotFoundError:
                continue
            except OSError as exc:
                yield f"could not delete {p}: {exc}"
        if not plan.files_redacted:
            return
        texts = plan.needles
        for f in plan.files_redacted:
            p = Path(f)
            try:
                data = p.read_bytes()
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    overwrite_in_place(p, b"\0" * len(data))
                    p.unlink()
                    continue
                for needle in texts:
                    text = text.replace(needle, REDACTED)
                overwrite_in_place(p, text.encode("utf-8"))
            except OSError as exc:
                yield f"could not redact {p}: {exc}"
