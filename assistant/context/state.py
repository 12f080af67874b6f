"""Per-session context state: the history messages, the compaction state, the history archive.

``ContextMessage`` is a history message as sent plus its store id. ``CompactionState`` (summary,
what it covers, the archive reference, the structured facts, masked ids) is kept per session in
the store's encrypted archive (``store.context_archive``, table ``context_state``). The full history as
sent is appended to the same archive (``context_history``) before compaction shortens anything.
Nothing here writes a file: deleting is the Forgetter's SQL (:mod:`assistant.memory.forget`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Protocol, Sequence

from assistant.context import facts as facts_mod
from assistant.context import offload
from assistant.engine.chat import ChatMessage
from assistant.memory.store.archive.context import ArchivedMessage

log = logging.getLogger(__name__)
_INJECTED = re.compile(r"<(retrieved_memories|reminders)\b[^>]*>.*?</\1>\s*", re.S)


@dataclass(frozen=True)
class ContextMessage(ChatMessage):
    """A history message as sent, with its store id; ``raw`` is the person's own text when
    ``content`` also carries injected blocks (memories, reminders)."""

    id: int = 0
    raw: str | None = None

    @property
    def text(self) -> str:
        return self.raw if self.raw is not None else _INJECTED.sub("", self.content)


@dataclass
class CompactionState:
    session_id: str
    summary: str = ""
    covered_up_to: int | None = None  # last message id the summary replaces
    archive: str | None = None  # the archived history's reference (history_ref)
    archived_up_to: int | None = None
    facts: list[facts_mod.Fact] = field(default_factory=list)
    masked_ids: list[int] = field(default_factory=list)
    summarized_at_count: int = 0  # messages in the full history when the summary was made
    compactions: int = 0
    updated_at: str = ""

    def to_json(self) -> dict:
        d = asdict(self)
        d["facts"] = [f.to_json() for f in self.facts]
        return d

    @classmethod
    def from_json(cls, d: dict) -> "CompactionState":
        d = dict(d)
        d["facts"] = [facts_mod.Fact.from_json(f) for f in d.get("facts", [])]
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in known})


class StateArchive(offload.OffloadArchive, Protocol):
    def state(self, session_key: str) -> dict | None: ...
    def save_state(self, session_key: str, state: dict) -> None: ...
    def append(self, session_key: str, messages: Sequence[ArchivedMessage]) -> int: ...
    def history(self, session_key: str) -> list[ArchivedMessage]: ...


def load_state(archive: StateArchive, session_id: int | str) -> CompactionState:
    """The session's state; a fresh one when there is none (or it is unreadable: logged, and
    the next compaction writes a good one)."""
    key = offload.session_key(session_id)
    try:
        data = archive.state(key)
        return CompactionState.from_json(data) if data is not None else CompactionState(key)
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("unreadable context state of session %s (%s): starting from a fresh one", key, exc)
        return CompactionState(key)


def save_state(archive: StateArchive, state: CompactionState) -> None:
    state.updated_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    archive.save_state(offload.session_key(state.session_id), state.to_json())


def history_ref(session_id: int | str) -> str:
    """How summaries and masks name the archived history of a session."""
    return f"session-{offload.session_key(session_id)}/history"


def archive_history(archive: StateArchive, state: CompactionState, history: Sequence[ContextMessage]) -> None:
    """Archive the messages not archived yet (by id)."""
    new = [m for m in history if state.archived_up_to is None or m.id > state.archived_up_to]
    if new:
        archive.append(offload.session_key(state.session_id), [ArchivedMessage(m.id, m.role, m.content, m.raw) for m in new])
        state.archived_up_to = max(m.id for m in new)
    state.archive = history_ref(state.session_id)


def read_history(archive: StateArchive, session_id: int | str) -> list[ContextMessage]:
    """The full archived history of a session, oldest first."""
    return [ContextMessage(m.role, m.content, m.id, m.raw) for m in archive.history(offload.session_key(session_id))]
