"""What a consolidation run proposes: one typed change per decision, each with its reason and
the versions (plus a fingerprint of the fields the decision read) of every record it touches.

Changes are plain frozen dataclasses; :mod:`assistant.memory.store.tidying.apply` writes them.
A change whose records moved on since planning is retried if the fields it depends on are
unchanged (:meth:`Change.revalidate`), otherwise dropped for the next run.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Mapping, Union

from assistant.memory.records import Trust, UpdateType
from assistant.memory.times import iso
from assistant.memory.store.tidying.snapshot import Rec


@dataclass(frozen=True)
class Expect:
    """A record as the planner saw it: ``version`` plus the fingerprint of the fields used."""

    id: int
    version: int
    fingerprint: tuple[Any, ...]

    @classmethod
    def of(cls, rec: Rec, *, usage: bool = False) -> "Expect":
        return cls(rec.id, rec.version, rec.fingerprint(usage=usage))

    def matches(self, rec: Rec | None, *, usage: bool = False) -> bool:
        return rec is not None and rec.version == self.version and rec.fingerprint(usage=usage) == self.fingerprint

    def still_valid(self, rec: Rec | None, *, usage: bool = False) -> bool:
        """Same decision inputs (the version may have moved)."""
        return rec is not None and rec.fingerprint(usage=usage) == self.fingerprint


class _Base:
    expects: tuple[Expect, ...]
    update_type: UpdateType
    usage = False  # whether use_count/last_used_at are decision inputs (decay)

    def ids(self) -> tuple[int, ...]:
        return tuple(e.id for e in self.expects)

    def revalidate(self, fresh: Mapping[int, Rec | None]) -> "Change | None":
        """The same change against fresh records, or None when its inputs changed."""
        if not all(e.still_valid(fresh.get(e.id), usage=self.usage) for e in self.expects):
            return None
        return replace(self, expects=tuple(Expect.of(fresh[e.id], usage=self.usage) for e in self.expects))  # type: ignore[arg-type, type-var]


@dataclass(frozen=True)
class Merge(_Base):
    """Duplicates: ``merged`` are archived + expired (update_type duplicate), linked
    ``merged --evolve_to--> survivor``; their sources and entities are united on the survivor."""

    survivor: int
    merged: tuple[int, ...]
    tier: str  # "hash" | "normalized" | "fuzzy" | "llm" | "slot_value" | "claim"
    reasons: tuple[str, ...]  # one per merged record
    texts: tuple[str, ...]  # survivor text, then merged texts (display only)
    confidence: float | None  # raise the survivor's confidence to this (None: unchanged)
    expects: tuple[Expect, ...] = ()
    update_type: UpdateType = UpdateType.DUPLICATE

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "merge", "update_type": self.update_type.value, "tier": self.tier, "survivor": self.survivor,
            "merged": list(self.merged), "reasons": list(self.reasons), "texts": list(self.texts),
            "confidence": self.confidence,
        }  # fmt: skip

    def describe(self) -> str:
        head = f"merge   #{self.survivor} <- " + ", ".join(f"#{m}" for m in self.merged) + f"  [{self.tier}]"
        lines = [head, f"        keep: {self.texts[0]!r}"]
        for mid, text, why in zip(self.merged, self.texts[1:], self.reasons):
            lines.append(f"        #{mid}: {text!r} ({why})")
        return "\n".join(lines)


@dataclass(frozen=True)
class Invalidate(_Base):
    """A contradiction decided by the interval algebra: ``memory_id`` stopped being true at
    ``invalid_at`` (world time) and is no longer believed since ``expired_at`` (system time)."""

    memory_id: int
    invalid_at: datetime
    expired_at: datetime
    winner: int  # the fact that replaces it
    rule: str  # temporal.Rule name
    via: str  # "slot" | "episode" | "llm"
    reason: str
    texts: tuple[str, str] = ("", "")  # (invalidated, winner), display only
    followers: tuple[int, ...] = ()  # episodes/restatements of the same message, invalidated with it
    follower_texts: tuple[str, ...] = ()
    expects: tuple[Expect, ...] = ()
    update_type: UpdateType = UpdateType.CONFLICT

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "invalidate", "update_type": self.update_type.value, "memory_id": self.memory_id,
            "invalid_at": iso(self.invalid_at), "expired_at": iso(self.expired_at), "winner": self.winner,
            "rule": self.rule, "via": self.via, "reason": self.reason, "texts": list(self.texts),
            "followers": list(self.followers),
        }  # fmt: skip

    def describe(self) -> str:
        text = (
            f"invalidate #{self.memory_id} at {(iso(self.invalid_at) or '')[:10]} (superseded by #{self.winner}, {self.via})\n"
            f"        {self.texts[0]!r} -> {self.texts[1]!r}\n        {self.reason}"
        )
        for fid, ftext in zip(self.followers, self.follower_texts):
            text += f"\n        with #{fid} {ftext!r} (states the same old value, or its message did)"
        return text


@dataclass(frozen=True)
class Consolidate(_Base):
    """Episodic -> semantic: one new fact from repeated episodes (they stay, linked
    ``episode --evolve_to--> fact``), with the lowest trust of its sources."""

    text: str
    episodes: tuple[int, ...]
    scope: str
    trust: Trust
    confidence: float
    valid_at: datetime | None
    entities: tuple[str, ...]
    reason: str
    vector: tuple[float, ...] | None = field(default=None, repr=False, compare=False)
    expects: tuple[Expect, ...] = ()
    update_type: UpdateType = UpdateType.CONSOLIDATE

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "consolidate", "update_type": self.update_type.value, "text": self.text,
            "episodes": list(self.episodes), "trust": self.trust.value, "confidence": self.confidence,
            "valid_at": iso(self.valid_at), "entities": list(self.entities), "reason": self.reason,
        }  # fmt: skip

    def describe(self) -> str:
        eps = ", ".join(f"#{e}" for e in self.episodes)
        return f"consolidate {eps} -> new fact {self.text!r} (trust {self.trust.value})\n        {self.reason}"


@dataclass(frozen=True)
class Archive(_Base):
    """Decay: rank below the floor -> archived (hidden by default, restorable), never deleted."""

    memory_id: int
    rank: float
    reason: str
    text: str = ""
    expects: tuple[Expect, ...] = ()
    update_type: UpdateType = UpdateType.DECAY
    usage = True

    def to_json(self) -> dict[str, Any]:
        return {"type": "archive", "update_type": self.update_type.value, "memory_id": self.memory_id,
                "rank": round(self.rank, 4), "reason": self.reason, "text": self.text}  # fmt: skip

    def describe(self) -> str:
        return f"archive #{self.memory_id} {self.text!r}\n        {self.reason}"


@dataclass(frozen=True)
class Purge(_Base):
    """TTL: the retention time passed; the record is deleted for real (not undoable)."""

    memory_id: int
    expires_at: datetime
    reason: str
    expects: tuple[Expect, ...] = ()
    update_type: UpdateType = UpdateType.TTL

    def to_json(self) -> dict[str, Any]:
        return {"type": "purge", "update_type": self.update_type.value, "memory_id": self.memory_id,
                "expires_at": iso(self.expires_at), "reason": self.reason}  # fmt: skip

    def describe(self) -> str:
        return f"purge   #{self.memory_id} ({self.reason})"


Change = Union[Merge, Invalidate, Consolidate, Archive, Purge]


@dataclass(frozen=True)
class Candidate:
    """A pair looked at but not decided (shown in --dry-run; nothing is written)."""

    kind: str  # "conflict" | "duplicate"
    ids: tuple[int, int]
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "ids": list(self.ids), "reason": self.reason}
