"""Memory answers: when retrieval holds a confident answer to the person's question, code decides
it, and checks the model's reply against it.

    answer = choose(question, hits)            # MemoryAnswer | None
    check = judge(reply, answer, question)     # ReplyCheck(in_reply, contradicted)

**Confident answer** (:func:`choose`), first hit that qualifies, best first (profile, fact or
experience memories only, never a question):

1. a profile-slot answer (``Hit.slot_answer``: "where do I live" -> the ``home_city`` memory);
2. a hit above the relevance threshold whose words cover the question's **focus**: the thing
   asked about after "my" ("my dog" -> ``dog``; "my brother's name" -> ``brother``; "my car's
   licence plate" -> ``car`` and ``licence``/``plate``), else at least one content word of the
   question (or a linked entity). Words match by a light stem: equal after dropping
   -s/-es/-ing/-ed, sharing their first :data:`PREFIX` letters ("allergy"/"allergic"), or
   listed together in :data:`SYNONYMS` ("movie"/"film").

So "What colour is my car?" is *not* answered by "User's favourite colour is green." (``car``
is not covered) and "What is my brother's name?" not by "User's sister is Marta.".

**Checking the reply** (:func:`judge`): the answer's *key terms* are the memory's words the
question did not already contain; its *strong* terms are the names and numbers among them
(capitalised words not starting a sentence, digits). The reply contains the answer
(``in_reply``) when it has every number and at least one name among the strong terms (or,
without strong terms, at least half of the key terms), none of them negated ("not green"). It **contradicts** the answer when it does
not contain it and instead says something about the same thing: a sentence that names the
question's focus without the answer ("Your job is a medical doctor."), negates a key term, or
says it does not know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from assistant.memory.retrieval.perspective import first_to_second, rewrite
from assistant.memory.records import Kind, Trust
from assistant.memory.capture.validate import STOPWORDS
from assistant.memory.retrieval.inject import source_label

PREFIX = 6  # "allergy"/"allergic" share "allerg"
#: Kinds a memory answer comes from: statements written by capture or the person. Episodes are
#: verbatim messages (first person, often questions), not answers.
ANSWER_KINDS = frozenset({Kind.PROFILE, Kind.FACT, Kind.EXPERIENCE})
_YES_NO = re.compile(r"^\s*(?:am|is|are|was|were|do|does|did|have|has|had|can|will)\b", re.I)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\d+(?::\d+)?", re.UNICODE)
#: Words of a question that do not say what is asked about.
GENERIC = frozenset(
    """user my me i i'm i've mine myself you your name names named call called tell know remember recall
    what's who's where's when's how's favourite favorite best kind type sort thing things please again
    said say told""".split()
)
_QUESTION_WORDS = frozenset("what which who whom whose where when why how".split())
_MODIFIERS = frozenset("favourite favorite best old new current usual main".split())
_NEGATION = re.compile(r"\b(?:not|no|never|n't|nor|isn['’]t|aren['’]t|don['’]t|doesn['’]t|wasn['’]t|weren['’]t)\b", re.I)
_ABSTAIN = re.compile(
    r"\b(?:i\s+(?:do\s+not|don['’]t|really\s+don['’]t)\s+(?:know|have|remember|recall)|not\s+sure|no\s+(?:information|idea|record|memory)"
    r"|(?:haven['’]t|have\s+not|never)\s+(?:told|mentioned|said|shared)|not\s+(?:been\s+)?mentioned|can(?:not|['’]t)\s+(?:recall|find|tell)"
    r"|(?:unable|not\s+able)\s+to\s+(?:find|provide|determine|know|tell|recall|access)|i['’]m\s+not\s+aware|don['’]t\s+know"
    r"|no\s+way\s+(?:of|to)\s+know(?:ing)?|i\s+do\s+not\s+know"
    # a small model's evasions: "as a text-based AI, I don't have personal experiences ..."
    r"|\bas\s+an?\s+(?:[\w-]+\s+){0,2}(?:ai|model|assistant|chatbot)\b|i\s+(?:do\s+not|don['’]t)\s+have\s+(?:access|personal|real-time|the\s+ability))",
    re.I,
)
_PERSON_Q = re.compile(
    r"\bmy\b|^(?:who|what|which|where|when)\b.*\bme\b|\b(?:do|did|am|was|have|had|were|is)\s+i\b|\bi\s+(?:live|work|was born|grew up|like|love|prefer)\b|\bwho am i\b"
    r"|\babout me\b",
    re.I,
)
_ADVICE = re.compile(
    r"\bhow\s+(?:do|can|could|should|would|might)\s+i\b|\b(?:what|where|when|which)\s+(?:can|could|should|would|might)\s+i\b"
    r"|\b(?:what|where|when|which)\s+do\s+i\s+(?:need|find|get|go\s+to|make|fix|start|cook|bake|install|change|set|turn|write"
    r"|ask|say|tell|handle|deal|apply|use|buy|choose|pick|know\s+if|do\s+(?:if|when|about|with|to))\b"
    r"|\b(?:should|could|can|may|might)\s+i\b|\bhelp me\b|\b(?:can|could|would|will)\s+you\b|\brecommend\b|\bsuggest\b"
    r"|\bideas?\b|\bwrite\b|\bexplain\b",
    re.I,
)


@dataclass(frozen=True)
class MemoryAnswer:
    """The memory that answers the question. ``valid_at``: when it became true (the memory's
    ``valid_at``, else when it was said, else when it was stored), ISO; ``source``: where it
    came from ("session 3 msg 41", "cli (user)"); ``statement``: the memory addressed to the
    person ("You live in Porto."); ``slot``: answered through a profile slot."""

    memory_id: int
    text: str
    valid_at: str | None
    source: str
    statement: str
    key_terms: tuple[str, ...]
    strong_terms: tuple[str, ...]
    slot: bool = False
    said_by_person: bool = False  # trust user_stated/user_confirmed: may be voiced as the person's words

    def to_json(self, in_reply: bool, replaced: bool = False) -> dict[str, Any]:
        return {"text": self.text, "memory_id": self.memory_id, "valid_at": self.valid_at, "source": self.source,
                "in_reply": bool(in_reply), "statement": self.statement, "replaced_reply": bool(replaced)}  # fmt: skip


@dataclass(frozen=True)
class ReplyCheck:
    in_reply: bool
    contradicted: bool


# ----------------------------------------------------------------------------- words


def words(text: str) -> list[str]:
    return [w.casefold().replace("’", "'") for w in _WORD.findall(text)]


def stem(word: str) -> str:
    w = word.casefold().replace("’", "'")
    w = re.sub(r"'s$", "", w)
    for suffix in ("ies", "ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix) and not w.endswith("ss"):
            return w[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return w


#: Words people use for the same thing in a question and in a memory ("movie" / "film"). Only
#: true synonyms: a relation ("car" / "drives") is not one.
SYNONYMS = (
    {"movie", "film"}, {"born", "birth", "birthday"}, {"job", "work", "occupation", "profession", "career"},
    {"town", "city"}, {"trip", "travel", "holiday", "vacation", "journey"}, {"mom", "mum", "mother"},
    {"dad", "father"}, {"kid", "child", "children"}, {"wife", "husband", "spouse", "partner"},
    {"football", "soccer"}, {"team", "club"},
)  # fmt: skip
_SYNONYM = {w: frozenset(group) for group in SYNONYMS for w in group}


def same_word(a: str, b: str) -> bool:
    """Equal after :func:`stem`, sharing their first :data:`PREFIX` letters, or synonyms."""
    sa, sb = stem(a), stem(b)
    if sa == sb or (len(sa) >= PREFIX and len(sb) >= PREFIX and sa[:PREFIX] == sb[:PREFIX]):
        return True
    return sb in _SYNONYM.get(sa, ()) or b.casefold() in _SYNONYM.get(a.casefold(), ())


def _covered(term: str, pool: Sequence[str]) -> bool:
    return any(same_word(term, p) for p in pool)


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in STOPWORDS and w not in GENERIC and w not in _QUESTION_WORDS]


# ----------------------------------------------------------------------------- the question


def about_person(question: str) -> bool:
    """A question asking for a fact about the person ("What's my dog called?", "Where do I
    live?"), not a request for help ("How do I fix my bike?", "Can you write ...")."""
    q = question.strip()
    if not q or len(q) > 300:
        return False
    asks = q.endswith("?") or bool(re.match(r"^(?:what|which|who|whom|whose|where|when|why|how|do|did|am|is|are|was|have|had)\b", q, re.I))
    return asks and bool(_PERSON_Q.search(q)) and not _ADVICE.search(q)


def focus(question: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, optional) focus words of a question: ``required`` from the first "my <thing>"
    (its head word, plus the attribute after a possessive: "my car's licence plate" ->
    ("car", "licence", "plate")), ``optional`` the other content words."""
    toks = re.findall(r"[^\W_]+(?:['’]s)?|[?.!,]", question.casefold().replace("’", "'"))
    required: list[str] = []
    for i, tok in enumerate(toks):
        if tok != "my":
            continue
        j = i + 1
        while j < len(toks) and toks[j] in _MODIFIERS:
            j += 1
        if j >= len(toks) or not toks[j][0].isalnum():
            break
        head = toks[j]
        if head.endswith("'s"):
            required.append(head[:-2])
            for t in toks[j + 1 :]:
                if not t[0].isalnum() or t in STOPWORDS:
                    break
                if t not in GENERIC:
                    required.append(t)
        elif head not in GENERIC and head not in STOPWORDS:
            required.append(head)
        break
    optional = [w for w in content_words(question) if not any(same_word(w, r) for r in required)]
    return tuple(required), tuple(optional)


# ----------------------------------------------------------------------------- choosing


def _terms(text: str, question: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(key, strong) terms of a memory text for this question (see the module docstring)."""
    qwords = words(question)
    key: list[str] = []
    strong: list[str] = []
    for m in re.finditer(r"[^\W_]+(?:['’][^\W_]+)*|\d+(?::\d+)?", text):
        raw = m.group(0)
        w = raw.casefold().replace("’", "'")
        w = re.sub(r"'s$", "", w)
        if w in STOPWORDS or w in GENERIC or w == "user" or _covered(w, qwords):
            continue
        if w not in key:
            key.append(w)
        before = text[: m.start()].rstrip()
        initial = not before or before.endswith((".", "!", "?", ":"))
        if (raw[0].isupper() and not initial) or raw[0].isdigit():
            if w not in strong:
                strong.append(w)
    return tuple(key), tuple(strong)


def _date(m: Any) -> str | None:
    observed = next((s.observed_at for s in m.sources if s.observed_at is not None), None)
    when: datetime | None = m.valid_at or observed or m.created_at
    return when.isoformat() if when is not None else None


def _pool(m: Any) -> list[str]:
    """A memory's words and its linked entities' words."""
    return words(m.text) + [w for e in (m.entities or ()) for w in words(getattr(e, "name", e))]


def qualifies(question: str, hit: Any) -> bool:
    """Does this hit answer the question confidently (see the module docstring)?"""
    if hit.slot_answer:
        return True
    if not hit.passed_threshold:
        return False
    pool = _pool(hit.memory)
    required, optional = focus(question)
    if required:
        return all(_covered(r, pool) for r in required)
    return any(_covered(o, pool) for o in optional)


def choose(question: str, hits: Sequence[Any]) -> MemoryAnswer | None:
    """The confident memory answer among ``hits`` (best first), or None."""
    if not about_person(question) and not any(h.slot_answer for h in hits):
        return None
    for hit in hits:
        m = hit.memory
        if Kind(m.kind) not in ANSWER_KINDS or m.text.rstrip().endswith("?") or not qualifies(question, hit):
            continue  # an episode is the person's verbatim message (often the same question asked before)
        key, strong = _terms(m.text, question)
        if not key and _YES_NO.match(question):  # "Am I vegetarian?": the memory's own words are the answer
            key = tuple(dict.fromkeys(w for w in content_words(m.text) if w != "user"))
        if not key:
            continue
        said = Trust(m.trust) >= Trust.USER_CONFIRMED
        return MemoryAnswer(m.id, m.text, _date(m), source_label(m), rewrite(m.text, "second"), key, strong, hit.slot_answer, said)
    return None


def logged(m: Any, signals: dict[str, float]) -> dict[str, Any] | None:
    """The memory answer of a past turn, from its injection-log signals (``memory_answer``,
    ``in_reply``, ``replaced_reply``; see :func:`assistant.memory.retrieval.inject.log_injection`)."""
    if not signals.get("memory_answer"):
        return None
    a = MemoryAnswer(m.id, m.text, _date(m), source_label(m), rewrite(m.text, "second"), (), ())
    return a.to_json(bool(signals.get("in_reply")), bool(signals.get("replaced_reply")))


# ----------------------------------------------------------------------------- checking


def _negated(term: str, text: str) -> bool:
    """``term`` occurs in ``text`` only right after a negation ("not green", "isn't a nurse")."""
    found = False
    for m in re.finditer(r"[^\W_]+(?:['’][^\W_]+)*|\d+(?::\d+)?", text):
        if not same_word(m.group(0), term):
            continue
        found = True
        window = text[max(0, m.start() - 30) : m.start()]
        if not _NEGATION.search(window.split(",")[-1].split(".")[-1]):
            return False
    return found


def abstains(reply: str) -> bool:
    """The reply says it does not know, in its first two sentences: "The obvious answer is
    blue ... I'm not sure about the rest" states something and only hedges at the end."""
    opening = " ".join(re.split(r"(?<=[.!?])\s+", reply.strip(), maxsplit=2)[:2])
    return bool(_ABSTAIN.search(opening))


def contains(reply: str, answer: MemoryAnswer) -> bool:
    rw = words(reply)
    if answer.strong_terms:
        present = [t for t in answer.strong_terms if _phrase_in(t, rw)]
        numbers = [t for t in answer.strong_terms if t[0].isdigit()]
        names = [t for t in answer.strong_terms if not t[0].isdigit()]
        ok = all(t in present for t in numbers) and (not names or any(t in present for t in names))
    else:
        present = [t for t in answer.key_terms if _covered(t, rw)]
        ok = 2 * len(present) >= len(answer.key_terms)
    return ok and not any(_negated(t, reply) for t in present)


def _phrase_in(term: str, reply_words: Sequence[str]) -> bool:
    return term in reply_words or (not term.isdigit() and _covered(term, reply_words))


def judge(reply: str, answer: MemoryAnswer, question: str) -> ReplyCheck:
    """Does the reply say the memory answer, or contradict it (see the module docstring)?"""
    if contains(reply, answer):
        return ReplyCheck(True, False)
    required, optional = focus(question)
    subject = required or optional
    rw = words(reply)
    talks_about_it = any(_covered(s, rw) for s in subject)
    negates = any(_negated(t, reply) for t in answer.key_terms)
    return ReplyCheck(False, talks_about_it or negates or abstains(reply))


_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*\s*|\n+")
_FIRST_PERSON_START = re.compile(r"^\s*(?:I\b|I['’](?:m|ve|ll|d)\b|My\b)")


def address_person(reply: str, answer: MemoryAnswer) -> str:
    """Sentences that give the answer in the person's voice ("I'm a nurse.", the model speaking
    as the person it read about) turned to the person ("You're a nurse."); the rest unchanged."""
    terms = answer.strong_terms or answer.key_terms
    out = []
    for m in _SENTENCE.finditer(reply):
        s = m.group(0)
        if _FIRST_PERSON_START.match(s) and any(_covered(t, words(s)) for t in terms):
            s = first_to_second(s)
        out.append(s)
    return "".join(out)


def grounded(reply: str, hits: Sequence[Any], question: str) -> bool:
    """The reply names something (a name, number or other word the question did not contain)
    from an injected memory that is about what the question asks ("my grandmother's name" is not
    answered from "User's name is Dana Reis.": ``grandmother`` is not in it)."""
    rw = words(reply)
    required, _ = focus(question)
    for h in hits:
        if required and not all(_covered(r, _pool(h.memory)) for r in required):
            continue
        key, strong = _terms(h.memory.text, question)
        if any(_phrase_in(t, rw) for t in strong or key):
            return True
    return False
