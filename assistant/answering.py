"""What the person is shown after the model replied: code decides, the model phrases.

:func:`settle` takes the guarded reply (:mod:`assistant.engine.guard`) and the turn's memory
answer (:mod:`assistant.memory.retrieval.answer`) and returns the :class:`Settled` reply:

- a memory answer the reply contains: the reply stays (``in_reply=True``);
- a memory answer the reply misses: the reply stays and the person is shown the memory under it
  ("From your memory: ..."), ``in_reply=False``;
- a memory answer the reply **contradicts** (names the same thing without the answer, negates
  it, or says it does not know): the reply is replaced by the memory, addressed to the person
  ("You live in Porto."), ``correction="memory"``; the model's text is kept in ``model_reply``;
- a question asking for a fact of the person's life (never a general one: arithmetic,
  knowledge, advice, translation, "my" in a request; :mod:`assistant.memory.retrieval.questions`)
  with no memory answer, when memory is on and the reply neither says it does not know nor names
  anything from the injected memories: the reply is replaced by :data:`UNKNOWN`
  (``correction="unknown"``) - a small model otherwise invents a fact;
- an empty reply (everything was an echo or a loop), or with a memory answer one that says
  nothing (no word: "M2"): the memory answer if any, else
  :data:`EMPTY` for a question or a request, :data:`ACK` ("Thanks for telling me.") for a
  statement, :data:`GREETING` for chit-chat (``correction="empty"``) - asking someone who told
  something to "rephrase it" is wrong;
- a reply to chit-chat ("Hello there!") that repeats an earlier reply (a small model copies the
  last memory answer, "You live in Antwerp.", into a greeting): :data:`GREETING`.

A sentence or line of the reply that only repeats the person's question is dropped first ("...
northern lights!\nRemind me when my Iceland trip is."). When memories were injected, a capitalised "User" the model copied from the memory block is
turned to the person ("User's name" -> "your name"), and a sentence that gives the answer
speaking as the person ("I'm a nurse.") is turned to them ("You're a nurse.").

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, Sequence

from assistant.engine.guard import GuardConfig
from assistant.memory.retrieval import answer as memanswer
from assistant.memory.retrieval.answer import MemoryAnswer
from assistant.memory.retrieval import reply_check
from assistant.memory.retrieval.perspective import rewrite
from assistant.memory.retrieval.questions import is_question, requests
from assistant.memory.wording import true_since_phrase

UNKNOWN, UNKNOWN_RELATED, EMPTY = reply_check.UNKNOWN, reply_check.UNKNOWN_RELATED, reply_check.EMPTY
ACK, GREETING = reply_check.ACK, reply_check.GREETING
CHITCHAT_REPEAT_MIN_CHARS = 12  # "You live in Antwerp." after "Hello there!"; "Hi!" twice is fine

Correction = Literal["memory", "unknown", "empty", "repeat"]


@dataclass(frozen=True)
class Settled:
    reply: str
    memory_answer: dict[str, Any] | None = None  # MemoryAnswer.to_json(...) for the turn
    correction: Correction | None = None
    model_reply: str | None = None  # the guarded model text when it was replaced


def guard_config(*texts: str | None) -> GuardConfig:
    """The guard for a chat turn: the prompt's fixed texts (system prompt, memory preamble,
    section headers, and any given here) must not come back in the reply."""
    from assistant.context.assembler import NOTE_HEADER, SUMMARY_HEADER
    from assistant.memory.retrieval.inject import OPEN_TAG, PREAMBLE

    return GuardConfig().with_texts(PREAMBLE, OPEN_TAG, NOTE_HEADER, SUMMARY_HEADER, *texts)


def settle(question: str, reply: str, answer: MemoryAnswer | None, hits: Sequence[Any], *, correct: bool = True,
           memory_on: bool = True, earlier: Sequence[str] = (), matcher: Any = None) -> Settled:  # fmt: skip
    """The reply the person is shown (see the module docstring). ``correct=False`` (a reply the
    person stopped): the reply is never replaced, only the memory answer is attached.
    ``memory_on=False`` (memory turned off): no memory refusal either. ``earlier``: the
    conversation's previous replies to other messages; a question or request whose reply repeats
    one of them (:func:`~assistant.memory.retrieval.reply_check.repeats`) gets the memory answer,
    else :data:`EMPTY` (``correction="repeat"``): the same "That sounds lovely!" after two pieces
    of news is fine, "12*12 = 144." after "Give me a tip for sleeping better" is not. ``matcher``
    (the retriever's :class:`~assistant.memory.retrieval.forms.AnswerMatcher`): a request it reads
    as one to produce something is no question about the person (never refused or replaced)."""
    asked = is_question(question) or requests(question)
    if asked:  # "Hello there!" may be answered in kind
        reply = without_echo(reply, question)
    if hits:  # the memory block says "User": a reply that copied it speaks to the person instead
        reply = rewrite(reply, "second", capital_only=True)
    text = reply.strip()
    if not correct:
        return Settled(reply, answer.to_json(reply_check.contains(text, answer)) if answer is not None else None)
    if asked and reply_check.repeats(text, earlier):
        if answer is not None:
            return Settled(answer.statement, answer.to_json(False, True), "repeat", reply)
        return Settled(EMPTY, None, "repeat", reply)
    chat = not asked and chitchat(question)
    if chat and answer is None and reply_check.repeats(text, earlier, CHITCHAT_REPEAT_MIN_CHARS):
        return Settled(GREETING, None, "repeat", reply)
    if answer is not None:
        check = reply_check.judge(text, answer, question) if text else None
        if check is None or (not check.in_reply and reply_check.says_nothing(text)):  # "" or "M2" to "¿Dónde vivo?"
            return Settled(answer.statement, answer.to_json(False, True), "empty", reply)
        if check.contradicted and memanswer.about_person(question, matcher):  # a request's reply is never replaced
            return Settled(answer.statement, answer.to_json(False, True), "memory", reply)
        if check.in_reply:
            reply = reply_check.address_person(reply, answer)
        return Settled(reply, answer.to_json(check.in_reply), None)
    personal = memanswer.about_person(question, matcher) or memanswer.about_known(question, hits, matcher)
    if memory_on and personal and not reply_check.abstains(text) \
            and not reply_check.grounded(text, hits, question):
        return Settled(UNKNOWN_RELATED if hits else UNKNOWN, None, "unknown", reply)
    if not text:
        return Settled(EMPTY if asked else GREETING if chat else ACK, None, "empty", reply)
    return Settled(reply)


def _folded(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def without_echo(reply: str, message: str) -> str:
    """``reply`` without a sentence or line that only repeats the person's message ("You're flying
    to Reykjavik from March 14.\nRemind me when my Iceland trip is."): a small model copies the
    turn it answers. Other sentences stay as written."""
    said = _folded(message)
    if not said or said not in _folded(reply):
        return reply
    parts = re.split(r"(?<=[.!?])[ \t]+|(\n+)", reply)
    kept = [p for p in parts if p is not None and (p.startswith("\n") or _folded(p) != said)]
    out = re.sub(r"[ \t]*\n[ \t]*", "\n", " ".join(kept)).strip()
    return re.sub(r"\n{3,}", "\n\n", out)


def chitchat(message: str) -> bool:
    """Every part of ``message`` is chit-chat ("Hello there!", "thanks!", "ok cool")."""
    from assistant.memory.language.statements import Act, classify

    units = classify(message).units
    return bool(units) and all(u.act is Act.CHITCHAT for u in units)


def earlier_replies(history: Sequence[Any], question: str, last: int = 8) -> list[str]:
    """The conversation's last ``last`` replies to *other* questions (``history``: the context's
    user/assistant messages; a user message's ``raw`` is the person's text): asking the same
    thing again may get the same answer, copying it into another question may not."""
    asked = " ".join(question.casefold().split())
    out, pending = [], None
    for m in history:
        if m.role == "user":
            pending = " ".join((getattr(m, "raw", None) or m.content).casefold().split())
        elif m.role == "assistant" and pending is not None and pending != asked:
            out.append(m.content)
    return out[-last:]


def for_history(reply: str, correction: str | None, memory_answer: dict[str, Any] | None) -> str | None:
    """What the model sees of this turn's reply in later turns (issue 28.5: a refusal never
    teaches it to refuse a question memory answers). ``None``: the turn is left out of the
    history as sent (a code refusal: its wording is what the model copies into later turns); a
    reply that says it does not know while the person was shown the memory answer becomes that
    answer ("You live in Porto."); anything else is the reply as shown."""
    if correction == "unknown" or reply.strip() in reply_check.CODE_FILLERS:  # code's stand-ins: the model would copy them
        return None
    if memory_answer is not None and not memory_answer.get("in_reply") and reply_check.abstains(reply):
        return str(memory_answer.get("statement") or memory_answer["text"])
    # the model's own "I don't know" with no memory answer stays: it was true, and leaving a turn
    # out breaks the append-only prefix a server's cache (and its token prediction) relies on
    return reply


def memory_line(memory_answer: dict[str, Any]) -> str:
    """The "From your memory" line as plain text: the memory (the person's own message quoted:
    "you said “I'm a pharmacist.”"; one said in another language followed by its English
    reading), its date and its id, and any memory needed with it."""
    bits = [b for b in (true_since_phrase(memory_answer.get("valid_at"), memory_answer.get("start_kind")),
                        f"memory #{memory_answer['memory_id']}") if b]  # fmt: skip
    text = f"you said \u201c{memory_answer['text']}\u201d" if memory_answer.get("episode") else memory_answer["text"]
    also = "".join(f" + {a['text']}{in_english(a)} (memory #{a['memory_id']})" for a in memory_answer.get("also", []))
    return f"From your memory: {text}{in_english(memory_answer)} ({', '.join(bits)}){also}"


def source_line(memory_answer: dict[str, Any]) -> str:
    """Where a reply that says the memory answer got it, kept short: "(from your memory: memory
    #27, true since 30 November 2026)" -- the reply already says what it holds."""
    bits = [f"memory #{memory_answer['memory_id']}", true_since_phrase(memory_answer.get("valid_at"), memory_answer.get("start_kind"))]
    return f"(from your memory: {', '.join(b for b in bits if b)})"


def in_english(memory: dict[str, Any]) -> str:
    """' [in English: ...]' after a memory said in another language (its ``english`` reading),
    else ''."""
    return f" [in English: {memory['english']}]" if memory.get("english") else ""


def show_memory_line(memory_answer: dict[str, Any] | None) -> bool:
    """The line is shown when the reply does not say the answer (or was replaced by it)."""
    return bool(memory_answer) and (not memory_answer.get("in_reply") or bool(memory_answer.get("replaced_reply")))


CORRECTION_NOTES = {
    "memory": "The model's reply did not match your memory, so Keepsake answered from it.",
    "unknown": "The model's reply was not based on anything you told Keepsake, so it was replaced.",
    "empty": "The model gave no usable reply.",
}
