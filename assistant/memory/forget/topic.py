""""Forget X": which memories are about X, and which part of each.

:func:`propose` never deletes; it returns :class:`Candidate` s for the person to confirm (the
chat's dialog, ``keepsake chat``'s ``Forget these N? [y/N]``, ``keepsake memory forget``), and
:func:`request_for` turns the chosen ones into one :class:`ForgetRequest`.

How a memory is judged, sentence by sentence (code decides, no model):

1. **About X**: a sentence names X's content words (crude stems: "my dog" -> ``dog``, which
   also matches "dogs" and "dog's") or one of X's names. Names found in the person's statements
   about X become aliases ("My dog is called Miso." -> ``Miso``), so "Miso loves the beach." is
   about X too; the person's own name is never an alias.
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

from assistant.memory.forget import match
from assistant.memory.forget.report import ForgetRequest, PartCut
from assistant.memory.forget.scope import full_text
from assistant.memory.rows import IN_IDS, ids_json

POOL = 500  # memories naming the topic looked at (all of them, in practice)
SIMILAR_MIN = 0.55
SIMILAR_CONFIDENCE = 0.2
_QUESTION = re.compile(
    r"^\s*(?:(?:hey|hi|ok|so|and|but)[,\s]+)*(?:what|what's|where|when|who|whom|whose|why|how|which|is|are|am|was|were|"
    r"do|does|did|can|could|would|will|should|shall|may|have|has)\b", re.I)  # fmt: skip
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


def _fts(store: Any, terms: set[str]) -> set[int]:
    if not terms:
        return set()
    query = " OR ".join('"' + t.replace('"', '""') + '"*' for t in sorted(terms) if t)
    sql = (
        "SELECT m.id FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid WHERE memory_fts MATCH ? "
        f"AND m.status != 'deleted' ORDER BY bm25(memory_fts) LIMIT {POOL}"
    )
    try:
        return {int(r[0]) for r in store.conn.execute(sql, (query,))}
    except Exception:  # noqa: BLE001 - a term the FTS parser refuses: retrieval still proposes
        return set()


def _person_names(store: Any) -> set[str]:
    rows = store.conn.execute("SELECT text FROM memories WHERE slot = 'name' AND status != 'deleted'").fetchall()
    return match.identifiers("\n".join(r[0] for r in rows))


def _about(text: str, stems: set[str], names: set[str]) -> list[match.Span]:
    return [(s, e) for s, e in match.sentence_spans(text) if match.mentions(text[s:e], stems, names)]


def propose(store: Any, retriever: Any, query: str, *, k: int = 12) -> list[Candidate]:
    """Memories about ``query`` (see the module docstring), pre-ticked ones first: every one
    that names it, then at most enough merely similar ones to reach ``k``."""
    stems = match.topic_stems(query)
    names = match.identifiers(query) | {w.casefold() for w in match.words(query) if any(c.isupper() for c in w)}
    names -= {"i", "user"}
    similar: dict[int, float] = {}
    if retriever is not None:
        try:
            similar = {h.memory.id: float(h.score) for h in retriever.search(query, k=k)}
        except Exception:  # noqa: BLE001 - retrieval is a help here; words still find the rest
            similar = {}
    pool = _fts(store, stems | names) | set(similar) | _offloaded(store, stems, names)
    texts = _texts(store, pool)
    aliases = set()
    for text in texts.values():
        for s, e in _about(text, stems, names):
            if is_statement(text[s:e]):
                aliases |= match.identifiers(text[s:e])
    aliases -= _person_names(store) | names
    if aliases:
        pool |= _fts(store, aliases) | _offloaded(store, set(), aliases)
        texts = _texts(store, pool)
    out = []
    for mid, text in texts.items():
        cand = _judge(store, mid, text, stems, names, aliases, similar.get(mid))
        if cand is not None:
            out.append(cand)
    out.sort(key=lambda c: (not c.pre_ticked, -c.confidence, c.memory_id))
    about = [c for c in out if c.confidence > SIMILAR_CONFIDENCE]
    return about + [c for c in out if c.confidence <= SIMILAR_CONFIDENCE][: max(0, k - len(about))]


def _texts(store: Any, ids: set[int]) -> dict[int, str]:
    """Memory texts, an offloaded episode's whole text in place of its preview + pointer."""
    rows = store.conn.execute(
        f"SELECT id, text FROM memories WHERE id IN {IN_IDS} AND status IN ('active', 'resolving', 'archived')", (ids_json(ids),)
    ).fetchall()
    return {int(r[0]): full_text(store.conn, r[1]) for r in rows}


def _offloaded(store: Any, stems: set[str], names: set[str]) -> set[int]:
    """Memories pointing at an offloaded text (a long message's episode) that names the topic."""
    out: set[int] = set()
    for ref, text in store.conn.execute("SELECT ref, text FROM context_offloads WHERE kind = 'message'").fetchall():
        if any(match.mentions(text[s:e], stems, names) for s, e in match.sentence_spans(text)):
            like = "%" + ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "]"
            out |= {int(r[0]) for r in store.conn.execute("SELECT id FROM memories WHERE text LIKE ? ESCAPE '\\'", (like,))}
    return out


def _judge(store: Any, mid: int, text: str, stems: set[str], names: set[str], aliases: set[str], score: float | None) -> Candidate | None:
    direct = _about(text, stems, names)
    via_alias = [sp for sp in _about(text, set(), aliases) if sp not in direct]
    spans = match.merge_spans(direct + via_alias)
    m = store.get(mid)
    valid = m.valid_at.isoformat() if m.valid_at else None
    if not spans:
        if score is None or score < SIMILAR_MIN:
            return None
        return Candidate(mid, text, m.kind.value, valid, SIMILAR_CONFIDENCE, False, (text,), "", "only similar in meaning; it does not name it")
    statements = [sp for sp in spans if is_statement(text[sp[0]:sp[1]])]
    kept = match.remove_spans(text, spans)
    removed = tuple(text[s:e] for s, e in spans)
    if not statements:
        why = "a question or request you made, not something about you"
        return Candidate(mid, text, m.kind.value, valid, 0.3, False, removed, kept if match.normalize(kept) else "", why)
    conf = 0.9 if any(sp in direct for sp in statements) else 0.7
    why = "says it in so many words" if conf == 0.9 else f"names {', '.join(sorted(aliases & match.identifiers_loose(' '.join(removed))))}"
    return Candidate(mid, text, m.kind.value, valid, conf, True, removed, kept if match.normalize(kept) else "", why)


def request_for(chosen: Sequence[Candidate]) -> ForgetRequest:
    """One request for the chosen candidates: whole memories go, the others lose their part."""
    whole = tuple(c.memory_id for c in chosen if c.whole)
    parts = tuple(PartCut(c.memory_id, c.removed) for c in chosen if not c.whole)
    return ForgetRequest(memory_ids=whole, parts=parts)
