"""The inspector's filters as one value: :class:`MemoryQuery` turns them into the store's
``list_memories`` arguments and decides whether a changed memory still belongs in the view.
No Qt here."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from assistant.memory.language import temporal
from assistant.memory.records import FACT_KINDS  # the default view: facts, one row each ("Your messages" is a kind filter)


@dataclass(frozen=True)
class MemoryQuery:
    """The inspector's filters, turned into ``list_memories`` keyword arguments."""

    kind: str | None = None
    status: str | None = None  # None: active + resolving (the default view); "any": every status
    trust: str | None = None
    text: str | None = None  # substring filter (hybrid search is separate)
    as_of: datetime | None = None  # "true on this date"
    include_history: bool = False  # superseded, no-longer-true and archived too

    def kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"kind": self.kind or FACT_KINDS}
        if self.status == "any":
            kw["include_archived"] = True
        elif self.status:
            kw["status"] = self.status
        if self.trust:
            kw["trust"] = self.trust
        if self.text:
            kw["text"] = self.text
        if self.as_of is not None:
            kw["as_of"] = self.as_of
        if self.include_history:
            kw["include_all"] = True
        return kw

    def with_text(self, text: str | None) -> "MemoryQuery":
        return replace(self, text=text or None)

    def accepts(self, memory: Any, now: datetime | None = None) -> bool:
        """Whether ``memory`` belongs in this view, by the store's own rules (a memory changed
        in place leaves a view it no longer matches; search hits get the same filters).
        Time: "true now" = valid now, not superseded, expiry not passed; "true on D" = valid on
        D; history = no time filter (:func:`assistant.memory.language.temporal.visible`)."""
        if memory.kind.value != self.kind if self.kind else memory.kind.value not in FACT_KINDS:
            return False
        if self.trust and memory.trust.value != self.trust:
            return False
        if self.status == "any" or self.include_history:
            status_ok = memory.status.value != "deleted"
        elif self.status:
            status_ok = memory.status.value == self.status
        else:
            status_ok = memory.status.value in ("active", "resolving")
        if not status_ok:
            return False
        if self.include_history:
            return True
        now = now or datetime.now(timezone.utc)
        if self.as_of is None and memory.expires_at is not None and memory.expires_at <= now:
            return False
        return temporal.visible(temporal.FactTimes.of(memory), now=now, as_of=self.as_of)
