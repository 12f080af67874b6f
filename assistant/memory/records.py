"""Typed memory records (docs/DESIGN.md §4): what a memory claims, when it was true, when we
believed it, where it came from and how it changed.

Two time axes, all datetimes timezone-aware and stored as fixed-width UTC ISO-8601 strings
(``YYYY-MM-DDTHH:MM:SS.ffffff+00:00``, so string order is time order):

- world time: ``valid_at`` / ``invalid_at`` -- when the fact was true in the world;
- system time: ``created_at`` / ``expired_at`` -- when Keepsake learned it / stopped believing it
  (``expired_at`` is set when the record is superseded or invalidated).

``expires_at`` is a retention TTL (the record is hidden once it passes and purged later).
No I/O in this module.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Iterable

from assistant.memory.times import iso, parse_iso, to_utc


class Kind(StrEnum):
    PROFILE = "profile"  # structured slot: name, home city, employer ...
    FACT = "fact"  # semantic statement
    EPISODE = "episode"  # the verbatim message, for provenance and detail
    EXPERIENCE = "experience"  # what worked / what did not, learned by the assistant


#: What a person calls their memories: the facts, one each. The messages they came from (episodes,
#: "your messages") are listed only when asked for (a kind filter) and in each fact's sources.
FACT_KINDS = ("profile", "fact", "experience")


class Status(StrEnum):
    ACTIVE = "active"
    RESOLVING = "resolving"  # awaiting a consolidation decision (e.g. a derived summary lost a source)
    ARCHIVED = "archived"  # decayed: hidden by default, visible with --all, restorable
    DELETED = "deleted"  # only ever seen in exports/audit; deleted rows are removed from the store


class Trust(StrEnum):
    """Trust by source, set at write time. Ordered: USER_STATED is the highest."""

    USER_STATED = "user_stated"
    USER_CONFIRMED = "user_confirmed"
    ASSISTANT_INFERRED = "assistant_inferred"
    IMPORTED = "imported"
    EXTERNAL = "external"

    @property
    def rank(self) -> int:
        """Higher is more trusted (external=0 ... user_stated=4)."""
        return _TRUST_RANK[self]

    def __lt__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, Trust):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, Trust):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, Trust):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, Trust):
            return NotImplemented
        return self.rank >= other.rank

    @staticmethod
    def lowest(levels: Iterable["Trust"]) -> "Trust":
        """The minimum trust of several sources (summaries inherit it)."""
        levels = list(levels)
        if not levels:
            raise ValueError("no trust levels given")
        return min(levels, key=lambda t: t.rank)


_TRUST_RANK = {
    Trust.USER_STATED: 4,
    Trust.USER_CONFIRMED: 3,
    Trust.ASSISTANT_INFERRED: 2,
    Trust.IMPORTED: 1,
    Trust.EXTERNAL: 0,
}


class UpdateType(StrEnum):
    USER_EDIT = "user_edit"
    CONFLICT = "conflict"
    DUPLICATE = "duplicate"
    CONSOLIDATE = "consolidate"
    DECAY = "decay"
    TTL = "ttl"
    IMPORT = "import"


class Actor(StrEnum):
    USER = "user"
    CAPTURE = "capture"
    CONSOLIDATOR = "consolidator"
    IMPORT = "import"
    SYSTEM = "system"  # migrations, maintenance


class LinkType(StrEnum):
    EVOLVE_TO = "evolve_to"  # src was merged/consolidated into dst (dst derives from src)
    DERIVED_FROM = "derived_from"  # src is a summary derived from dst
    SUPERSEDES = "supersedes"  # src replaced dst (contradiction resolved)
    RELATED = "related"


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


# --------------------------------------------------------------------------------------------
# text


_TRAILING = ".!?。！？…;；,，:： \t\n"


def normalize_text(text: str) -> str:
    """Normalization used for exact dedup: NFKC, casefold, collapsed whitespace, no trailing
    sentence punctuation. Idempotent."""
    s = unicodedata.normalize("NFKC", text)
    s = unicodedata.normalize("NFKC", s.casefold())
    s = " ".join(s.split())
    s = s.rstrip(_TRAILING)
    return s


def content_hash(text: str) -> str:
    """sha256 of the normalized text (hex)."""
    return hashlib.sha256(normalize_text(text).encode("utf-8", "surrogatepass")).hexdigest()


# --------------------------------------------------------------------------------------------
# records


@dataclass(frozen=True)
class Scope:
    """Whose memory this is (a profile/user id). The only way to build one; never empty."""

    profile: str = "default"

    def __post_init__(self) -> None:
        if not isinstance(self.profile, str):
            raise TypeError("scope profile must be a string")
        value = self.profile.strip()
        if not value:
            raise ValueError("scope must not be empty")
        if len(value) > 200 or any(unicodedata.category(c) == "Cc" for c in value):
            raise ValueError(f"invalid scope {self.profile!r}")
        object.__setattr__(self, "profile", value)

    @property
    def key(self) -> str:
        return self.profile

    def __str__(self) -> str:
        return self.profile


DEFAULT_SCOPE = Scope()


@dataclass(frozen=True)
class Source:
    """Where a memory came from. ``message_id``/``session_id`` are None for direct entries."""

    session_id: int | None = None
    message_id: int | None = None
    speaker: str = "user"
    extractor: str = "manual"
    extractor_version: str = "1"
    observed_at: datetime | None = None  # when the source was said/seen (grounds relative dates)

    def __post_init__(self) -> None:
        if not self.speaker or not isinstance(self.speaker, str):
            raise ValueError("source speaker must be a non-empty string")
        if not self.extractor:
            raise ValueError("source extractor must be a non-empty string")
        if self.observed_at is not None:
            object.__setattr__(self, "observed_at", to_utc(self.observed_at))

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "message_id": self.message_id,
            "speaker": self.speaker,
            "extractor": self.extractor,
            "extractor_version": self.extractor_version,
            "observed_at": iso(self.observed_at),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Source":
        return cls(
            session_id=d.get("session_id"),
            message_id=d.get("message_id"),
            speaker=d.get("speaker") or "user",
            extractor=d.get("extractor") or "manual",
            extractor_version=str(d.get("extractor_version") or "1"),
            observed_at=parse_iso(d.get("observed_at")),
        )


@dataclass(frozen=True)
class Link:
    """A directed link between two memories (``src --type--> dst``)."""

    src_id: int
    dst_id: int
    type: LinkType

    def to_json(self) -> dict[str, Any]:
        return {"from": self.src_id, "to": self.dst_id, "type": self.type.value}


@dataclass(frozen=True)
class Memory:
    id: int
    text: str
    kind: Kind
    scope: Scope
    valid_at: datetime | None
    invalid_at: datetime | None
    created_at: datetime
    expired_at: datetime | None
    sources: tuple[Source, ...]
    trust: Trust
    confidence: float
    content_hash: str
    entities: tuple[str, ...]
    links: tuple[Link, ...]
    status: Status
    version: int
    expires_at: datetime | None = None  # TTL
    pinned: bool = False
    slot: str | None = None
    use_count: int = 0
    last_used_at: datetime | None = None
    updated_at: datetime | None = None  # system time this version was recorded
    # what ``valid_at`` is: "stated" (the person gave the start: "since 2019", "last week") or
    # "observed" (only when it was said: true *at least* since then); None without a start
    start_kind: str | None = None

    @property
    def said_at(self) -> datetime:
        """When it was said: its first source's observed time, else when it was stored."""
        return next((s.observed_at for s in self.sources if s.observed_at is not None), None) or self.created_at

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "kind": self.kind.value,
            "scope": self.scope.key,
            "status": self.status.value,
            "valid_at": iso(self.valid_at),
            "start_kind": self.start_kind,
            "invalid_at": iso(self.invalid_at),
            "created_at": iso(self.created_at),
            "expired_at": iso(self.expired_at),
            "updated_at": iso(self.updated_at),
            "expires_at": iso(self.expires_at),
            "trust": self.trust.value,
            "confidence": self.confidence,
            "version": self.version,
            "content_hash": self.content_hash,
            "pinned": self.pinned,
            "slot": self.slot,
            "use_count": self.use_count,
            "last_used_at": iso(self.last_used_at),
            "entities": list(self.entities),
            "links": [link.to_json() for link in self.links],
            "sources": [s.to_json() for s in self.sources],
        }


