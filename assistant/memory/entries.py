"""Records of conversations and of the store's logs: :class:`Session`, :class:`Message`,
:class:`AuditEntry` (``audit_log``), :class:`InjectionItem` / :class:`InjectionRecord` (``injection_log``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from assistant.memory.records import Actor, Role, UpdateType
from assistant.memory.times import iso

TITLE_CHARS = 48


def title_from(text: str) -> str:
    """A conversation's title from its first message: one line, at most ``TITLE_CHARS``."""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


@dataclass(frozen=True)
class Session:
    id: int
    title: str
    created_at: datetime
    updated_at: datetime
    incognito: bool = False
    external_id: str | None = None
    message_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "created_at": iso(self.created_at),
            "updated_at": iso(self.updated_at),
            "incognito": self.incognito,
            "external_id": self.external_id,
            "message_count": self.message_count,
        }


@dataclass(frozen=True)
class Message:
    id: int  # monotonic sequence: order by it, never by timestamp
    session_id: int
    role: Role
    content: str
    created_at: datetime
    observed_at: datetime
    redacted: bool = False  # all of its text was deleted
    external_id: str | None = None
    partly_redacted: bool = False  # some sentences were deleted (what stays is ``content``)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "session_id": self.session_id,
            "role": self.role.value,
            "content": self.content,
            "created_at": iso(self.created_at),
            "observed_at": iso(self.observed_at),
            "redacted": self.redacted,
            "partly_redacted": self.partly_redacted,
            "external_id": self.external_id,
        }


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: datetime
    actor: Actor
    action: str
    memory_id: int | None
    session_id: int | None
    update_type: UpdateType | None
    from_version: int | None
    to_version: int | None
    details: dict[str, Any] = field(default_factory=dict)
    run_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": iso(self.at),
            "actor": self.actor.value,
            "action": self.action,
            "memory_id": self.memory_id,
            "session_id": self.session_id,
            "update_type": self.update_type.value if self.update_type else None,
            "from_version": self.from_version,
            "to_version": self.to_version,
            "details": self.details,
            "run_id": self.run_id,
        }


@dataclass(frozen=True)
class InjectionItem:
    """One memory placed into a turn's context, with why."""

    memory_id: int
    score: float
    rank: int = 0
    signals: dict[str, float] = field(default_factory=dict)
    source_message_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class InjectionRecord:
    id: int
    turn_id: str
    at: datetime
    session_id: int | None
    message_id: int | None
    memory_id: int
    rank: int
    score: float
    signals: dict[str, float]
    source_message_ids: tuple[int, ...]
