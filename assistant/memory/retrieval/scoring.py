"""Retrieval scoring: turn each signal into a number in [0, 1] and fuse them.

Pure functions, no I/O. Every function returns a :class:`Signal` (raw value, normalized value,
weight) so a result can explain itself; :func:`fuse` returns a :class:`Fused` holding the score
and the signals it came from.

Signals and formulas (docs/DESIGN.md §6):

- **semantic** (weight 1.0): ``normalized = clamp(cosine, 0, 1)``. Semantic search is the only
  source of candidates, and the relevance threshold is applied to this value *before* fusion
  (:func:`passes_threshold`): BM25 and entities re-rank, they never rescue a candidate.
- **bm25** (weight 1.0): SQLite FTS5's ``bm25()`` is *negative*, more negative = better. We take
  ``relevance = -fts5_bm25`` and squash it with a logistic sigmoid whose midpoint grows with the
  number of query terms ``n`` (long queries match more terms, so their raw sums are larger)::

      midpoint(n)  = 2.5 * (1 + sqrt(n))          n=1 -> 5.0, n=4 -> 7.5, n=9 -> 10.0
      steepness(n) = 3 / midpoint(n)              (so the curve only depends on relevance/midpoint)
      normalized   = 1 / (1 + exp(-steepness * (relevance - midpoint)))

  A candidate with no FTS match (or relevance <= 0) scores exactly 0.
- **entity** (weight 0.5): for each query entity matched to one the memory is linked to,
  ``boost = similarity * 0.5 * 1 / (1 + 0.001 * (n_linked - 1) ** 2)`` where ``n_linked`` is the
  number of memories linked to that entity (popular entities discriminate less). Matches with
  similarity < 0.5 are dropped; the best remaining match counts. The Signal stores
  ``normalized = boost / 0.5`` and ``weight = 0.5`` so that ``weight * normalized == boost``.

Fusion: ``score = sum(w_i * x_i) / sum(w_i)`` over the signals *present for the query*. Presence
is a per-query decision made by the caller: when the query ran BM25, every candidate gets a bm25
signal (0 when it did not match); when the query had no entity at all, nobody gets an entity
signal, and the divisor shrinks accordingly. A zero signal is present; an absent one is ``None``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from assistant.memory.records import Memory

SEMANTIC_WEIGHT = 1.0
BM25_WEIGHT = 1.0
ENTITY_WEIGHT = 0.5
ENTITY_MIN_SIMILARITY = 0.5
ENTITY_SPREAD = 0.001

_TERM = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Signal:
    """One scoring signal: the value as measured (``raw``), mapped to [0, 1], and its weight."""

    name: str
    raw: float
    normalized: float
    weight: float


@dataclass(frozen=True)
class Fused:
    """A fused score in [0, 1] and the signals it was computed from (for --explain)."""

    score: float
    signals: tuple[Signal, ...]

    def signal(self, name: str) -> Signal | None:
        return next((s for s in self.signals if s.name == name), None)


@dataclass(frozen=True)
class EntityMatch:
    """A query entity matched (e.g. by rapidfuzz, similarity in [0, 1]) to an entity the
    candidate memory is linked to; ``n_linked`` = how many memories link to that entity."""

    similarity: float
    n_linked: int = 1


# -- semantic ---------------------------------------------------------------------------------


def semantic_signal(cosine: float) -> Signal:
    """``normalized = clamp(cosine, 0, 1)`` (negative cosine means unrelated, not 'anti')."""
    return Signal("semantic", cosine, min(1.0, max(0.0, cosine)), SEMANTIC_WEIGHT)


def passes_threshold(semantic: Signal | float, threshold: float) -> bool:
    """True when the semantic score (normalized) is >= threshold. Apply before fusion."""
    value = semantic.normalized if isinstance(semantic, Signal) else min(1.0, max(0.0, semantic))
    return value >= threshold


# -- bm25 -------------------------------------------------------------------------------------


def query_terms(query: str) -> int:
    """Word tokens in a query, at least 1 (a CJK run counts as one, as in FTS5 unicode61)."""
    return max(1, len(_TERM.findall(query)))


def bm25_params(n_terms: int) -> tuple[float, float]:
    """``(midpoint, steepness)`` for ``n_terms``: ``m = 2.5*(1+sqrt(n))``, ``k = 3/m``."""
    midpoint = 2.5 * (1.0 + math.sqrt(max(1, n_terms)))
    return midpoint, 3.0 / midpoint


def bm25_signal(fts5_bm25: float | None, n_terms: int) -> Signal:
    """Normalize a raw FTS5 ``bm25()`` value (negative = relevant; None = no match) to [0, 1]."""
    if fts5_bm25 is None or -fts5_bm25 <= 0.0 or math.isnan(fts5_bm25):
        return Signal("bm25", 0.0 if fts5_bm25 is None else fts5_bm25, 0.0, BM25_WEIGHT)
    midpoint, steepness = bm25_params(n_terms)
    x = -steepness * (-fts5_bm25 - midpoint)
    normalized = 0.0 if x > 700 else 1.0 / (1.0 + math.exp(x))
    return Signal("bm25", fts5_bm25, normalized, BM25_WEIGHT)


# -- entities ---------------------------------------------------------------------------------


def entity_boost(similarity: float, n_linked: int) -> float:
    """``similarity * 0.5 * 1/(1 + 0.001*(n_linked-1)**2)``; 0 when similarity < 0.5."""
    if similarity < ENTITY_MIN_SIMILARITY:
        return 0.0
    spread = max(0, n_linked - 1)
    return similarity * ENTITY_WEIGHT / (1.0 + ENTITY_SPREAD * spread * spread)


def entity_signal(matches: Iterable[EntityMatch]) -> Signal:
    """The best entity boost among ``matches`` (raw = that match's similarity, 0 if none)."""
    best_boost, best_sim = 0.0, 0.0
    for m in matches:
        boost = entity_boost(m.similarity, m.n_linked)
        if boost > best_boost:
            best_boost, best_sim = boost, m.similarity
    return Signal("entity", best_sim, best_boost / ENTITY_WEIGHT, ENTITY_WEIGHT)


# -- fusion -----------------------------------------------------------------------------------


def fuse(signals: Sequence[Signal | None]) -> Fused:
    """``score = sum(w*x) / sum(w)`` over the signals that are not None (0 if none present)."""
    present = tuple(s for s in signals if s is not None)
    total_weight = sum(s.weight for s in present)
    if total_weight <= 0:
        return Fused(0.0, present)
    score = sum(s.weight * s.normalized for s in present) / total_weight
    return Fused(min(1.0, max(0.0, score)), present)


# -- the result -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """A retrieved memory with its score in [0, 1] and the signals behind it.

    ``signals``: semantic (raw = cosine), bm25 (raw = FTS5 bm25, negative = relevant) and
    entity (raw = best match similarity) when present for the query, plus ``slot`` (weight 0)
    for a direct profile-slot answer, whose score is 1.0 and which ranks first.
    ``passed_threshold``: the semantic score passed the threshold (always True for slot answers;
    hits that did not pass are only returned with ``include_rejected=True``)."""

    memory: Memory
    score: float
    signals: tuple[Signal, ...]
    passed_threshold: bool
    why_not: str = ""  # include_rejected: why it did not pass (below the threshold, or a gate)

    def signal(self, name: str) -> Signal | None:
        return next((s for s in self.signals if s.name == name), None)

    @property
    def slot_answer(self) -> bool:
        return self.signal("slot") is not None

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """The memory's JSON (store shape) + ``score`` (+ ``signals`` and ``passed_threshold``)."""
        d = self.memory.to_json()
        d["score"] = round(self.score, 6)
        if explain:
            d["passed_threshold"] = self.passed_threshold
            if self.why_not:
                d["why_not"] = self.why_not
            d["signals"] = [
                {"name": s.name, "raw": round(s.raw, 6), "normalized": round(s.normalized, 6), "weight": s.weight}
                for s in self.signals
            ]
        return d


class Hits(list):
    """The hits of one search, best first, and ``aliases``: the names the person gave the
    relations the query asks about, from all of memory ({"thiago": "partner"} for "What does my
    partner do?" with "User's boyfriend is Thiago." stored, whether or not that memory is a hit)."""

    def __init__(self, hits: Any = (), aliases: dict[str, str] | None = None) -> None:
        super().__init__(hits)
        self.aliases = dict(aliases or {})
