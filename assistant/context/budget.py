"""The context window as a budget table of named sections (docs/DESIGN.md §7). Pure arithmetic.

Each :class:`Section` has a volatility (0 = stable prefix, 1 = changes now and then, 2 = changes
every turn), a ``min_tokens`` floor and an optional ``max_tokens`` cap. :func:`allocate` splits a
window among the token counts the assembler asks for:

1. ``want = min(requested, max)``; the output reserve wants ``clamp(requested, min, max)``
   (it is always reserved, even when nothing is asked).
2. ``floor = min(want, min)``: a section is never cut below its floor (mins are never squeezed).
3. If ``sum(want) <= window`` everyone gets ``want``. Otherwise the overflow is taken from
   sections in :data:`CUT_ORDER` - most volatile first, and inside one volatility level lower
   ``keep`` first - each down to its floor, until it fits.
4. If the floors alone exceed the window, floors are still kept and ``over_by`` says by how much:
   the caller must compact or refuse, not this module.

Nothing is ever redistributed: a section gets at most what it asked for, so the output reserve's
tokens are never handed to other sections (``sum(others) <= window - reserve``).

Compaction starts at ``window - min(16384, max(1, floor(window * 0.2)))`` tokens
(:func:`compaction_threshold`). Memory blocks shown to the model carry a character budget
rendered ``chars_current/chars_limit`` (:func:`char_usage`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Mapping, Sequence

OUTPUT_RESERVE = "output_reserve"


@dataclass(frozen=True)
class Section:
    name: str
    volatility: int  # 0 stable .. 2 per turn
    min_tokens: int
    max_tokens: int | None = None  # None = uncapped
    keep: int = 0  # within one volatility level, lower keep is cut first


# Layout order (stable first). Defaults suit a 8k window; the assembler may `replace` any field.
DEFAULT_SECTIONS: tuple[Section, ...] = (
    Section("system", 0, 2048, 4096, keep=3),
    Section("note", 0, 8192, 8192, keep=2),  # the person's note: over its cap, report.cut > 0 -> tell them
    Section("summary", 1, 512, 4096, keep=1),
    Section("history", 1, 0, None, keep=0),
    Section("retrieved_memories", 2, 0, 2048, keep=0),
    Section("reminders", 2, 0, 512, keep=1),
    Section("current_input", 2, 1024, None, keep=2),
    Section(OUTPUT_RESERVE, 0, 256, 4096, keep=4),
)


def cut_order(sections: Sequence[Section]) -> tuple[Section, ...]:
    """Sections in the order they are cut: volatility descending, then ``keep`` ascending."""
    return tuple(sorted(sections, key=lambda s: (-s.volatility, s.keep)))


CUT_ORDER: tuple[str, ...] = tuple(s.name for s in cut_order(DEFAULT_SECTIONS))


@dataclass(frozen=True)
class SectionBudget:
    name: str
    volatility: int
    requested: int
    allocated: int
    floor: int  # the part of the request that is never cut
    limit: int  # max_tokens, or the window when uncapped (the budget bar's length)

    @property
    def cut(self) -> int:
        return max(0, self.requested - self.allocated)


@dataclass(frozen=True)
class BudgetReport:
    window: int
    compaction_threshold: int
    sections: tuple[SectionBudget, ...]
    over_by: int  # > 0 only when the floors alone do not fit

    @property
    def allocated(self) -> int:
        return sum(s.allocated for s in self.sections)

    @property
    def requested(self) -> int:
        return sum(s.requested for s in self.sections)

    @property
    def fits(self) -> bool:
        return self.over_by == 0

    def section(self, name: str) -> SectionBudget:
        return next(s for s in self.sections if s.name == name)

    def to_json(self) -> dict:
        """JSON-ready dict (for ``--json`` and the UI's budget bar)."""
        return {
            "window": self.window,
            "compaction_threshold": self.compaction_threshold,
            "requested": self.requested,
            "allocated": self.allocated,
            "over_by": self.over_by,
            "sections": [asdict(s) for s in self.sections],
        }


def compaction_threshold(window: int) -> int:
    """``window - min(16384, max(1, floor(window * 0.2)))``: 8192 -> 6554, 131072 -> 114688."""
    return window - min(16384, max(1, (window * 2) // 10))


def needs_compaction(used_tokens: int, window: int) -> bool:
    """True once the tokens in the window reach the compaction threshold."""
    return used_tokens >= compaction_threshold(window)


def allocate(
    window: int,
    requested: Mapping[str, int],
    sections: Sequence[Section] = DEFAULT_SECTIONS,
) -> BudgetReport:
    """Allocate ``window`` tokens among ``sections`` given ``requested`` counts (see module doc).

    Sections missing from ``requested`` ask for 0; unknown names raise ``KeyError``.
    """
    names = {s.name for s in sections}
    unknown = set(requested) - names
    if unknown:
        raise KeyError(f"unknown budget sections: {sorted(unknown)}")
    want: dict[str, int] = {}
    floor: dict[str, int] = {}
    for s in sections:
        asked = max(0, int(requested.get(s.name, 0)))
        cap = asked if s.max_tokens is None else min(asked, s.max_tokens)
        if s.name == OUTPUT_RESERVE:
            cap = max(cap, s.min_tokens)
        want[s.name] = cap
        floor[s.name] = min(cap, s.min_tokens)
    alloc = dict(want)
    overflow = sum(want.values()) - max(0, window)
    for s in cut_order(sections):
        if overflow <= 0:
            break
        take = min(overflow, alloc[s.name] - floor[s.name])
        alloc[s.name] -= take
        overflow -= take
    return BudgetReport(
        window=window,
        compaction_threshold=compaction_threshold(window),
        sections=tuple(
            SectionBudget(
                s.name,
                s.volatility,
                max(0, int(requested.get(s.name, 0))),
                alloc[s.name],
                floor[s.name],
                s.max_tokens if s.max_tokens is not None else window,
            )
            for s in sections
        ),
        over_by=max(0, overflow),
    )


@dataclass(frozen=True)
class CharUsage:
    """Characters used by a memory block against its limit, shown to the model as ``123/5000``."""

    current: int
    limit: int

    @property
    def over(self) -> bool:
        return self.current > self.limit

    def render(self) -> str:
        return f"{self.current}/{self.limit}"


def char_usage(text: str, limit: int) -> CharUsage:
    """``CharUsage(len(text), limit)``; ``render()`` gives ``chars_current/chars_limit``."""
    return CharUsage(len(text), limit)
