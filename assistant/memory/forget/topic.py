""""Forget X": which memories are about X, and which part of each.

:func:`propose` never deletes; it returns :class:`Candidate` s for the person to confirm (the
chat's dialog, ``keepsake chat``'s ``Forget these N? [y/N]``, ``keepsake memory forget``), and
:func:`request_for` turns the chosen ones into one :class:`ForgetRequest`.

How a memory is judged, sentence by sentence (code decides, no model):

1. **About X**: a sentence names X's content words (crude stems: "my dog" -> ``dog``, which
   also matches "dogs" and "dog's") or, when X has a name ("my friend Lea"), that name (X's
   words without any name - "a friend from school" - are proposed, not pre-ticked). The name X
   goes by in the person's statements becomes an alias ("My dog is called Miso." -> ``Miso``),
   so "Miso loves the beach." is about X too; the person's own name is never an alias.
2. **A statement, or not**: a question ("What's my dog's name?") or a request ("Write a story
   about a nurse and her dog") says nothing about the person: proposed, never pre-ticked.
3. **Whole or part**: a memory whose every sentence is about X goes whole; one that also holds
   other facts ("Hi, I'm Dana. I live in Porto. My dog is called Miso.") loses only the sentences
   about X - what stays is shown, and the same sentences leave its source message.

Pre-ticked: statements about X, by their own words (confidence 0.9) or an alias (0.7). Not
pre-ticked: questions and requests (0.3), memories only semantically close to X (retrieval
score >= ``SIMILAR_MIN``, 0.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from assistant.memory.language import match
from assistant.memory.store.forgetting.report import ForgetRequest, PartCut
from assistant.memory.store.forgetting import finding

POOL = 500  # memories naming the topic looked at (all of them, in practice)
MAX_ALIASES = 20
SIMILAR_MIN = 0.55
SIMILAR_CONFIDENCE = 0.2
_QUESTION = re.compile(
    r"^\s*(?:(?:hey|hi|ok|so|and|but)[,\s]+)*(?:what|what's|where|when|who|whom|whose|why|how|which|is|are|am|was|were|"
    r"do|does|did|can|could|would|will|should|shall|may|have|has)\b", re.I)  # fmt: skip
# "My dog is called Miso", "a dog named Miso", "her name is Miso": the name X goes by
_NAMING = re.compile(r"\b(?:called|named|name is|name's|nicknamed)\s+([A-Z][\w'\u2019-]*)")
_REQUEST = re.compile(
    r"^\s*(?:(?:hey|hi|ok|so|and)[,\s]+)*(?:please\s+)?(?:write|tell|give|make|create|list|explain|show|help|suggest|draft|"
    r"summari[sz]e|translate|find|generate|describe|compose|plan|recommend|imagine|let's)\b", re.I)  # fmt: skip


@dataclass(frozen=True)
class Candidate:
    memory_id: int
    text: str
    kind: str
    valid_at: str | None
    confidence: float
    pre_ticked: bool
    removed: tuple[str, ...]  # the sentences that go
    kept: str  # what stays ("" when the memory goes whole)
    reason: str

    @property
    def whole(self) -> bool:
        return not self.kept

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Candidate":
        return cls(int(d["id"]), str(d["text"]), str(d["kind"]), d.get("valid_at"), float(d["confidence"]),
                   bool(d["pre_ticked"]), tuple(d["removed"]), str(d["kept"]), str(d.get("reason", "")))  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.memory_id, "text": self.text, "kind": self.kind, "valid_at": self.valid_at,
            "confidence": self.confidence, "pre_ticked": self.pre_ticked, "whole": self.whole,
            "removed": list(self.removed), "kept": self.kept, "reason": self.reason,
        }  # fmt: skip


def is_statement(sentence: str) -> bool:
    s = sentence.strip()
    return not (s.endswith("?") or _QUESTION.match(s) or _REQUEST.match(s))


@dataclass
class Topic:
    """What "forget X" is about: X's content stems, the names it gives, and aliases (names the
    person's statements about X gave it). With names in X ("my friend Lea"), a sentence naming
    X's words but another name ("my friend Tom") is about someone else."""

    stems: set[str]
    names: set[str]
    aliases: set[str]

    @classmethod
    def of(cls, query: str) -> "Topic":
        from assistant.memory.language.validate import stem, words

        names = match.identifiers(query) | {w.casefold() for w in words(query) if any(c.isupper() for c in w)}
        names -= {"i", "user"}
        return cls(match.topic_stems(query) - {stem(n) for n in names}, names, set())

    def direct(self, sentence: str) -> bool:
        """Names X, or (when X has no name) says X's words."""
        if match.mentions(sentence, set(), self.names):
            return True
        return not self.names and bool(self.stems) and match.mentions(sentence, self.stems, set())

    def loose(self, sentence: str) -> bool:
        """X has a name, and this says X's words without any name ("a friend from school" for
        "my friend Lea"): maybe about X, never pre-ticked."""
        return bool(self.names and self.stems) and match.mentions(sentence, self.stems, set()) and not match.identifiers(sentence)

    def via_alias(self, sentence: str) -> bool:
        return bool(self.aliases) and match.mentions(sentence, set(), self.aliases)

    def spans(self, text: str) -> tuple[list[match.Span], list[match.Span], list[match.Span]]:
        """(clauses about X in its own words, about X through an alias, maybe about X)."""
        direct, alias, loose = [], [], []
        for s, e in match.clause_spans(text):
            if self.direct(text[s:e]):
                direct.append((s, e))
            elif self.via_alias(text[s:e]):
                alias.append((s, e))
            elif self.loose(text[s:e]):
                loose.append((s, e))
        return direct, alias, loose

    def terms(self) -> set[str]:
        return self.stems | self.names | self.aliases


