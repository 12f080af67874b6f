"""What a forget is asked to do (:class:`ForgetRequest`) and what it did (:class:`ForgetReport`).

The same report is the preview (``executed=False``: what would go, from each holder) and the
result (``executed=True``). A holder that failed is listed with its error and makes
``ok`` false: the CLI exits non-zero and says so, the app shows it; nothing is swallowed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PartCut:
    """Forget only some sentences of a memory (the part about X): ``sentences`` are exact
    sentences of the memory's current text."""

    memory_id: int
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"memory_id": self.memory_id, "sentences": list(self.sentences)}


@dataclass(frozen=True)
class ForgetRequest:
    memory_ids: tuple[int, ...] = ()  # memories removed whole
    parts: tuple[PartCut, ...] = ()  # memories that lose some sentences only
    session_id: int | None = None  # a whole conversation
    redact_sources: bool = True  # the part of the conversation the memories came from goes too
    run_id: str | None = None  # the consolidation run (or its undo) this delete belongs to (audit rows)
    action: str = "delete"  # the audit action of each removed memory ("purge_ttl" for the TTL purge)
    update_type: str | None = None  # ... and its update_type ("ttl")
    versions_of: tuple[int, ...] = ()  # memories whose earlier versions (old wording) go; the memory stays
    # other memories found only by their text (no shared source, no derivation link) are copies
    # the person must confirm: they are only proposed (``ForgetReport.proposed``) unless named here
    copies: tuple[int, ...] = ()

    @classmethod
    def memories(cls, ids: int | Any, *, redact_sources: bool = True, copies: Any = ()) -> "ForgetRequest":
        ids = [ids] if isinstance(ids, int) else list(ids)
        return cls(memory_ids=tuple(int(i) for i in ids), redact_sources=redact_sources, copies=tuple(int(i) for i in copies))


@dataclass(frozen=True)
class TextCut:
    """One text that loses sentences: ``removed`` go, ``kept`` stays ("" = nothing stays)."""

    kind: str  # "memory" | "message"
    id: int
    removed: tuple[str, ...]
    kept: str
    role: str = ""  # messages: "user" | "assistant"
    text: str = ""  # messages: the whole text before the cut (a title made from it follows the cut)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "role": self.role or None, "removed": list(self.removed), "kept": self.kept}


@dataclass(frozen=True)
class ProposedCopy:
    """Another memory that holds a removed text but is linked to nothing removed (found by its
    text only): it stays unless the person confirms it (``ForgetRequest.copies``,
    ``--with-copies``). ``reason`` says why it was found ("same text as an old version of #1")."""

    memory_id: int
    text: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.memory_id, "text": self.text, "reason": self.reason}


@dataclass(frozen=True)
class HolderResult:
    """What one holder removed (``counts``: table or copy -> rows removed or changed)."""

    name: str
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "counts": dict(self.counts), "error": self.error, "notes": list(self.notes)}


@dataclass(frozen=True)
class ForgetReport:
    requested_ids: tuple[int, ...]
    memory_ids: tuple[int, ...]  # every memory removed whole
    derived_ids: tuple[int, ...]  # removed because they only existed through a removed one (or were copies)
    regenerate_ids: tuple[int, ...]  # derived memories kept and rebuilt at once from what remains
    detached_ids: tuple[int, ...]  # memories that only lose their link to the deleted conversation
    redacted_message_ids: tuple[int, ...]  # messages that lost sentences (or all their text)
    deleted_message_ids: tuple[int, ...]
    session_ids: tuple[int, ...]
    counts: dict[str, int]
    memory_edits: tuple[TextCut, ...] = ()
    message_edits: tuple[TextCut, ...] = ()
    memories_removed: tuple[TextCut, ...] = ()  # the memories that go whole, with their text
    holders: tuple[HolderResult, ...] = ()
    exports: tuple[str, ...] = ()  # files the person exported earlier that still hold this (untouched)
    notes: tuple[str, ...] = ()
    executed: bool = False
    wal_truncated: bool | None = None
    errors: tuple[str, ...] = ()
    proposed: tuple[ProposedCopy, ...] = ()  # copies found by text, not taken (see ProposedCopy)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "executed": self.executed,
            "requested_ids": list(self.requested_ids),
            "memory_ids": list(self.memory_ids),
            "derived_ids": list(self.derived_ids),
            "regenerate_ids": list(self.regenerate_ids),
            "detached_ids": list(self.detached_ids),
            "redacted_message_ids": list(self.redacted_message_ids),
            "deleted_message_ids": list(self.deleted_message_ids),
            "session_ids": list(self.session_ids),
            "counts": dict(self.counts),
            "memories_removed": [c.to_json() for c in self.memories_removed],
            "memory_edits": [c.to_json() for c in self.memory_edits],
            "message_edits": [c.to_json() for c in self.message_edits],
            "holders": [h.to_json() for h in self.holders],
            "exports": list(self.exports),
            "proposed_copies": [p.to_json() for p in self.proposed],
            "notes": list(self.notes),
            "wal_truncated": self.wal_truncated,
            "errors": list(self.errors),
        }
