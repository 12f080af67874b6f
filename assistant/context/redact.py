"""After a forget: the compaction summaries built from what was forgotten are rebuilt at once.

The Forgetter (:mod:`assistant.memory.forget`) has already cut the forgotten sentences from the
messages and from the archived history (in the same transaction). A session's summary, though,
is *derived*: code facts (names, numbers, dates, decisions) and a model narrative that can keep
pieces of a forgotten message ("Rue Garibaldi 17") without its full text. :class:`ContextSummaries`
is the holder the services register (:func:`assistant.services.open_store`): for every session
whose summary covers a cut message (or holds a fact of one), it rebuilds the summary from the
redacted archive with ``Compactor(count_tokens, model=None).refresh``: code facts only, no
narrative (a narrative could paraphrase the forgotten text), within the old summary's size so
the window still fits. It runs inside the delete's transaction: if it fails, nothing is deleted
and the report says so. The Forgetter's own summary scrub runs after it.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from assistant.context.compaction import Compactor
from assistant.context.state import StateArchive, load_state


def approx_tokens(text: str) -> int:
    """~4 characters per token: enough here, the budget is measured with the same counter."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


class ContextSummaries:
    name = "context_summaries"

    def __init__(self, archive: StateArchive, count_tokens: Callable[[str], int] | None = None) -> None:
        self.archive = archive
        self.count_tokens = count_tokens or approx_tokens

    def _due(self, scope: Any) -> list[str]:
        """Sessions whose summary covers a cut message or keeps a fact of one."""
        cut = {int(i) for i in scope.message_cuts}
        out = []
        for sid in sorted(str(s) for s in scope.touched_sessions):
            state = load_state(self.archive, sid)
            if not state.summary:
                continue
            covered = state.covered_up_to is not None and any(i <= state.covered_up_to for i in cut)
            if covered or any(f.message_id in cut for f in state.facts):
                out.append(sid)
        return out

    def count(self, c: Any, scope: Any) -> dict[str, int]:
        return {"summaries_rebuilt": len(self._due(scope))}

    def apply(self, c: Any, scope: Any, ctx: Any) -> dict[str, int]:
        due = self._due(scope)
        for sid in due:
            old = load_state(self.archive, sid)
            compactor = Compactor(self.count_tokens, model=None, archive=self.archive, summary_tokens=max(1, self.count_tokens(old.summary)))
            compactor.refresh(sid)
        return {"summaries_rebuilt": len(due)}