def _fts(store: Any, terms: set[str]) -> set[int]:
    return store.read(lambda c: finding.fts_ids(c, terms, POOL))


def _person_names(store: Any) -> set[str]:
    return match.identifiers("\n".join(store.read(finding.name_texts)))


def propose(store: Any, retriever: Any, query: str, *, k: int = 12) -> list[Candidate]:
    """Memories about ``query`` (see the module docstring), pre-ticked ones first: every one
    that names it, then at most enough merely similar ones to reach ``k``."""
    topic = Topic.of(query)
    similar: dict[int, float] = {}
    if retriever is not None:
        try:
            similar = {h.memory.id: float(h.score) for h in retriever.search(query, k=k)}
        except Exception:  # noqa: BLE001 - retrieval is a help here; words still find the rest
            similar = {}
    pool = _fts(store, topic.terms()) | set(similar) | _offloaded(store, topic)
    rows = _rows(store, pool)
    found: dict[str, int] = {}
    for _kind, _valid, text in rows.values():
        for s, e in topic.spans(text)[0]:
            if is_statement(text[s:e]):
                for m in _NAMING.finditer(text[s:e]):
                    name = m.group(1).casefold().removesuffix("'s")
                    found[name] = found.get(name, 0) + 1
    person = _person_names(store)
    topic.aliases = {n for n, _ in sorted(found.items(), key=lambda x: -x[1]) if n not in person and n not in topic.names}
    topic.aliases = set(list(topic.aliases)[:MAX_ALIASES])
    if topic.aliases:
        pool |= _fts(store, topic.aliases) | _offloaded(store, topic)
        rows = _rows(store, pool)
    out = []
    for mid, (kind, valid, text) in rows.items():
        cand = _judge(mid, kind, valid, text, topic, similar.get(mid))
        if cand is not None:
            out.append(cand)
    out.sort(key=lambda c: (not c.pre_ticked, -c.confidence, c.memory_id))
    about = [c for c in out if c.confidence > SIMILAR_CONFIDENCE]
    return about + [c for c in out if c.confidence <= SIMILAR_CONFIDENCE][: max(0, k - len(about))]


def _rows(store: Any, ids: set[int]) -> dict[int, tuple[str, str | None, str]]:
    return store.read(lambda c: finding.memory_rows(c, ids))


def _offloaded(store: Any, topic: Topic) -> set[int]:
    """Memories pointing at an offloaded text (a long message's episode) that names the topic."""
    out: set[int] = set()
    terms = [t for t in topic.terms() if t]
    for ref, text in store.read(finding.offloaded_messages):
        low = text.casefold()
        if any(t in low for t in terms) and any(topic.spans(text)[:2]):
            out |= store.read(lambda c, ref=ref: finding.pointing_at(c, ref))
    return out


def _judge(mid: int, kind: str, valid: str | None, text: str, topic: Topic, score: float | None) -> Candidate | None:
    direct, via_alias, loose = topic.spans(text)
    spans = match.merge_spans(direct + via_alias)
    if not spans and loose:
        kept = match.remove_spans(text, loose)
        return Candidate(mid, text, kind, valid, 0.4, False, tuple(text[s:e] for s, e in loose),
                         kept if match.normalize(kept) else "", "says it without the name: maybe someone else")  # fmt: skip
    if not spans:
        if score is None or score < SIMILAR_MIN:
            return None
        return Candidate(mid, text, kind, valid, SIMILAR_CONFIDENCE, False, (text,), "", "only similar in meaning; it does not name it")
    statements = [sp for sp in spans if is_statement(text[sp[0]:sp[1]])]
    kept = match.remove_spans(text, spans)
    kept = kept if match.normalize(kept) else ""
    removed = tuple(text[s:e] for s, e in spans)
    if not statements:
        return Candidate(mid, text, kind, valid, 0.3, False, removed, kept, "a question or request you made, not something about you")
    conf = 0.9 if any(sp in direct for sp in statements) else 0.7
    why = "says it in so many words" if conf == 0.9 else f"names {', '.join(sorted(topic.aliases & match.identifiers_loose(' '.join(removed))))}"
    return Candidate(mid, text, kind, valid, conf, True, removed, kept, why)


def request_for(chosen: Sequence[Candidate]) -> ForgetRequest:
    """One request for the chosen candidates: whole memories go, the others lose their part."""
    whole = tuple(c.memory_id for c in chosen if c.whole)
    parts = tuple(PartCut(c.memory_id, c.removed) for c in chosen if not c.whole)
    return ForgetRequest(memory_ids=whole, parts=parts)