@dataclass(frozen=True)
class MemoryVersion:
    """One version of a memory (prior versions live in ``memory_versions``; the last one is the
    current row). ``recorded_at``..``superseded_at`` is the system-time span it was current."""

    memory_id: int
    version: int
    text: str
    kind: Kind
    valid_at: datetime | None
    invalid_at: datetime | None
    expired_at: datetime | None
    status: Status
    trust: Trust
    confidence: float
    expires_at: datetime | None
    pinned: bool
    slot: str | None
    recorded_at: datetime
    superseded_at: datetime | None  # None for the current version
    update_type: UpdateType | None  # the change that produced this version (None: first version)
    actor: Actor
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "version": self.version,
            "text": self.text,
            "kind": self.kind.value,
            "status": self.status.value,
            "valid_at": iso(self.valid_at),
            "invalid_at": iso(self.invalid_at),
            "expired_at": iso(self.expired_at),
            "expires_at": iso(self.expires_at),
            "trust": self.trust.value,
            "confidence": self.confidence,
            "pinned": self.pinned,
            "slot": self.slot,
            "recorded_at": iso(self.recorded_at),
            "superseded_at": iso(self.superseded_at),
            "update_type": self.update_type.value if self.update_type else None,
            "actor": self.actor.value,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class NewMemory:
    """What to ADD (``MemoryStore.add_many``); ``add(text, **fields)`` builds one of these."""

    text: str
    kind: Kind = Kind.FACT
    scope: Scope = DEFAULT_SCOPE
    sources: tuple[Source, ...] = ()
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    trust: Trust = Trust.USER_STATED
    confidence: float = 1.0
    entities: tuple[str, ...] = ()
    slot: str | None = None
    ttl: timedelta | datetime | None = None  # a duration from now, or an absolute expiry
    pinned: bool = False
    status: Status = Status.ACTIVE
    created_at: datetime | None = None  # system time it became known (imports); default now
    embedding: tuple[float, ...] | None = None  # precomputed vector; else the store's embedder
    start_kind: str | None = None  # "stated" | "observed"; None: inferred (see :func:`start_kind_of`)


START_KINDS = ("stated", "observed")


def start_kind_of(valid_at: datetime | None, sources: Iterable[Source], given: str | None = None) -> str | None:
    """What a start is: ``given`` if set; else ``observed`` when ``valid_at`` is exactly when one
    of the sources was said (capture's default start), ``stated`` for any other ``valid_at``,
    None without one."""
    if given is not None:
        if given not in START_KINDS:
            raise ValueError(f"start_kind must be one of {START_KINDS}, not {given!r}")
        return given
    if valid_at is None:
        return None
    said = {to_utc(s.observed_at) for s in sources if s.observed_at is not None}
    return "observed" if to_utc(valid_at) in said else "stated"


@dataclass(frozen=True)
class AddResult:
    id: int
    created: bool  # False: identical normalized text already existed; the source was added to it
