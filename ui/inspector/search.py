"""Reading memories for the inspector off the UI thread: table pages (lazy) and search results."""

from __future__ import annotations

from typing import Any

from ui.services.backend import Backend
from ui.inspector.memory_model import FACT_KINDS, MemoryQuery, MemoryTableModel

SEARCH_K = 50
#: The chat injects a memory only when its semantic similarity passes the retriever's threshold
#: (0.33 with MiniLM). A search the person types also lists weaker meaning matches down to this
#: floor, after the strong ones: "job" finds "User works as a night-shift nurse." (0.31) and
#: "travel documents" the passport (0.29), while unrelated text stays out (~0.20).
SEARCH_FLOOR = 0.25


class BackendLoader:
    """Pages for :class:`MemoryTableModel`, read on a worker thread."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def request(self, model: MemoryTableModel, generation: int, query: MemoryQuery, offset: int, limit: int) -> None:
        kwargs = query.kwargs()
        self.backend.read(
            lambda store: store.list_memories(**kwargs, limit=limit, offset=offset),
            on_done=lambda rows: model.receive_page(generation, offset, rows, limit),
            on_error=lambda exc: (model.page_failed(generation), self.backend._report(exc)),
            name="memory-page",
        )  # fmt: skip


def match_strength(text: str, memories: list[Any], scores: dict[int, float], strong: set[int]) -> str:
    """What the count line says about a search: how many results and whether any matches closely
    (a hit that passed the retrieval threshold, or the words themselves in the text)."""
    n = len(memories)
    if not n:
        return "no results"
    label = f"{n} result{'s' if n != 1 else ''}"
    if not strong:
        return f"{label} - nothing matches “{text}” closely; these are only loosely related"
    weak = n - len(strong)
    return label + (f" ({len(strong)} close, {weak} loosely related)" if weak else "")


def strong_matches(store, retriever, text: str, query: MemoryQuery, k: int = SEARCH_K) -> set[int]:
    """Ids of the memories that match ``text`` closely: retrieval hits over the chat's relevance
    threshold, and memories holding the words themselves."""
    strong: set[int] = set()
    if retriever is not None:
        for hit in retriever.search(text, include_rejected=True, k=k, kinds=query.kind or FACT_KINDS):
            if hit.passed_threshold:
                strong.add(hit.memory.id)
    strong |= {m.id for m in store.list_memories(**query.with_text(text).kwargs(), limit=200)}
    return strong


def search_memories(store, retriever, text: str, query: MemoryQuery, k: int = SEARCH_K) -> tuple[list[Any], dict[int, float]]:
    """The chat's hybrid retrieval (semantic candidates, keyword and entity re-ranking) when the
    embedder is loaded, down to :data:`SEARCH_FLOOR`, then plain substring matches; the
    inspector's filters apply to both. Any text is safe (the retriever and the substring
    filter never pass it to FTS5 as syntax). Returns (memories in rank order, scores)."""
    ranked: list[Any] = []
    scores: dict[int, float] = {}
    if retriever is not None:
        kw: dict[str, Any] = {"k": k}
        if query.as_of is not None:
            kw["as_of"] = query.as_of
        kw["kinds"] = query.kind or FACT_KINDS
        if query.status in ("any", "archived") or query.include_history:
            kw["include_archived"] = True
        for hit in retriever.search(text, include_rejected=True, **kw):
            semantic = hit.signal("semantic")
            relevant = hit.passed_threshold or (semantic is not None and semantic.raw >= SEARCH_FLOOR)
            if relevant and query.accepts(hit.memory):
                ranked.append(hit.memory)
                scores[hit.memory.id] = float(hit.score)
    seen = {m.id for m in ranked}
    for m in store.list_memories(**query.with_text(text).kwargs(), limit=200):
        if m.id not in seen:
            ranked.append(m)
            seen.add(m.id)
    return ranked, scores
