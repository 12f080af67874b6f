"""What one chat turn yields (:class:`TurnResult`, its JSON for ``keepsake chat --json`` and the
UI), the memories it injected, a conversation's title from its first message, and the two ways a
turn is refused (nothing to send, nothing to retry). No I/O here: :mod:`assistant.session` runs
the turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assistant.engine.chat import GenerationStats
from assistant.memory.entries import TITLE_CHARS, title_from  # noqa: F401 (re-exported)

class EmptyMessage(ValueError):
    """Nothing to send."""


class NothingToRetry(ValueError):
    """Retry was asked for, but the session's last message has its reply."""


@dataclass(frozen=True)
class InjectedMemory:
    id: int
    text: str
    score: float
    valid_at: str | None
    source: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "score": round(self.score, 4), "valid_at": self.valid_at, "source": self.source}


def notice_item(text: str, memory_ids: list[int]) -> dict[str, Any]:
    """One notice for ``chat --json``: its text, the memories it names and the command that takes
    them back (None when it names none)."""
    ids = [int(i) for i in memory_ids]
    undo = "keepsake memory delete --yes " + " ".join(map(str, ids)) if ids else None
    return {"text": text, "memory_ids": ids, "undo": undo}


@dataclass
class TurnResult:
    session_id: int
    turn_id: str
    user_message_id: int
    assistant_message_id: int | None = None
    reply: str = ""
    stats: GenerationStats = field(default_factory=GenerationStats)
    injected_memories: list[InjectedMemory] = field(default_factory=list)
    budget: dict[str, Any] | None = None
    forget_candidates: list[dict[str, Any]] = field(default_factory=list)
    forget_query: str | None = None  # what the person asked to forget (candidates above)
    remembered: list[int] = field(default_factory=list)
    captured: bool = False
    notices: list[str] = field(default_factory=list)  # code-written lines shown under the reply
    notice_ids: dict[str, list[int]] = field(default_factory=dict)  # notice -> the memory ids it names
    saved: list[dict[str, Any]] = field(default_factory=list)  # what capture kept: [{"id", "text", "kind"}]
    engine: str = ""  # "llama.cpp" | "openai"
    model: str = ""
    #: the memory that answers the question (MemoryAnswer.to_json + in_reply), None when none
    memory_answer: dict[str, Any] | None = None
    #: why the reply was written by code instead of the model ("memory" | "unknown" | "empty")
    correction: str | None = None
    model_reply: str | None = None  # the model's (guarded) text when it was replaced
    guard: dict[str, Any] = field(default_factory=dict)  # {"stop_reason", "cuts": [{"reason", "text"}]}

    def to_json(self) -> dict[str, Any]:
        s = self.stats
        return {
            "reply": self.reply,
            "engine": self.engine,
            "model": self.model,
            "session_id": self.session_id,
            "turn_id": self.turn_id,
            "user_message_id": self.user_message_id,
            "assistant_message_id": self.assistant_message_id,
            "prompt_tokens": s.prompt_tokens,
            "prompt_tokens_evaluated": s.prompt_tokens_evaluated,
            "prompt_tokens_evaluated_source": s.evaluated_source,
            "generated_tokens": s.generated_tokens,
            "ttft_ms": s.ttft_ms,
            "tokens_per_s": s.tokens_per_s,
            "threads": s.threads,
            "finish_reason": s.finish_reason,
            "injected_memories": [m.to_json() for m in self.injected_memories],
            "budget": self.budget,
            "forget_candidates": self.forget_candidates,
            "forget_query": self.forget_query,
            "remembered": self.remembered,
            "captured": self.captured,
            "memory_answer": self.memory_answer,
            "notices": self.notices,
            # the same notices with the memories they name, and how to take them back
            "notice_items": [notice_item(n, self.notice_ids.get(n, [])) for n in self.notices],
            "saved": self.saved,
            "correction": self.correction,
            "model_reply": self.model_reply,
            "guard": self.guard,
        }


def injected(hit) -> InjectedMemory:
    """A retrieval hit as the turn reports it (its first source, its validity start)."""
    m = hit.memory
    src = m.sources[0].to_json() if m.sources else None
    return InjectedMemory(m.id, m.text, float(hit.score), m.valid_at.isoformat() if m.valid_at else None, src)
