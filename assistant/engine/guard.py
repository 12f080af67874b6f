"""Reply hygiene for any chat engine: cut loops, echoes of the prompt, and role turns, while streaming.

A 135M model left alone repeats itself ("This is a reference to a message ..." x 60), recites
the system prompt or the memory block's preamble, and starts writing the next ``user`` turn.
:class:`ReplyGuard` filters a stream of text pieces from any engine (it only sees text), and
:func:`guard_generation` wraps a :class:`~assistant.engine.chat.Generation` with it, closing the
engine's stream as soon as the guard stops.

The guard works on **units**: a sentence (ending in ``.``/``!``/``?`` + space, not after "Dr."
or an initial) or a line, or :data:`MAX_UNIT_WORDS` words when neither comes. A unit is checked
when it is complete, then emitted, held or dropped; so text reaches the person a sentence at a
time and nothing emitted is ever taken back (the emitted pieces always join to the final reply).

Rules, per complete unit (words = lower-cased alphanumeric runs):

- **role turn**: the unit starts a new chat turn (``<|im_start|>``, ``user:``, a line that is
  only ``user``/``assistant``/``system``, Llama 3/Gemma/Phi markers): the text from the marker
  on is cut and generation stops (``stop_reason="role"``).
- **echo**: the unit contains a marker phrase (:attr:`GuardConfig.phrases`, e.g. "helpful
  assistant", "reference only", ``[m12, ...]`` memory tags) or shares a run of
  :data:`ECHO_SHINGLE` words with one of the prompt's fixed texts (:attr:`GuardConfig.texts`:
  system prompt, memory preamble, reminders): the unit is dropped, generation goes on.
- **loop**, measured on SmolLM2-135M's real loops (``keepsake bench answers`` counts them with
  the same rules): its loops are whole sentences or paragraphs repeated verbatim, period 8-60
  words, from the 2nd-4th sentence on, and run-on lines where one 8-word phrase comes back
  every few words. So:
  * a unit seen twice before (3rd occurrence) -> loop;
  * a unit seen once before (2nd occurrence) is **held**: released when a new unit follows,
    dropped when the loop is confirmed, and dropped at the end of the reply when the held run
    is :data:`HELD_DROP_WORDS` words or more (a trailing verbatim repeat of a whole sentence);
  * an 8-word phrase (:data:`NGRAM`) reaching its 3rd occurrence -> loop (catches run-on
    repetition inside one long unit).

  On a loop the offending unit and the held run are dropped (the first occurrences stay) and
  generation stops (``stop_reason="loop"``). With these rules no line and no 8-gram appears 3
  times in a guarded reply: the bench's loop criterion.

Pure: no I/O, no model; :attr:`ReplyGuard.cuts` lists what was removed and why.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator, Literal, Sequence

from assistant.engine.chat import Generation

MAX_UNIT_WORDS = 40
NGRAM = 8
ECHO_SHINGLE = 5
HELD_DROP_WORDS = 8

#: Phrases a reply never needs and the prompt's own wording contains (lower case, words).
DEFAULT_PHRASES = (
    "helpful assistant", "reference only", "reference-only", "retrieved_memories", "retrieved memories",
    "not instructions", "background notes", "retrieved for this message", "earlier conversations",
    "reference data",
)  # fmt: skip
#: Text that opens a new chat turn: every template family the app runs (ChatML, Llama 3, Gemma,
#: Phi) plus the plain-text forms a small model writes when it continues the transcript.
ROLE_MARKERS = re.compile(
    r"<\|im_start\|>|<\|im_end\|>|<\|start_header_id\|>|<\|eot_id\|>|<start_of_turn>|<end_of_turn>"
    r"|<\|(?:user|assistant|system|end)\|>"
    r"|(?:^|\n)[ \t]*(?:#+[ \t]*)?(?:user|human|assistant|system)[ \t]*(?::|\n|$)",  # a turn in plain text
    re.IGNORECASE,
)
_OWN_ROLE = re.compile(r"^\s*(?:#+\s*)?assistant\s*:\s*", re.IGNORECASE)
#: A memory line's tag, also as a small model rewrites its brackets ("<m20, 2026-12-06, source: session 6 msg 11>"),
#: and the memory block's own tag as a small model rewrites its name ("<removed_memories>" for "<retrieved_memories>").
MEMORY_TAG = re.compile(r"[\[<({]\s*m\d+\s*,|\bsource:\s*session\s+\d+\s+msg\s+\d+|<\s*/?\s*\w*memor(?:y|ies)\b[^>]{0,40}>", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_ABBREV = re.compile(r"(?:\b(?:Dr|Mr|Mrs|Ms|St|Jr|Sr|Prof|vs|etc|e\.g|i\.e|No|approx)|\b[A-Z]|\d)\.$")
_BOUNDARY = re.compile(r"[.!?…]+[\"'”’)\]]*[ \t]+|[.!?…]+[\"'”’)\]]*(?=\n)|\n+")

Reason = Literal["loop", "echo", "role", "repeat"]


def words(text: str) -> list[str]:
    return [w.casefold().replace("’", "'") for w in _WORD.findall(text)]


@dataclass(frozen=True)
class GuardConfig:
    """``texts``: the prompt's fixed wording (system prompt, memory preamble, reminders): a
    reply sharing :data:`ECHO_SHINGLE` consecutive words with one of them is an echo.
    ``phrases``: short phrases that make a unit an echo on their own."""

    texts: tuple[str, ...] = ()
    phrases: tuple[str, ...] = DEFAULT_PHRASES
    max_unit_words: int = MAX_UNIT_WORDS
    ngram: int = NGRAM
    shingle: int = ECHO_SHINGLE

    def with_texts(self, *texts: str | None) -> "GuardConfig":
        return GuardConfig(tuple(self.texts) + tuple(t for t in texts if t and t.strip()), self.phrases,
                           self.max_unit_words, self.ngram, self.shingle)  # fmt: skip


@dataclass(frozen=True)
class Cut:
    reason: Reason
    text: str


@dataclass
class ReplyGuard:
    config: GuardConfig = field(default_factory=GuardConfig)
    text: str = ""  # everything emitted so far
    stopped: bool = False
    stop_reason: Reason | None = None
    cuts: list[Cut] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._pending = ""  # raw text not yet split into units
        self._held: list[str] = []  # complete units held back (2nd occurrences)
        self._gap = ""  # whitespace owed before the next emitted unit
        self._units: Counter[str] = Counter()
        self._words: list[str] = []
        self._grams: Counter[tuple[str, ...]] = Counter()
        self._shingles = self._echo_shingles()
        self._phrases = [tuple(words(p)) for p in self.config.phrases if words(p)]

    # -- public --------------------------------------------------------------------------------
    def feed(self, piece: str) -> str:
        """Add generated text; returns the text that may be shown now ("" while holding)."""
        if self.stopped or not piece:
            return ""
        self._pending += piece
        out = []
        for unit in self._complete_units():
            out.append(self._accept(unit))
            if self.stopped:
                break
        return "".join(out)

    def finish(self) -> str:
        """End of generation: check the last, incomplete unit and settle what is held."""
        out = ""
        if self._pending and not self.stopped:
            unit, self._pending = self._pending, ""
            out += self._accept(unit)
        if self._held:
            held = "".join(self._held)
            self._held = []
            if len(words(held)) >= HELD_DROP_WORDS or self.stop_reason == "loop":
                self.cuts.append(Cut("repeat", held))
            else:
                out += self._emit(held)
        return out

    def run(self, pieces: Sequence[str] | Iterator[str]) -> str:
        """Guard a whole reply at once; returns the guarded text."""
        for p in pieces:
            self.feed(p)
            if self.stopped:
                break
        self.finish()
        return self.text

    # -- units ---------------------------------------------------------------------------------
    def _complete_units(self) -> Iterator[str]:
        while True:
            end = self._boundary(self._pending)
            if end is None:
                if len(words(self._pending)) <= self.config.max_unit_words:
                    return
                end = _nth_word_end(self._pending, self.config.max_unit_words)
            unit, self._pending = self._pending[:end], self._pending[end:]
            yield unit

    @staticmethod
    def _boundary(text: str) -> int | None:
        for m in _BOUNDARY.finditer(text):
            if m.group(0)[0] in ".!?…" and _ABBREV.search(text[: m.start() + 1]) and "\n" not in m.group(0):
                continue  # "Dr. Ferreira", "J. Smith", "1. first item"
            if m.end() == len(text) and m.group(0)[0] != "\n":
                return None  # the whitespace run may go on: wait for the next piece
            return m.end()
        return None

    def _accept(self, unit: str) -> str:
        if not self.text and not self._held:
            unit = _OWN_ROLE.sub("", unit, count=1)  # "Assistant: You live in Porto." -> the answer
        role = ROLE_MARKERS.search(unit)
        if role is None:
            return self._unit_ok(unit)
        head = unit[: role.start()]
        out = self._unit_ok(head) if head.strip() else ""
        if not self.stopped:
            self._stop("role", unit[role.start() :])
        return out

    def _unit_ok(self, unit: str) -> str:
        w = words(unit)
        if not w:
            return self._hold_or_emit(unit, repeat=False)
        if self._is_echo(w, unit):
            self.cuts.append(Cut("echo", unit))
            return ""
        key = " ".join(w)
        if self._units[key] >= 2 or self._ngram_loop(w):
            self._stop("loop", unit)
            return ""
        repeat = self._units[key] == 1
        self._units[key] += 1
        self._add_words(w)
        return self._hold_or_emit(unit, repeat=repeat)

    def _hold_or_emit(self, unit: str, *, repeat: bool) -> str:
        if repeat or (self._held and not words(unit)):
            self._held.append(unit)
            return ""
        out = ""
        if self._held:
            out, self._held = self._emit("".join(self._held)), []
        return out + self._emit(unit)

    def _emit(self, text: str) -> str:
        body = text.rstrip()
        trail = text[len(body):]
        if not body:
            self._gap += trail
            return ""
        out = (self._gap if self.text else "") + (body if self.text else body.lstrip())
        self._gap = trail
        self.text += out
        return out

    def _stop(self, reason: Reason, cut: str) -> None:
        """Stop here; ``finish`` settles what is held (dropped after a loop)."""
        self.stopped, self.stop_reason = True, reason
        self._pending = ""
        if cut.strip():
            self.cuts.append(Cut(reason, cut))

    # -- checks --------------------------------------------------------------------------------
    def _echo_shingles(self) -> set[tuple[str, ...]]:
        n = self.config.shingle
        out: set[tuple[str, ...]] = set()
        for text in self.config.texts:
            w = words(text)
            if 0 < len(w) < n:
                out.add(tuple(w))
            out.update(tuple(w[i : i + n]) for i in range(len(w) - n + 1))
        return out

    def _is_echo(self, w: list[str], unit: str) -> bool:
        if MEMORY_TAG.search(unit):
            return True
        for p in self._phrases:
            if _contains(w, p):
                return True
        lengths = {len(s) for s in self._shingles}
        return any(tuple(w[i : i + n]) in self._shingles for n in lengths for i in range(len(w) - n + 1))

    def _ngram_loop(self, w: list[str]) -> bool:
        """Would adding these words make some 8-gram occur a 3rd time?"""
        n = self.config.ngram
        seq = self._words[-(n - 1):] + w if self._words else list(w)
        seen: Counter[tuple[str, ...]] = Counter()
        for i in range(len(seq) - n + 1):
            g = tuple(seq[i : i + n])
            seen[g] += 1
            if self._grams[g] + seen[g] >= 3:
                return True
        return False

    def _add_words(self, w: list[str]) -> None:
        n = self.config.ngram
        start = max(0, len(self._words) - (n - 1))
        self._words.extend(w)
        for i in range(start, len(self._words) - n + 1):
            self._grams[tuple(self._words[i : i + n])] += 1


def _contains(w: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(w[i : i + n]) == phrase for i in range(len(w) - n + 1))


def _nth_word_end(text: str, n: int) -> int:
    for i, m in enumerate(_WORD.finditer(text), start=1):
        if i == n:
            return m.end()
    return len(text)


def guard_generation(gen, guard: ReplyGuard):
    """A :class:`~assistant.engine.chat.Generation` streaming ``gen`` through ``guard``: the same
    ``stats`` object (``finish_reason`` becomes ``"loop"`` when the guard cut a loop), ``text``
    the guarded reply, ``raw`` the original generation. The engine's stream is closed as soon as
    the guard stops, so no token is generated after a loop is seen."""

    def pieces() -> Iterator[str]:
        inner = iter(gen)
        try:
            try:
                for piece in inner:
                    out = guard.feed(piece)
                    if out:
                        yield out
                    if guard.stopped:
                        break
            except Exception:  # the engine failed mid-reply: what the guard held back is part of what arrived
                tail = guard.finish()
                if tail:
                    yield tail
                raise
            tail = guard.finish()
            if tail:
                yield tail
        finally:
            for it in (inner, gen.pieces):
                close = getattr(it, "close", None)
                if close is not None:
                    close()
            if guard.stop_reason == "loop":
                gen.stats.finish_reason = "loop"

    out = Generation(pieces=pieces(), stats=gen.stats)
    out.raw = gen  # type: ignore[attr-defined]
    return out
