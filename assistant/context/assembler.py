"""Context assembly: the messages sent to the model each turn, laid out for llama.cpp's prefix cache.

Layout (stable first, volatile last; docs/DESIGN.md §7)::

    system:    DEFAULT_SYSTEM_PROMPT            volatility 0, never changes
               + the person's note              volatility 0, changes only when they edit it
               + the compaction summary         volatility 1, changes only at a compaction
    history:   earlier turns, exactly as sent   volatility 1, append-only
    user:      retrieved memories, reminders,   volatility 2, this turn only
               then the person's text

Everything lives in ONE system message followed by strictly alternating user/assistant turns:
that is the shape every chat template accepts (several reject a second system message), and the
token prefix up to the summary is the same as with a separate summary message. The memories go
*before* the person's text: measured with SmolLM2-135M, a block placed after the question makes
the model talk about the block instead of answering.

Prefix contract: ``history`` must hold the messages as they were sent, i.e. each turn append
``Assembled.user_message`` (not the raw text) and then the reply. Then the messages of turn N+1
start with the exact messages of turn N, and llama.cpp evaluates only the new tokens. (After a
restart the KV cache is cold anyway, so a session may rebuild history from raw stored text.)

Over budget, :func:`assistant.context.budget.allocate` cuts the most volatile first: the memory
block and reminders lose whole lines from their end, an over-long input loses its middle (callers
offload long pastes first, see :mod:`assistant.context.offload`). History is cut from its oldest
end only as an emergency (compaction should have run at the threshold): it drops to
``HISTORY_HEADROOM`` of its budget at a user message and the assembler remembers that cut, so the
following turns share one prefix again until the next cut. The system prompt and the note are
never cut: if they do not fit, :class:`ContextOverflow` says so.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, Sequence

from assistant.context.budget import DEFAULT_SECTIONS, OUTPUT_RESERVE, BudgetReport, Section, allocate
from assistant.engine.chat import ChatMessage

# Measured with SmolLM2-135M on one machine: its own default system prompt made it answer
# "capital of France" wrongly, this one right. Exact answers of a 135M model differ by CPU, so
# answer quality is measured by `keepsake bench answers`, not asserted in tests.
DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."
NOTE_HEADER = "About the person you are helping, written by them:"
SUMMARY_HEADER = "Earlier in this conversation (summary):"
MESSAGE_OVERHEAD = 6  # template tokens around each message: <|im_start|>role\n ... <|im_end|>\n
HISTORY_HEADROOM = 0.5  # an emergency history cut leaves this fraction of its budget used
CUT_MARK = "\n[... {n} characters cut: too long for the context window ...]\n"


class ContextOverflow(ValueError):
    """The sections that are never cut (system prompt, note, minimum budgets) do not fit."""


@dataclass(frozen=True)
class Assembled:
    messages: list[ChatMessage]
    report: BudgetReport
    history_start: int = 0  # index in the given history of the first message sent
    shortened: tuple[str, ...] = ()  # sections whose text was cut to fit
    prompt_tokens: int = 0  # estimate (model tokenizer + template overhead)

    @property
    def user_message(self) -> ChatMessage:
        """The current user turn as sent: append this (not the raw text) to the history."""
        return self.messages[-1]

    @property
    def needs_compaction(self) -> bool:
        """The window (prompt + output reserve) reached the compaction threshold, or history
        had to be cut: run :mod:`assistant.context.compaction` before the next turn."""
        used = self.prompt_tokens + self.report.section(OUTPUT_RESERVE).allocated
        return used >= self.report.compaction_threshold or self.history_start > 0

    def to_json(self) -> dict:
        return {
            "budget": self.report.to_json(),
            "prompt_tokens": self.prompt_tokens,
            "history_start": self.history_start,
            "shortened": list(self.shortened),
            "needs_compaction": self.needs_compaction,
        }


@dataclass
class Assembler:
    """Builds each turn's messages within ``window`` tokens. One instance per session: it keeps
    the emergency history cut so consecutive turns share their prefix."""

    count_tokens: Callable[[str], int]
    window: int
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    sections: Sequence[Section] = DEFAULT_SECTIONS
    message_overhead: int = MESSAGE_OVERHEAD
    _anchor: tuple[int, ChatMessage] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        # Messages are immutable strings counted again every turn: cache their token counts.
        self._count = functools.lru_cache(maxsize=16384)(self.count_tokens)

    # -- the stable prefix -----------------------------------------------------------------------
    def system_text(self, note: str | None = None, summary: str | None = None) -> str:
        """The one system message: prompt, then the note, then the summary (stable first)."""
        return self.system_prompt.strip() + note_block(note) + summary_block(summary)

    def _tokens(self, text: str | None) -> int:
        return self._count(text) if text else 0

    def _message_tokens(self, m: ChatMessage) -> int:
        return self._count(m.content) + self.message_overhead

    # -- one turn --------------------------------------------------------------------------------
    def assemble(
        self,
        *,
        history: Sequence[ChatMessage],
        user_input: str,
        note: str | None = None,
        summary: str | None = None,
        memories_block: str | None = None,
        reminders: str | None = None,
        max_output_tokens: int = 512,
    ) -> Assembled:
        note_text, summary_text = note_block(note), summary_block(summary)
        per_msg = [self._message_tokens(m) for m in history]
        start = self._start(history)
        requested = {
            "system": self._tokens(self.system_prompt.strip()) + self.message_overhead,
            "note": self._tokens(note_text),
            "summary": self._tokens(summary_text),
            "history": sum(per_msg[start:]),
            "retrieved_memories": self._tokens(memories_block),
            "reminders": self._tokens(reminders),
            "current_input": self._tokens(user_input) + self.message_overhead,
            OUTPUT_RESERVE: max_output_tokens,
        }
        report = allocate(self.window, requested, self.sections)
        if report.section("history").cut:
            start = self._cut_history(history, per_msg, start, report.section("history").allocated)
            requested["history"] = sum(per_msg[start:])
            report = allocate(self.window, requested, self.sections)
        self._check_fixed(report, requested)
        shortened: list[str] = []
        summary_text = self._fit(summary_text, report, "summary", shortened, lines=False)
        memories = self._fit(memories_block, report, "retrieved_memories", shortened, lines=True)
        reminders_text = self._fit(reminders, report, "reminders", shortened, lines=True)
        user_text = self._fit(user_input, report, "current_input", shortened, lines=False)
        system = self.system_prompt.strip() + note_text + summary_text
        current = "\n\n".join(p.strip() for p in (memories, reminders_text, user_text) if p and p.strip())
        messages = [ChatMessage("system", system)]
        messages += [ChatMessage(str(getattr(m.role, "value", m.role)), m.content) for m in history[start:]]
        messages.append(ChatMessage("user", current))
        prompt = sum(s.allocated for s in report.sections if s.name != OUTPUT_RESERVE)
        return Assembled(messages, report, start, tuple(shortened), prompt)

    # -- history cut (emergency only) -------------------------------------------------------------
    def _start(self, history: Sequence[ChatMessage]) -> int:
        """Where the last emergency cut left history, if it is still the same history."""
        if self._anchor is None:
            return 0
        i, msg = self._anchor
        if i < len(history) and history[i] == msg:
            return i
        self._anchor = None  # history was replaced (e.g. compacted): start over
        return 0

    def _cut_history(self, history: Sequence[ChatMessage], per_msg: list[int], start: int, budget: int) -> int:
        target = int(budget * HISTORY_HEADROOM)
        remaining = sum(per_msg[start:])
        for i in range(start, len(history)):
            if str(getattr(history[i].role, "value", history[i].role)) == "user" and remaining <= target:
                self._anchor = (i, history[i])
                return i
            remaining -= per_msg[i]
        self._anchor = None
        return len(history)  # nothing fits: the turn goes out with the stable prefix only

    # -- fitting volatile text --------------------------------------------------------------------
    def _check_fixed(self, report: BudgetReport, requested: dict[str, int]) -> None:
        problems = []
        if report.over_by:
            problems.append(f"the minimum budgets exceed the {self.window}-token window by {report.over_by} tokens")
        for name, what in (("system", "the system prompt"), ("note", "your note")):
            s = report.section(name)
            if s.cut:
                problems.append(f"{what} is {requested[name]} tokens but only {s.allocated} fit in this window")
        if problems:
            raise ContextOverflow(
                "; ".join(problems) + ". Nothing was cut: shorten your note or use a larger context size."
            )

    def _fit(self, text: str | None, report: BudgetReport, name: str, shortened: list[str], *, lines: bool) -> str:
        """``text`` if its section was not cut, else its fitting part (and ``name`` is noted)."""
        section = report.section(name)
        if not text or not section.cut:
            return text or ""
        shortened.append(name)
        budget = section.allocated - (self.message_overhead if name == "current_input" else 0)
        return self._fit_lines(text, budget) if lines else self._fit_text(text, budget)

    def _fit_lines(self, text: str, budget: int) -> str:
        """Drop whole lines from the end of a block (keeping a closing ``</tag>`` line)."""
        lines = text.splitlines()
        closing = [lines.pop()] if len(lines) > 1 and lines[-1].lstrip().startswith("</") else []
        lo, hi = 0, len(lines)  # largest n with lines[:n] + closing fitting
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.count_tokens("\n".join(lines[:mid] + closing)) <= budget:
                lo = mid
            else:
                hi = mid - 1
        return "\n".join(lines[:lo] + closing) if lo > (1 if closing else 0) else ""

    def _fit_text(self, text: str, budget: int) -> str:
        """Keep the head and tail of ``text`` within ``budget`` tokens, marking the cut."""
        lo, hi = 0, len(text)  # characters kept
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.count_tokens(_cut_middle(text, mid)) <= budget:
                lo = mid
            else:
                hi = mid - 1
        return _cut_middle(text, lo)


def note_block(note: str | None) -> str:
    return f"\n\n{NOTE_HEADER}\n<note>\n{note.strip()}\n</note>" if note and note.strip() else ""


def summary_block(summary: str | None) -> str:
    return f"\n\n{SUMMARY_HEADER}\n{summary.strip()}" if summary and summary.strip() else ""


def _cut_middle(text: str, keep: int) -> str:
    if keep >= len(text):
        return text
    head = keep * 2 // 3
    return text[:head] + CUT_MARK.format(n=len(text) - keep) + text[len(text) - (keep - head) :]

