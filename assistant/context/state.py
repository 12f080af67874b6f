"""Per-session context state: the history messages, the compaction state file, the history archive.

``ContextMessage`` is a history message as sent plus its store id. ``CompactionState`` (summary,
what it covers, the archive file, the structured facts, masked ids) is one JSON file per session
at ``paths().data / "context" / "<session>.json"``, written atomically. The full history is
appended, one JSON object per line, to ``paths().archive / "session-<id>" / "history.jsonl"``.
Both hold message text: :func:`assistant.context.offload.delete_session_files` removes them.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from assistant.context import facts as facts_mod
from assistant.context import offload
from assistant.engine.chat import ChatMessage
from assistant.fileio import write_private_atomic

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
    archive: str | None = None  # the full history file, relative to paths().archive
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


def load_state(session_id: int | str) -> CompactionState:
    """The session's state; a fresh one when there is none (or it is unreadable: logged, and
    the next compaction writes a good one)."""
    path = offload.context_state_path(session_id)
    try:
        return CompactionState.from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return CompactionState(str(session_id))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("unreadable context state %s (%s): starting from a fresh one", path, exc)
        return CompactionState(str(session_id))


def save_state(state: CompactionState) -> None:
    state.updated_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    write_private_atomic(offload.context_state_path(state.session_id), json.dumps(state.to_json(), ensure_ascii=False, indent=1))


def history_file(session_id: int | str) -> Path:
    return offload.session_archive_dir(session_id) / "history.jsonl"


def archive_history(state: CompactionState, history: Sequence[ContextMessage]) -> None:
    """Append the messages not archived yet (by id) to the session's history file."""
    new = [m for m in history if state.archived_up_to is None or m.id > state.archived_up_to]
    if new:
        offload.append_lines(history_file(state.session_id), (offload.dumps_line(
            {"id": m.id, "role": m.role, "content": m.content, "raw": m.raw}) for m in new))  # fmt: skip
        state.archived_up_to = max(m.id for m in new)
    state.archive = offload.ref_for(history_file(state.session_id))


def read_history(session_id: int | str) -> list[ContextMessage]:
    """The full archived history of a session, oldest first."""
    path = history_file(session_id)
    if not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [ContextMessage(r["role"], r["content"], int(r["id"]), r.get("raw")) for r in rows]
