"""Memory records: add (ADD-only, hash dedup), read, bitemporal list, versioned changes.

Every change except usage counters (:meth:`record_use`) makes a new version: the previous state
is copied to ``memory_versions`` (with the system-time span it was current) and the row gets
``version + 1``. Every change writes ``audit_log``. Updates take ``expected_version`` and raise
:class:`VersionConflict` when the record moved on (optimistic concurrency for the consolidator).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Iterable, Sequence

from assistant.memory.store.sqlite.db import Connection
from assistant.memory.errors import NotFound, VersionConflict
from assistant.memory.store.reads import ReadsMixin
from assistant.memory.records import (
    DEFAULT_SCOPE,
    Actor,
    AddResult,
    Kind,
    LinkType,
    Memory,
    NewMemory,
    Scope,
    Source,
    Status,
    Trust,
    UpdateType,
    content_hash,
    normalize_text,
    to_utc,
    ts_from_db,
    ts_to_db,
    ttl_to_expiry,
)
from assistant.memory.store.rows import IN_IDS, MEMORY_COLUMNS, VERSION_COLUMNS, hydrate, ids_json


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()

# Fields a change may set, with (to-db, from-db) converters; order = memory_versions snapshot.
_FIELDS = ("text", "kind", "valid_at", "invalid_at", "expired_at", "status", "trust", "confidence", "expires_at", "pinned", "slot")


def _check_text(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError("memory text must be a string")
    if not normalize_text(text):
        raise ValueError("memory text is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("memory text is not valid Unicode (lone surrogate)") from exc
    return text


def _check_interval(valid_at: datetime | None, invalid_at: datetime | None) -> None:
    if valid_at is not None and invalid_at is not None and to_utc(invalid_at) < to_utc(valid_at):
        raise ValueError("invalid_at is before valid_at")


def _check_confidence(confidence: float) -> float:
    c = float(confidence)
    if not 0.0 <= c <= 1.0:
        raise ValueError("confidence must be within [0, 1]")
    return c


def _norm_slot(slot: str | None) -> str | None:
    if slot is None:
        return None
    s = slot.strip()
    return s or None


_DUP_SQL = (
    "SELECT id FROM memories WHERE scope = ? AND kind = ? AND content_hash = ? "
    "AND status != 'deleted' AND invalid_at IS NULL AND expired_at IS NULL ORDER BY id LIMIT 1"
)


def _dup_key(spec: NewMemory) -> tuple[str, str, str]:
    return (spec.scope.key, Kind(spec.kind).value, content_hash(spec.text))


def _checked(spec: NewMemory) -> NewMemory:
    """Validate a write spec; enums given as strings are converted."""
    _check_text(spec.text)
    if not isinstance(spec.scope, Scope):
        raise TypeError("scope must be built with Scope(...)")
    _check_confidence(spec.confidence)
    _check_interval(spec.valid_at, spec.invalid_at)
    if isinstance(spec.ttl, timedelta) and spec.ttl <= timedelta(0):
        raise ValueError("TTL must be positive")
    return replace(
        spec, kind=Kind(spec.kind), trust=Trust(spec.trust), status=Status(spec.status),
        sources=tuple(spec.sources), entities=tuple(spec.entities),
    )  # fmt: skip


def _db_value(field: str, value: Any) -> Any:
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
        return _check_confidence(value)
    if field == "text":
        return _check_text(value)
    if field == "slot":
        return _norm_slot(value)
    return value


class MemoriesMixin(ReadsMixin):
    # ------------------------------------------------------------------ add

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
    ) -> AddResult:
        """ADD-only write. Returns ``AddResult(id, created)``."""
        spec = NewMemory(
            text, kind=Kind(kind), scope=scope or DEFAULT_SCOPE,
            sources=tuple(([source] if source is not None else []) + list(sources)), valid_at=valid_at,
            invalid_at=invalid_at, trust=Trust(trust), confidence=confidence, entities=tuple(entities), slot=slot,
            ttl=ttl, pinned=pinned, status=Status(status), created_at=created_at,
            embedding=tuple(embedding) if embedding is not None else None,
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
        items = [_checked(spec) for spec in items]
        out: list[AddResult] = []
        for start in range(0, len(items), batch):
            chunk = list(items[start : start + batch])
            now = self.now()
            blobs: dict[int, bytes] = {}
            for i, spec in enumerate(chunk):
                if spec.embedding is not None:
                    blobs[i] = self._pack(spec.embedding)
            if embed and self._embed is not None:
                todo, seen = [], set()
                for i, spec in enumerate(chunk):
                    key = _dup_key(spec)
                    if i in blobs or key in seen or self.conn.execute(_DUP_SQL, key).fetchone() is not None:
                        continue
                    seen.add(key)
                    todo.append(i)
                if todo:  # slow: outside the write transaction
                    vecs = self._embed([chunk[i].text for i in todo])
                    blobs.update({i: self._pack(v) for i, v in zip(todo, vecs)})

            def run(c: Connection, chunk: list[NewMemory] = chunk, blobs: dict[int, bytes] = blobs, now: datetime = now) -> list[AddResult]:
                return [self._insert_new(c, spec, blobs.get(i), now, actor, update_type, run_id) for i, spec in enumerate(chunk)]

            out.extend(self.write(run))
        return out

    def _insert_new(self, c: Connection, spec: NewMemory, blob: bytes | None, now: datetime, actor: Actor,
                    update_type: UpdateType | str | None, run_id: str | None) -> AddResult:  # fmt: skip
        row = c.execute(_DUP_SQL, _dup_key(spec)).fetchone()
        if row is not None:
            mid = row[0]
            added = [s for s in spec.sources if self._insert_source(c, mid, s, now)]
            self._link_entities(c, mid, spec.entities)
            self._audit(
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
            "actor) VALUES (?,?,?,?,?,?,NULL,?,?,?,?,1,?,?,?,?,?,?)",
            (
                spec.text, spec.kind.value, spec.scope.key, ts_to_db(spec.valid_at), ts_to_db(spec.invalid_at), created,
                spec.trust.value, float(spec.confidence), content_hash(spec.text), spec.status.value,
                ts_to_db(expires_at), int(spec.pinned), _norm_slot(spec.slot), created,
                UpdateType(update_type).value if update_type else None, actor.value,
            ),
        )  # fmt: skip
        mid = int(cur.lastrowid)
        for s in spec.sources:
            self._insert_source(c, mid, s, now)
        self._link_entities(c, mid, spec.entities)
        if blob is not None:
            self._put_vector(c, mid, blob)
        self._audit(
            c, actor=actor, action="add", memory_id=mid, to_version=1, update_type=update_type, run_id=run_id, at=now,
            details={"text": spec.text, "kind": spec.kind.value, "trust": spec.trust.value,
                     "sources": [s.to_json() for s in spec.sources]},
        )  # fmt: skip
        return AddResult(mid, True)

    @staticmethod
    def _insert_source(c: Connection, memory_id: int, s: Source, now: datetime) -> bool:
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
            self._require(c, memory_id)
            added = self._insert_source(c, memory_id, source, now)
            if added:
                self._audit(c, actor=actor, action="add_source", memory_id=memory_id, details={"source": source.to_json()}, run_id=run_id, at=now)
            return added

        return self.write(run)

    def set_entities(self, memory_id: int, names: Sequence[str], *, actor: Actor | str = Actor.CAPTURE) -> None:
        """Replace the entity links of a memory (orphaned entities are removed)."""

        def run(c: Connection) -> None:
            self._require(c, memory_id)
            old = [r[0] for r in c.execute("SELECT entity_id FROM memory_entities WHERE memory_id = ?", (memory_id,))]
            c.execute("DELETE FROM memory_entities WHERE memory_id = ?", (memory_id,))
            self._link_entities(c, memory_id, names)
            c.execute(
                f"DELETE FROM entities WHERE id IN {IN_IDS} AND id NOT IN (SELECT entity_id FROM memory_entities)",
                (ids_json(old),),
            )
            self._audit(c, actor=actor, action="set_entities", memory_id=memory_id, details={"entities": list(names)})

        self.write(run)

    def link(self, src_id: int, dst_id: int, type: LinkType | str, *, actor: Actor | str = Actor.CONSOLIDATOR, run_id: str | None = None) -> None:
        """Add a link ``src --type--> dst`` (``evolve_to``: src was merged into dst)."""
        t = LinkType(type)
        if src_id == dst_id:
            raise ValueError("a memory cannot link to itself")

        def run(c: Connection) -> None:
            self._require(c, src_id)
            self._require(c, dst_id)
            cur = c.execute(
                "INSERT OR IGNORE INTO memory_links(src_id, dst_id, type, created_at, actor) VALUES (?,?,?,?,?)",
                (src_id, dst_id, t.value, ts_to_db(self.now()), Actor(actor).value),
            )
            if cur.rowcount:
                self._audit(c, actor=actor, action="link", memory_id=src_id, details={"to": dst_id, "type": t.value}, run_id=run_id)

        self.write(run)

    def unlink(self, src_id: int, dst_id: int, type: LinkType | str, *, actor: Actor | str = Actor.USER, run_id: str | None = None) -> bool:
        t = LinkType(type)

        def run(c: Connection) -> bool:
            cur = c.execute("DELETE FROM memory_links WHERE src_id = ? AND dst_id = ? AND type = ?", (src_id, dst_id, t.value))
            if cur.rowcount:
                self._audit(c, actor=actor, action="unlink", memory_id=src_id, details={"to": dst_id, "type": t.value}, run_id=run_id)
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

    # ------------------------------------------------------------------ change (new version)

    def update(
        self,
        memory_id: int,
        *,
        text: str = UNSET,
        kind: Kind | str = UNSET,
        valid_at: datetime | None = UNSET,
        invalid_at: datetime | None = UNSET,
        expired_at: datetime | None = UNSET,
        status: Status | str = UNSET,
        trust: Trust | str = UNSET,
        confidence: float = UNSET,
        expires_at: datetime | None = UNSET,
        pinned: bool = UNSET,
        slot: str | None = UNSET,
        expected_version: int | None = None,
        update_type: UpdateType | str = UpdateType.USER_EDIT,
        actor: Actor | str = Actor.USER,
        reason: str | None = None,
        run_id: str | None = None,
        action: str = "update",
    ) -> Memory:
        """Make a new version with the given fields changed (the old one goes to
        ``memory_versions``). No-op changes return the memory unchanged (no version)."""
        changes = {k: v for k, v in dict(
            text=text, kind=kind, valid_at=valid_at, invalid_at=invalid_at, expired_at=expired_at, status=status,
            trust=trust, confidence=confidence, expires_at=expires_at, pinned=pinned, slot=slot,
        ).items() if v is not UNSET}  # fmt: skip
        if "status" in changes and Status(changes["status"]) == Status.DELETED:
            raise ValueError("use delete() to delete a memory (it removes every copy)")
        new_db = {k: _db_value(k, v) for k, v in changes.items()}
        update_type, actor = UpdateType(update_type), Actor(actor)
        blob: bytes | None = None
        embedded_text: str | None = None
        if "text" in changes and self._embed is not None:
            row = self.conn.execute("SELECT text FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row is not None and row[0] != changes["text"]:
                blob, embedded_text = self._embed_one(changes["text"]), changes["text"]

        def run(c: Connection) -> Memory:
            row = self._require(c, memory_id)
            cur = dict(zip(MEMORY_COLUMNS, row))
            if expected_version is not None and cur["version"] != expected_version:
                raise VersionConflict(memory_id, expected_version, cur["version"])
            diff = {k: v for k, v in new_db.items() if cur[k] != v}
            if not diff:
                return hydrate(c, [row])[0]
            merged = {**cur, **diff}
            _check_interval(ts_from_db(merged["valid_at"]), ts_from_db(merged["invalid_at"]))
            now = self.now()
            self._snapshot(c, cur, now)
            sets = dict(diff)
            if "text" in diff:
                sets["content_hash"] = content_hash(diff["text"])
            sets.update(version=cur["version"] + 1, updated_at=max(ts_to_db(now), cur["updated_at"]),
                        update_type=update_type.value, actor=actor.value, reason=reason)  # fmt: skip
            c.execute(
                f"UPDATE memories SET {', '.join(f'{k} = ?' for k in sets)} WHERE id = ?",
                (*sets.values(), memory_id),
            )
            if "text" in diff:  # the old vector describes the old text
                self._put_vector(c, memory_id, blob if embedded_text == diff["text"] else None)
            self._audit(
                c, actor=actor, action=action, memory_id=memory_id, update_type=update_type,
                from_version=cur["version"], to_version=cur["version"] + 1,
                details={"changes": {k: [cur[k], v] for k, v in diff.items()}, "reason": reason}, run_id=run_id, at=now,
            )  # fmt: skip
            return hydrate(c, [self._require(c, memory_id)])[0]

        return self.write(run)

    @staticmethod
    def _snapshot(c: Connection, cur: dict[str, Any], now: datetime) -> None:
        superseded = max(ts_to_db(now), cur["updated_at"])  # type: ignore[type-var]
        c.execute(
            f"INSERT INTO memory_versions({', '.join(VERSION_COLUMNS)}) VALUES ({', '.join('?' * len(VERSION_COLUMNS))})",
            (cur["id"], cur["version"], cur["text"], cur["content_hash"], cur["kind"], cur["valid_at"], cur["invalid_at"],
             cur["expired_at"], cur["status"], cur["trust"], cur["confidence"], cur["expires_at"], cur["pinned"],
             cur["slot"], cur["updated_at"], superseded, cur["update_type"], cur["actor"], cur["reason"]),
        )  # fmt: skip

    def edit(self, memory_id: int, text: str, *, expected_version: int | None = None, actor: Actor | str = Actor.USER,
             update_type: UpdateType | str = UpdateType.USER_EDIT, reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """New text as a new version; the old text stays in the history."""
        return self.update(memory_id, text=text, expected_version=expected_version, actor=actor,
                           update_type=update_type, reason=reason, run_id=run_id, action="edit")  # fmt: skip

    def invalidate(self, memory_id: int, at: datetime | None = None, *, expected_version: int | None = None,
                   actor: Actor | str = Actor.USER, update_type: UpdateType | str = UpdateType.USER_EDIT,
                   reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """It stopped being true at ``at`` (world time; default now). When that is not in the
        future, the record is also expired now (system time), unless it already was."""
        while True:
            now = self.now()
            when = to_utc(at) if at is not None else now
            current = self.get(memory_id)
            expired = current.expired_at or (now if when <= now else None)
            try:
                return self.update(
                    memory_id, invalid_at=when, expired_at=expired, actor=actor, update_type=update_type,
                    reason=reason, run_id=run_id, action="invalidate",
                    expected_version=expected_version if expected_version is not None else current.version,
                )  # fmt: skip
            except VersionConflict:
                if expected_version is not None:
                    raise  # the caller's own check failed; otherwise re-read and retry

    def set_ttl(self, memory_id: int, ttl: timedelta | datetime, *, expected_version: int | None = None,
                actor: Actor | str = Actor.USER, update_type: UpdateType | str = UpdateType.USER_EDIT) -> Memory:  # fmt: skip
        """Expire (hide, then purge) the memory after ``ttl`` (a duration from now, or a time)."""
        return self.update(memory_id, expires_at=ttl_to_expiry(ttl, self.now()), expected_version=expected_version,
                           actor=actor, update_type=update_type, action="set_ttl")  # fmt: skip

    def clear_ttl(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER) -> Memory:
        return self.update(memory_id, expires_at=None, expected_version=expected_version, actor=actor, action="clear_ttl")

    def pin(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER) -> Memory:
        """Pinned memories are exempt from decay."""
        return self.update(memory_id, pinned=True, expected_version=expected_version, actor=actor, action="pin")

    def unpin(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER) -> Memory:
        return self.update(memory_id, pinned=False, expected_version=expected_version, actor=actor, action="unpin")

    def archive(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER,
                update_type: UpdateType | str = UpdateType.USER_EDIT, reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """Hide from default reads (still listed with include_archived, restorable)."""
        return self.update(memory_id, status=Status.ARCHIVED, expected_version=expected_version, actor=actor,
                           update_type=update_type, reason=reason, run_id=run_id, action="archive")  # fmt: skip

    def restore(self, memory_id: int, *, expected_version: int | None = None, actor: Actor | str = Actor.USER,
                update_type: UpdateType | str = UpdateType.USER_EDIT, reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """Back to active (from archived or resolving)."""
        return self.update(memory_id, status=Status.ACTIVE, expected_version=expected_version, actor=actor,
                           update_type=update_type, reason=reason, run_id=run_id, action="restore")  # fmt: skip

    def restore_version(self, memory_id: int, version: int, *, expected_version: int | None = None,
                        actor: Actor | str = Actor.USER, update_type: UpdateType | str = UpdateType.USER_EDIT,
                        reason: str | None = None, run_id: str | None = None) -> Memory:  # fmt: skip
        """Make the content of an earlier version current again (as a new version)."""
        old = next((v for v in self.history(memory_id) if v.version == version), None)
        if old is None:
            raise NotFound(f"memory {memory_id} has no version {version}")
        return self.update(
            memory_id, text=old.text, kind=old.kind, valid_at=old.valid_at, invalid_at=old.invalid_at,
            expired_at=old.expired_at, status=old.status, trust=old.trust, confidence=old.confidence,
            expires_at=old.expires_at, pinned=old.pinned, slot=old.slot, expected_version=expected_version,
            actor=actor, update_type=update_type, reason=reason or f"restored version {version}", run_id=run_id,
            action="restore_version",
        )  # fmt: skip

    def record_use(self, ids: Sequence[int], at: datetime | None = None) -> None:
        """Usage counters for decay (use_count, last_used_at). Not a new version, not audited."""
        if not ids:
            return
        when = ts_to_db(at or self.now())
        self.write(lambda c: c.execute(
            f"UPDATE memories SET use_count = use_count + 1, last_used_at = ? WHERE id IN {IN_IDS}", (when, ids_json(ids))
        ))  # fmt: skip

