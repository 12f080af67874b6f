"""Compaction: the ladder that makes room in a session's context, cheapest and reversible first.

Run only at compaction points (the window reached ``budget.compaction_threshold``), never per
turn, so between two compactions the prompt prefix never changes. Steps, stopping as soon as
the history fits ``target_tokens``:

0. archive: the full history is appended to the session's archive (the store's encrypted
   ``context_history`` table) before anything is shortened - every later step is reversible
   from there;
1. offload: messages over ``offload.OFFLOAD_CHARS`` become a 500-char preview + archive pointer;
2. mask: bulky messages older than the ``KEEP_TURNS`` most recent turns become pointers;
3. prune: older user turns lose the memory/reminder blocks injected when they were sent (the
   person's own text stays; what was injected is in the store's injection log);
4. summary: the history before the last ``KEEP_TURNS`` turns (the cut lands on a user message)
   (kept word for word, minus their injected memory blocks)
   is replaced by a summary regenerated from the FULL archived history, never from the previous
   summary: a structured part kept by code (:mod:`assistant.context.facts`; the previous
   summary's still-valid facts are salvaged) plus the model's short narrative. It names the
   archived history. At most once every ``SUMMARY_EVERY`` messages; if it is not shorter than what
   it replaces, the original is kept.

The thinking context after a summary is: summary + last 6 turns + current input, so its size
stays flat however long the session gets. Every compaction publishes a
:class:`CompactionEvent` on the ``"compaction"`` topic of :mod:`assistant.events` (the
consolidation job listens). Per-session state (:class:`CompactionState`, in
:mod:`assistant.context.state`) lives in the same archive (``context_state``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Protocol, Sequence

from assistant import events
from assistant.context import facts as facts_mod
from assistant.context import offload
from assistant.context.state import (  # noqa: F401  (re-exported: the compaction API in one place)
    CompactionState,
    ContextMessage,
    StateArchive,
    archive_history,
    history_ref,
    load_state,
    read_history,
    save_state,
)
from assistant.engine.chat import ChatMessage

KEEP_TURNS = 6
MASK_MIN_CHARS = 1500  # "bulky": an older message over this many characters is masked
MASK_PREVIEW_CHARS = 200
SUMMARY_EVERY = 5  # messages between two summaries, at least
SUMMARY_TOKENS = 1024  # the summary's own budget (SessionContext scales it with the window)
NARRATIVE_INPUT_TOKENS = 1200  # the model reads the most recent person messages that fit
NARRATIVE_MAX_TOKENS = 120
NARRATIVE_MAX_CHARS = 700
MESSAGE_OVERHEAD = 6
TOPIC = "compaction"


class TextModel(Protocol):
    def complete(self, messages: Sequence[ChatMessage], **kw) -> tuple[str, object]: ...


@dataclass(frozen=True)
class CompactionEvent:
    session_id: str
    steps: tuple[str, ...]
    tokens_before: int
    tokens_after: int
    summarized: bool
    covered_up_to: int | None
    archive: str | None


@dataclass(frozen=True)
class CompactionResult:
    history: list[ContextMessage]  # the new history view (send this from now on)
    state: CompactionState
    steps: tuple[str, ...]  # what ran, e.g. ("archive", "mask", "summary")
    tokens_before: int
    tokens_after: int
    event: CompactionEvent | None

    @property
    def changed(self) -> bool:
        return self.event is not None


# -- views -------------------------------------------------------------------------------------------
def mask(m: ContextMessage, archive_ref: str | None) -> ContextMessage:
    head = " ".join(m.text[:MASK_PREVIEW_CHARS].split())
    where = f"the archive ({archive_ref})" if archive_ref else "the archive"
    text = f'[message #{m.id} ({len(m.content)} characters) masked to save room; it began: "{head}..."; full text in {where}]'
    return replace(m, content=text, raw=None)


def apply_state(archive: StateArchive, state: CompactionState, messages: Sequence[ContextMessage]) -> list[ContextMessage]:
    """Rebuild a session's history view from stored messages (e.g. after a restart): what the
    summary covers is left out; offloads and masks are re-applied (same text, same pointers)."""
    masked = set(state.masked_ids)
    view = []
    for m in messages:
        if state.covered_up_to is not None and m.id <= state.covered_up_to:
            continue
        m = mask(m, state.archive) if m.id in masked else m
        done = offload.offload(archive, m.content, state.session_id, kind=m.role, message_id=m.id)
        view.append(replace(m, content=done.text, raw=None) if done else m)
    return view


def turn_starts(history: Sequence[ChatMessage]) -> list[int]:
    return [i for i, m in enumerate(history) if m.role == "user"]


class Compactor:
    """Runs the ladder for one session at a time. ``model`` writes the narrative (None: the
    structured part only); ``count_tokens`` should be the chat model's tokenizer; ``archive``
    the store's context archive (``store.context_archive``)."""

    def __init__(self, count_tokens: Callable[[str], int], model: TextModel | None = None, *, archive: StateArchive,
                 keep_turns: int = KEEP_TURNS, summary_tokens: int = SUMMARY_TOKENS) -> None:  # fmt: skip
        self.archive = archive
        self.count_tokens = count_tokens
        self.model = model
        self.keep_turns = keep_turns
        self.summary_tokens = summary_tokens

    def tokens(self, history: Sequence[ChatMessage], summary: str = "") -> int:
        return sum(self.count_tokens(m.content) + MESSAGE_OVERHEAD for m in history) + (self.count_tokens(summary) if summary else 0)

    def compact(self, session_id: int | str, history: Sequence[ContextMessage], *, target_tokens: int, force_summary: bool = False) -> CompactionResult:
        state = load_state(self.archive, session_id)
        view = list(history)
        before = self.tokens(view, state.summary)
        archive_history(self.archive, state, view)
        steps = ["archive"]
        starts = turn_starts(view)
        keep_from = starts[-self.keep_turns] if len(starts) >= self.keep_turns else 0
        for name, step in (("offload", self._offload), ("mask", self._mask), ("prune", self._prune)):
            if self.tokens(view, state.summary) <= target_tokens and not force_summary:
                break
            new = step(state, view, keep_from)
            if [m.content for m in new] != [m.content for m in view]:
                view = new
                steps.append(name)
        if force_summary or self.tokens(view, state.summary) > target_tokens:
            view = self._summarize(state, view, keep_from, steps)
        after = self.tokens(view, state.summary)
        if not set(steps) & {"offload", "mask", "prune", "summary"}:  # nothing in the window changed
            save_state(self.archive, state)
            return CompactionResult(view, state, tuple(steps), before, after, None)
        state.compactions += 1
        save_state(self.archive, state)
        event = CompactionEvent(state.session_id, tuple(steps), before, after, "summary" in steps, state.covered_up_to, state.archive)
        events.publish(TOPIC, event)
        return CompactionResult(view, state, tuple(steps), before, after, event)

    # -- the cheap steps ---------------------------------------------------------------------------
    def _offload(self, state: CompactionState, view: list[ContextMessage], keep_from: int) -> list[ContextMessage]:
        out = []
        for m in view:
            done = offload.offload(self.archive, m.content, state.session_id, kind=m.role, message_id=m.id)
            out.append(replace(m, content=done.text, raw=None) if done else m)
        return out

    def _mask(self, state: CompactionState, view: list[ContextMessage], keep_from: int) -> list[ContextMessage]:
        out = list(view)
        for i in range(keep_from):
            if len(view[i].content) > MASK_MIN_CHARS and view[i].id not in state.masked_ids:
                out[i] = mask(view[i], state.archive)
                state.masked_ids.append(view[i].id)
        return out

    def _prune(self, state: CompactionState, view: list[ContextMessage], keep_from: int) -> list[ContextMessage]:
        return [replace(m, content=m.text, raw=None) if i < keep_from and m.role == "user" and m.text != m.content else m
                for i, m in enumerate(view)]

    # -- the summary --------------------------------------------------------------------------------
    def _summarize(self, state: CompactionState, view: list[ContextMessage], keep_from: int, steps: list[str]) -> list[ContextMessage]:
        full = read_history(self.archive, state.session_id)
        if keep_from <= 0:
            steps.append("summary:nothing-to-cut")
            return view
        if state.summary and len(full) - state.summarized_at_count < SUMMARY_EVERY:
            steps.append("summary:too-soon")
            return view
        cut_id = view[keep_from].id  # a user message: the first of the turns kept
        before_cut = [m for m in full if m.id < cut_id]
        found = facts_mod.merge(facts_mod.salvage(state.facts, full), facts_mod.extract(before_cut))
        replaced = self.tokens(view[:keep_from], state.summary)
        found, text = self._fit(state, before_cut, found)
        if self.count_tokens(text) >= replaced:  # checked before asking the model for anything
            steps.append("summary:not-shorter")
            return view
        with_narrative = self.render_summary(state, before_cut, found, self.narrative(before_cut))
        if self.count_tokens(with_narrative) < min(replaced, self.summary_tokens + 1):
            text = with_narrative  # the facts come first: the narrative only if it still fits
        state.summary, state.facts = text, found
        state.covered_up_to = view[keep_from - 1].id
        state.summarized_at_count = len(full)
        state.masked_ids = [i for i in state.masked_ids if i > state.covered_up_to]
        steps.append("summary")
        # The prefix changes here anyway: the kept turns keep the person's words and the
        # replies, but the memory blocks injected into them go (retrieval brings back what
        # matters; without this, summary + 6 turns can stay over the threshold and thrash).
        return [replace(m, content=m.text, raw=None) if m.role == "user" and m.text != m.content else m for m in view[keep_from:]]

    def _fit(self, state: CompactionState, covered: Sequence[ContextMessage], found: list[facts_mod.Fact]) -> tuple[list[facts_mod.Fact], str]:
        """The structured summary within ``summary_tokens``: the oldest facts go first (they
        stay in the archived history the summary names)."""
        by_age = sorted(found, key=lambda f: f.message_id)
        lo, hi = 0, len(by_age)  # smallest number of oldest facts to drop
        while lo < hi:
            mid = (lo + hi) // 2
            kept = [f for f in found if f in set(by_age[mid:])]
            if self.count_tokens(self.render_summary(state, covered, kept, "")) <= self.summary_tokens:
                hi = mid
            else:
                lo = mid + 1
        kept = [f for f in found if f in set(by_age[lo:])]
        return kept, self.render_summary(state, covered, kept, "")

    def refresh(self, session_id: int | str) -> CompactionState:
        """Rebuild the summary of the same range from the archive, e.g. after the person deleted
        messages (the Forgetter redacts the archive first): a derived summary must not keep
        their text. Facts whose source is gone are not salvaged."""
        state = load_state(self.archive, session_id)
        if state.covered_up_to is None:
            return state
        full = read_history(self.archive, state.session_id)
        covered = [m for m in full if m.id <= state.covered_up_to]
        found = facts_mod.merge(facts_mod.salvage(state.facts, full), facts_mod.extract(covered))
        state.facts, state.summary = self._fit(state, covered, found)
        with_narrative = self.render_summary(state, covered, state.facts, self.narrative(covered))
        if self.count_tokens(with_narrative) <= self.summary_tokens:
            state.summary = with_narrative
        save_state(self.archive, state)
        return state

    def narrative(self, messages: Sequence[ContextMessage]) -> str:
        """The model's short narrative of what the person said (never of a summary)."""
        said = [" ".join(m.text.split()) for m in messages if m.role == "user" and m.text.strip()]
        if self.model is None or not said:
            return ""
        lines: list[str] = []
        used = 0
        for s in reversed(said):  # the most recent that fit
            n = self.count_tokens(s) + 2
            if used + n > NARRATIVE_INPUT_TOKENS:
                break
            lines.insert(0, f"- {s}")
            used += n
        prompt = "Here is what a person told me:\n" + "\n".join(lines) + "\n\nSummarize it in two sentences."
        msgs = [ChatMessage("system", "You are a helpful assistant."), ChatMessage("user", prompt)]
        text, _ = self.model.complete(msgs, temperature=0.0, max_tokens=NARRATIVE_MAX_TOKENS)
        return _tidy(text)

    @staticmethod
    def render_summary(state: CompactionState, covered: Sequence[ContextMessage], found: Sequence[facts_mod.Fact], narrative: str) -> str:
        first, last = (covered[0].id, covered[-1].id) if covered else (None, None)
        parts = [f"Messages #{first} to #{last} are summarized here; their full text is in the archive ({state.archive})."]
        structured = facts_mod.render(found)
        if structured:
            parts.append(structured)
        if narrative:
            parts.append(f"Narrative: {narrative}")
        return "\n".join(parts)


def _tidy(text: str) -> str:
    """One paragraph, no repeated sentences (tiny models loop), at most NARRATIVE_MAX_CHARS."""
    seen, out = set(), []
    for s in facts_mod.sentences(text.replace("\n", " ")):
        key = s.casefold()
        if key not in seen:
            seen.add(key)
            out.append(s)
    text = " ".join(out)
    return text if len(text) <= NARRATIVE_MAX_CHARS else text[: NARRATIVE_MAX_CHARS].rsplit(" ", 1)[0] + "..."
