"""Export and import of the whole memory as JSON (format ``keepsake.memories``, version 1).

Export: every memory (all statuses, with prior versions, sources, entities, links) and, unless
told otherwise, every session with its messages. Written 0600, atomically.

Import is idempotent: sessions map by external id (or by origin store id + original id),
messages by external id, memories dedup on (scope, kind, normalized text, valid_at, invalid_at).
Trust is capped at ``imported`` unless ``keep_trust`` (a file can claim anything). Bad entries
are reported and skipped; the rest is imported.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from assistant.fileio import write_private_atomic
from assistant.memory.store.sqlite.db import Connection
from assistant.memory.records import (
    START_KINDS,
    Actor,
    Kind,
    LinkType,
    Role,
    Scope,
    Source,
    Status,
    Trust,
    UpdateType,
    content_hash,
)
from assistant.memory.times import iso, parse_iso, ts_to_db
from assistant.memory.store.archive.context import ContextArchive
from assistant.memory.store.core import Repository, StoreCore
from assistant.memory.store.memories import Memories
from assistant.memory.store.reads import MemoryReads
from assistant.memory.store.rows import VERSION_COLUMNS, version_from_row
from assistant.memory.store.sessions import Sessions
from assistant.memory.store.vectors import Vectors

FORMAT = "keepsake.memories"
FORMAT_VERSION = 1


@dataclass
class ImportReport:
    memories_added: int = 0
    memories_merged: int = 0
    sessions_added: int = 0
    messages_added: int = 0
    links_added: int = 0
    errors: list[str] = field(default_factory=list)
    id_map: dict[int, int] = field(default_factory=dict)  # exported memory id -> id here

    def to_json(self) -> dict[str, Any]:
        return {
            "memories_added": self.memories_added,
            "memories_merged": self.memories_merged,
            "sessions_added": self.sessions_added,
            "messages_added": self.messages_added,
            "links_added": self.links_added,
            "errors": self.errors,
        }


class Portable(Repository):
    """Export to and import from the ``keepsake.memories`` JSON format. ``store.portable``."""

    def __init__(self, core: StoreCore, reads: MemoryReads, memories: Memories, sessions: Sessions, vectors: Vectors,
                 archive: ContextArchive) -> None:  # fmt: skip
        super().__init__(core)
        self.reads, self.memories, self.sessions, self.vectors, self.archive = reads, memories, sessions, vectors, archive

    def export_json(self, path: str | Path | None = None, *, include_sessions: bool = True,
                    ids: Sequence[int] | None = None) -> dict[str, Any]:  # fmt: skip
        """The whole memory as a JSON-able dict; also written to ``path`` (mode 0600) when given.
        ``ids``: only these memories (a selection; unknown ids are skipped)."""

        def run(c: Connection) -> dict[str, Any]:
            if ids is None:
                wanted = [r[0] for r in c.execute("SELECT id FROM memories ORDER BY id")]
            else:
                wanted = sorted({int(i) for i in ids})
            memories = []
            for chunk in range(0, len(wanted), 500):
                for m in self.reads.get_many(wanted[chunk : chunk + 500]):
                    obj = m.to_json()
                    rows = c.execute(
                        f"SELECT {', '.join(VERSION_COLUMNS)} FROM memory_versions WHERE memory_id = ? ORDER BY version", (m.id,)
                    ).fetchall()
                    obj["versions"] = [version_from_row(r).to_json() for r in rows]
                    memories.append(obj)
            out: dict[str, Any] = {
                "format": FORMAT,
                "version": FORMAT_VERSION,
                "store_id": self.core.store_id,
                "exported_at": iso(self.now()),
                "memories": memories,
            }
            if include_sessions:
                sessions = []
                for s in self.sessions.list_sessions():
                    obj = s.to_json()
                    obj["messages"] = [msg.to_json() for msg in self.sessions.messages(s.id)]
                    sessions.append(obj)
                out["sessions"] = sessions[::-1]
            return out

        data = self.read(run)
        if path is not None:
            target = Path(path).expanduser()
            write_private_atomic(target, json.dumps(data, ensure_ascii=False, indent=1))
            # the file is the person's from now on (never scanned, edited or deleted); only its
            # path is remembered, so a later delete can say that this export still holds the text
            self.archive.record_export(str(target.resolve()), [m["id"] for m in data["memories"]],
                                       [x["id"] for x in data.get("sessions", [])])
        return data

    def import_json(self, src: str | Path | dict[str, Any], *, keep_trust: bool = False, actor: Actor | str = Actor.IMPORT) -> ImportReport:
        """Import an export (a path or the parsed dict). Idempotent; see the module docstring."""
        report = ImportReport()
        if isinstance(src, dict):
            data = src
        else:
            try:
                data = json.loads(Path(src).expanduser().read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ValueError(f"cannot read {src}: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a Keepsake memory export (expected format {FORMAT!r})")
        if int(data.get("version", 0)) > FORMAT_VERSION:
            raise ValueError(f"export format version {data.get('version')} is newer than this Keepsake understands")
        origin = str(data.get("store_id") or "unknown")
        same_store = origin == self.core.store_id
        session_map: dict[int, int] = {}
        message_map: dict[int, int] = {}
        for i, s in enumerate(data.get("sessions") or []):
            try:
                self._import_session(s, origin, same_store, session_map, message_map, report)
            except (KeyError, TypeError, ValueError) as exc:
                report.errors.append(f"session #{i}: {exc}")
        new_ids: list[int] = []
        for i, m in enumerate(data.get("memories") or []):
            try:
                new = self._import_memory(m, keep_trust, Actor(actor), session_map, message_map, report)
                if new is not None:
                    new_ids.append(new)
            except (KeyError, TypeError, ValueError) as exc:
                report.errors.append(f"memory #{i} ({str(m.get('id')) if isinstance(m, dict) else '?'}): {exc}")
        for m in data.get("memories") or []:
            for link in (m.get("links") or []) if isinstance(m, dict) else []:
                try:
                    a, b = report.id_map.get(int(link["from"])), report.id_map.get(int(link["to"]))
                    if a is not None and b is not None and a != b:
                        before = self.conn.execute("SELECT count(*) FROM memory_links").fetchone()[0]
                        self.memories.link(a, b, LinkType(link["type"]), actor=actor)
                        report.links_added += self.conn.execute("SELECT count(*) FROM memory_links").fetchone()[0] - before
                except (KeyError, TypeError, ValueError) as exc:
                    report.errors.append(f"link {link!r}: {exc}")
        self.vectors.backfill(ids=new_ids)
        return report

    def _import_session(self, s: dict[str, Any], origin: str, same_store: bool, session_map: dict[int, int],
                        message_map: dict[int, int], report: ImportReport) -> None:  # fmt: skip
        old_id = int(s["id"])
        if same_store and self.conn.execute("SELECT 1 FROM sessions WHERE id = ?", (old_id,)).fetchone():
            session_map[old_id] = old_id
            for msg in s.get("messages") or []:
                message_map[int(msg["id"])] = int(msg["id"])
            return
        ext = s.get("external_id") or f"keepsake:{origin}:{old_id}"
        existed = self.sessions.find_session(ext) is not None
        sess = self.sessions.create_session(
            str(s.get("title") or ""), external_id=ext, incognito=bool(s.get("incognito")),
            created_at=parse_iso(s.get("created_at")), actor=Actor.IMPORT,
        )  # fmt: skip
        report.sessions_added += 0 if existed else 1
        session_map[old_id] = sess.id
        for msg in s.get("messages") or []:
            if msg.get("redacted"):
                continue
            mext = msg.get("external_id") or f"keepsake:{origin}:{msg['id']}"
            before = self.conn.execute("SELECT max(id) FROM messages").fetchone()[0]
            new = self.sessions.add_message(
                sess.id, Role(msg["role"]), str(msg["content"]), observed_at=parse_iso(msg.get("observed_at")),
                created_at=parse_iso(msg.get("created_at")), external_id=mext,
            )  # fmt: skip
            report.messages_added += int(before is None or new.id > before)
            message_map[int(msg["id"])] = new.id

    def _import_memory(self, m: dict[str, Any], keep_trust: bool, actor: Actor, session_map: dict[int, int],
                       message_map: dict[int, int], report: ImportReport) -> int | None:  # fmt: skip
        text = m["text"]
        if not isinstance(text, str):
            raise TypeError("text must be a string")
        kind, scope = Kind(m.get("kind") or "fact"), Scope(m.get("scope") or "default")
        trust = Trust(m.get("trust") or "imported")
        if not keep_trust:
            trust = Trust.lowest([trust, Trust.IMPORTED])
        valid_at, invalid_at = parse_iso(m.get("valid_at")), parse_iso(m.get("invalid_at"))
        status = Status(m.get("status") or "active")
        if status == Status.DELETED:
            return None
        sources = []
        for s in m.get("sources") or []:
            src = Source.from_json(s)
            sources.append(
                Source(
                    session_id=session_map.get(src.session_id) if src.session_id is not None else None,
                    message_id=message_map.get(src.message_id) if src.message_id is not None else None,
                    speaker=src.speaker, extractor=src.extractor, extractor_version=src.extractor_version,
                    observed_at=src.observed_at,
                )
            )  # fmt: skip
        existing = self.conn.execute(
            "SELECT id FROM memories WHERE scope = ? AND kind = ? AND content_hash = ? AND valid_at IS ? AND invalid_at IS ? "
            "ORDER BY id LIMIT 1",
            (scope.key, kind.value, content_hash(text), ts_to_db(valid_at), ts_to_db(invalid_at)),
        ).fetchone()
        if existing is not None:
            mid = int(existing[0])
            for src in sources:
                self.memories.add_source(mid, src, actor=actor)
            report.memories_merged += 1
            if "id" in m:
                report.id_map[int(m["id"])] = mid
            return None
        res = self.memories.add_ex(
            text, kind=kind, scope=scope, sources=sources, valid_at=valid_at, invalid_at=invalid_at, trust=trust,
            confidence=float(m.get("confidence", 1.0)), entities=[str(e) for e in m.get("entities") or []],
            slot=m.get("slot"), ttl=parse_iso(m.get("expires_at")) if m.get("expires_at") else None,
            pinned=bool(m.get("pinned")), status=status, actor=actor, created_at=parse_iso(m.get("created_at")),
            embed=False, update_type=UpdateType.IMPORT,
            start_kind=m.get("start_kind") if m.get("start_kind") in START_KINDS else None,
        )  # fmt: skip
        mid = res.id
        expired = parse_iso(m.get("expired_at"))
        versions = [v for v in m.get("versions") or [] if isinstance(v, dict)]

        def history(c: Connection) -> None:
            if expired is not None:
                c.execute("UPDATE memories SET expired_at = ? WHERE id = ?", (ts_to_db(expired), mid))
            for v in versions:
                vtext = str(v["text"])
                c.execute(
                    f"INSERT OR IGNORE INTO memory_versions({', '.join(VERSION_COLUMNS)}) VALUES ({', '.join('?' * len(VERSION_COLUMNS))})",
                    (mid, int(v["version"]), vtext, content_hash(vtext), Kind(v.get("kind") or kind).value,
                     ts_to_db(parse_iso(v.get("valid_at"))), ts_to_db(parse_iso(v.get("invalid_at"))),
                     ts_to_db(parse_iso(v.get("expired_at"))), Status(v.get("status") or "active").value,
                     (Trust.lowest([Trust(v.get("trust") or "imported"), Trust.IMPORTED]) if not keep_trust else Trust(v.get("trust") or "imported")).value,
                     float(v.get("confidence", 1.0)), ts_to_db(parse_iso(v.get("expires_at"))), int(bool(v.get("pinned"))),
                     v.get("slot"), ts_to_db(parse_iso(v["recorded_at"])), ts_to_db(parse_iso(v["superseded_at"])),
                     UpdateType(v["update_type"]).value if v.get("update_type") else None, Actor(v.get("actor") or "import").value,
                     v.get("reason")),
                )  # fmt: skip
            if versions:
                top = max(int(v["version"]) for v in versions)
                c.execute("UPDATE memories SET version = ?, updated_at = max(updated_at, ?) WHERE id = ?",
                          (top + 1, ts_to_db(parse_iso(m.get("updated_at")) or parse_iso(versions[-1]["superseded_at"])), mid))  # fmt: skip

        if expired is not None or versions:
            self.write(history)
        report.memories_added += 1
        if "id" in m:
            report.id_map[int(m["id"])] = mid
        return mid
