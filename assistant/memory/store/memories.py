"""Memory records: ADD (ADD-only, hash dedup: the same normalized text in the same scope and
kind, still current, gets the new source instead of a second row), sources, entities, links.
Changes that make a new version are in :mod:`.versions`; reads in :mod:`.reads`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Iterable, Sequence

from assistant.memory.records import (
    DEFAULT_SCOPE,
    Actor,
    AddResult,
    Kind,
    LinkType,
    NewMemory,
    Scope,
    Source,
    Status,
    Trust,
    UpdateType,
    content_hash,
    normalize_text,
    start_kind_of,
)
from assistant.memory.errors import EndsBeforeStart
from assistant.memory.times import to_utc, ts_to_db, ttl_to_expiry
from assistant.memory.store.core import Repository, StoreCore
from assistant.memory.store.logs import AuditLog
from assistant.memory.store.reads import MemoryReads
from assistant.memory.store.rows import IN_IDS, ids_json
from assistant.memory.store.sqlite.db import Connection
from assistant.memory.store.vectors import Vectors


# ------------------------------------------------------------------ checks (no I/O; also used by .versions)

class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()

def check_text(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError("memory text must be a string")
    if not normalize_text(text):
        raise ValueError("memory text is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("memory text is not valid Unicode (lone surrogate)") from exc
    return text


def check_interval(valid_at: datetime | None, invalid_at: datetime | None) -> None:
    if valid_at is not None and invalid_at is not None and to_utc(invalid_at) < to_utc(valid_at):
        raise EndsBeforeStart(valid_at, invalid_at)


def check_confidence(confidence: float) -> float:
    c = float(confidence)
    if not 0.0 <= c <= 1.0:
        raise ValueError("confidence must be within [0, 1]")
    return c


def norm_slot(slot: str | None) -> str | None:
    if slot is None:
        return None
    s = slot.strip()
    return s or None


DUP_SQL = (
    "SELECT id FROM memories WHERE scope = ? AND kind = ? AND content_hash = ? "
    "AND status != 'deleted' AND invalid_at IS NULL AND expired_at IS NULL ORDER BY id LIMIT 1"
)


def dup_key(spec: NewMemory) -> tuple[str, str, str]:
    return (spec.scope.key, Kind(spec.kind).value, content_hash(spec.text))


def checked(spec: NewMemory) -> NewMemory:
    """Validate a write spec; enums given as strings are converted."""
    check_text(spec.text)
    if not isinstance(spec.scope, Scope):
        raise TypeError("scope must be built with Scope(...)")
    check_confidence(spec.confidence)
    check_interval(spec.valid_at, spec.invalid_at)
    if isinstance(spec.ttl, timedelta) and spec.ttl <= timedelta(0):
        raise ValueError("TTL must be positive")
    return replace(
        spec, kind=Kind(spec.kind), trust=Trust(spec.trust), status=Status(spec.status),
        sources=tuple(spec.sources), entities=tuple(spec.entities),
    )  # fmt: skip


def db_value(field: str, value: Any) -> Any:
    if field in ("valid_at", "invalid_at", "expired_at", "expires_at"):
        return ts_to_db(value)
    if field == "kind":
        return Kind(value).value
    if field == "status":
        return Status(value).value
    if field == "trust":
        return Trust(value).value
    if field == "pinned":
        return int(bool(value))
    if field == "confidence":
        return check_confidence(value)
    if field == "text":
        return check_text(value)
    if field == "slot":
        return norm_slot(value)
    return value


class Memories(Repository):
    """ADD-only writes to ``memories`` with their sources, entities and links. ``store.memories``."""

    def __init__(self, core: StoreCore, reads: MemoryReads, vectors: Vectors, audit: AuditLog) -> None:
        super().__init__(core)
        self.reads, self.vectors, self.audit = reads, vectors, audit

    def add(self, text: str, **kwargs: Any) -> int:
        """ADD a memory; returns its id. Identical normalized text (same scope and kind, still
        current) returns the existing id and adds the new source to it. See :meth:`add_ex`."""
        return self.add_ex(text, **kwargs).id

    def add_ex(
        self,
        text: str,
        *,
        kind: Kind | str = Kind.FACT,
        scope: Scope | None = None,
        source: Source | None = None,
        sources: Sequence[Source] = (),
        valid_at: datetime | None = None,
        invalid_at: datetime | None = None,
        trust: Trust | str = Trust.USER_STATED,
        confidence: float = 1.0,
        entities: Sequence[str] = (),
        slot: str | None = None,
        ttl: timedelta | datetime | None = None,
        pinned: bool = False,
        status: Status | str = Status.ACTIVE,
        actor: Actor | str = Actor.CAPTURE,
        created_at: datetime | None = None,
        embedding: Sequence[float] | None = None,
        embed: bool = True,
        update_type: UpdateType | str | None = None,
        run_id: str | None = None,
        start_kind: str | None = None,
    ) -> AddResult:
        """ADD-only write. Returns ``AddResult(id, created)``."""
        spec = NewMemory(
            text, kind=Kind(kind), scope=scope or DEFAULT_SCOPE,
            sources=tuple(([source] if source is not None else []) + list(sources)), valid_at=valid_at,
            invalid_at=invalid_at, trust=Trust(trust), confidence=confidence, entities=tuple(entities), slot=slot,
            ttl=ttl, pinned=pinned, status=Status(status), created_at=created_at,
            embedding=tuple(embedding) if embedding is not None else None, start_kind=start_kind,
        )  # fmt: skip
        return self.add_many([spec], actor=actor, embed=embed, update_type=update_type, run_id=run_id)[0]

    def add_many(
        self,
        items: Sequence[NewMemory],
        *,
        actor: Actor | str = Actor.CAPTURE,
        embed: bool = True,
        update_type: UpdateType | str | None = None,
        run_id: str | None = None,
        batch: int = 256,
    ) -> list[AddResult]:
        """ADD several memories: one embedder call and one transaction per ``batch``. Same
        dedup rule as :meth:`add` (also between items of the call)."""
        actor = Actor(actor)
        items = [checked(spec) for spec in items]
        out: list[AddResult] = []
        for start in range(0, len(items), batch):
            chunk = list(items[start : start + batch])
            now = self.now()
            blobs: dict[int, bytes] = {}
            for i, spec in enumerate(chunk):
                if spec.embedding is not None:
                    blobs[i] = self.vectors.pack(spec.embedding)
            if embed and self.vectors.embed is not None:
                todo, seen = [], set()
                for i, spec in enumerate(chunk):
                    key = dup_key(spec)
                    if i in blobs or key in seen or self.conn.execute(DUP_SQL, key).fetchone() is not None:
                        continue
                    seen.add(key)
                    todo.append(i)
                if todo:  # slow: outside the write transaction
                    vecs = self.vectors.embed([chunk[i].text for i in todo])
                    blobs.update({i: self.vectors.pack(v) for i, v in zip(todo, vecs)})

            def run(c: Connection, chunk: list[NewMemory] = chunk, blobs: dict[int, bytes] = blobs, now: datetime = now) -> list[AddResult]:
                return [self._insert_new(c, spec, blobs.get(i), now, actor, update_type, run_id) for i, spec in enumerate(chunk)]

            out.extend(self.write(run))
        return out

    def _insert_new(self, c: Connection, spec: NewMemory, blob: bytes | None, now: datetime, actor: Actor,
                    update_type: UpdateType | str | None, run_id: str | None) -> AddResult:  # fmt: skip
        row = c.execute(DUP_SQL, dup_key(spec)).fetchone()
        if row is not None:
            mid = row[0]
            added = [s for s in spec.sources if self.insert_source(c, mid, s, now)]
            self._link_entities(c, mid, spec.entities)
            self.audit.add(
                c, actor=actor, action="add_source" if added else "add_duplicate", memory_id=mid,
                update_type=UpdateType.DUPLICATE, details={"sources": [s.to_json() for s in added], "text": spec.text},
                run_id=run_id, at=now,
            )  # fmt: skip
            return AddResult(mid, False)
        created = ts_to_db(spec.created_at or now)
        expires_at = ttl_to_expiry(spec.ttl, now) if spec.ttl is not None else None
        cur = c.execute(
            "INSERT INTO memories(text, kind, scope, valid_at, invalid_at, created_at, expired_at, trust, "
            "confidence, content_hash, status, version, expires_at, pinned, slot, updated_at, update_type, "
            "actor, start_kind) VALUES (?,?,?,?,?,?,NULL,?,?,?,?,1,?,?,?,?,?,?,?)",
            (
                spec.text, spec.kind.value, spec.scope.key, ts_to_db(spec.valid_at), ts_to_db(spec.invalid_at), created,
                spec.trust.value, float(spec.confidence), content_hash(spec.text), spec.status.value,
                ts_to_db(expires_at), int(spec.pinned), norm_slot(spec.slot), created,
                UpdateType(update_type).value if update_type else None, actor.value,
                start_kind_of(spec.valid_at, spec.sources, spec.start_kind),
            ),
        )  # fmt: skip
        mid = int(cur.lastrowid)
        for s in spec.sources:
            self.insert_source(c, mid, s, now)
        self._link_entities(c, mid, spec.entities)
        if blob is not None:
            self.vectors.put(c, mid, blob)
        self.audit.add(
            c, actor=actor, action="add", memory_id=mid, to_version=1, update_type=update_type, run_id=run_id, at=now,
            details={"text": spec.text, "kind": spec.kind.value, "trust": spec.trust.value,
                     "sources": [s.to_json() for s in spec.sources]},
        )  # fmt: skip
        return AddResult(mid, True)

    @staticmethod
    def insert_source(c: Connection, memory_id: int, s: Source, now: datetime) -> bool:
        exists = c.execute(
            "SELECT 1 FROM memory_sources WHERE memory_id = ? AND session_id IS ? AND message_id IS ? "
            "AND speaker = ? AND extractor = ? AND (message_id IS NOT NULL OR observed_at IS ?)",
            (memory_id, s.session_id, s.message_id, s.speaker, s.extractor, ts_to_db(s.observed_at)),
        ).fetchone()
        if exists:
            return False
        c.execute(
            "INSERT INTO memory_sources(memory_id, session_id, message_id, speaker, extractor, extractor_version, "
            "observed_at, added_at) VALUES (?,?,?,?,?,?,?,?)",
            (memory_id, s.session_id, s.message_id, s.speaker, s.extractor, s.extractor_version, ts_to_db(s.observed_at), ts_to_db(now)),
        )
        return True

    @staticmethod
    def _link_entities(c: Connection, memory_id: int, names: Iterable[str]) -> None:
        for name in names:
            if not isinstance(name, str) or not normalize_text(name):
                continue
            norm = normalize_text(name)
            c.execute("INSERT OR IGNORE INTO entities(name, normalized) VALUES (?, ?)", (name.strip(), norm))
            eid = c.execute("SELECT id FROM entities WHERE normalized = ?", (norm,)).fetchone()[0]
            c.execute("INSERT OR IGNORE INTO memory_entities(memory_id, entity_id) VALUES (?, ?)", (memory_id, eid))

    def add_source(self, memory_id: int, source: Source, *, actor: Actor | str = Actor.CAPTURE, run_id: str | None = None) -> bool:
        """Attach another source to a memory (no new version). False if it was already there."""
        now = self.now()

        def run(c: Connection) -> bool:
            self.reads.require(c, memory_id)
            added = self.insert_source(c, memory_id, source, now)
            if added:
                self.audit.add(c, actor=actor, action="add_source", memory_id=memory_id, details={"source": source.to_json()}, run_id=run_id, at=now)
            return added

        return self.write(run)

    def set_entities(self, memory_id: int, names: Sequence[str], *, actor: Actor | str = Actor.CAPTURE) -> None:
        """Replace the entity links of a memory (orphaned entities are removed)."""

        def run(c: Connection) -> None:
            self.reads.require(c, memory_id)
            old = [r[0] for r in c.execute("SELECT entity_id FROM memory_entities WHERE memory_id = ?", (memory_id,))]
            c.execute("DELETE FROM memory_entities WHERE memory_id = ?", (memory_id,))
            self._link_entities(c, memory_id, names)
            c.execute(
                f"DELETE FROM entities WHERE id IN {IN_IDS} AND id NOT IN (SELECT entity_id FROM memory_entities)",
                (ids_json(old),),
            )
            self.audit.add(c, actor=actor, action="set_entities", memory_id=memory_id, details={"entities": list(names)})

        self.write(run)

    def link(self, src_id: int, dst_id: int, type: LinkType | str, *, actor: Actor | str = Actor.CONSOLIDATOR, run_id: str | None = None) -> None:
        """Add a link ``src --type--> dst`` (``evolve_to``: src was merged into dst)."""
        t = LinkType(type)
        if src_id == dst_id:
            raise ValueError("a memory cannot link to itself")

        def run(c: Connection) -> None:
            self.reads.require(c, src_id)
            self.reads.require(c, dst_id)
            cur = c.execute(
                "INSERT OR IGNORE INTO memory_links(src_id, dst_id, type, created_at, actor) VALUES (?,?,?,?,?)",
                (src_id, dst_id, t.value, ts_to_db(self.now()), Actor(actor).value),
            )
            if cur.rowcount:
                self.audit.add(c, actor=actor, action="link", memory_id=src_id, details={"to": dst_id, "type": t.value}, run_id=run_id)

        self.write(run)

    def unlink(self, src_id: int, dst_id: int, type: LinkType | str, *, actor: Actor | str = Actor.USER, run_id: str | None = None) -> bool:
        t = LinkType(type)

        def run(c: Connection) -> bool:
            cur = c.execute("DELETE FROM memory_links WHERE src_id = ? AND dst_id = ? AND type = ?", (src_id, dst_id, t.value))
            if cur.rowcount:
                self.audit.add(c, actor=actor, action="unlink", memory_id=src_id, details={"to": dst_id, "type": t.value}, run_id=run_id)
            return bool(cur.rowcount)

        return self.write(run)

    def find_duplicate(self, text: str, *, kind: Kind | str = Kind.FACT, scope: Scope | None = None) -> int | None:
        """The id ``add`` would merge ``text`` into, if any."""
        row = self.conn.execute(
            "SELECT id FROM memories WHERE scope = ? AND kind = ? AND content_hash = ? AND status != 'deleted' "
            "AND invalid_at IS NULL AND expired_at IS NULL ORDER BY id LIMIT 1",
            ((scope or DEFAULT_SCOPE).key, Kind(kind).value, content_hash(text)),
        ).fetchone()
        return row[0] if row else None
