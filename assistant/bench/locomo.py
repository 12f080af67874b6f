"""`keepsake bench locomo --data DIR`: Keepsake on LoCoMo (Maharana et al., ACL 2024, "Evaluating
Very Long-Term Conversational Memory of LLM Agents"; snap-research/locomo), next to two baselines
measured in the same run (issue 28.7).

For every conversation file in ``DIR`` (LoCoMo's JSON: ``speaker_a``, ``session_N`` turns with
``dia_id``, ``session_N_date_time``, ``qa``):

1. **Import**: a fresh store; each LoCoMo session is a Keepsake session, ``speaker_a`` is the
   person (role user), ``speaker_b`` the other side (role assistant), every message observed at
   its session's date; the person's messages go through the real capture (rules, as live chat).
2. **Questions**: those about ``speaker_a`` whose evidence turns are all ``speaker_a``'s
   (category 5, adversarial, has no answer and is left out), turned into the first person by
   code ("What martial arts has John done?" -> "What martial arts have I done?").
3. **Recall@5** of the evidence turn (any of them): Keepsake's retriever (a hit counts when one
   of its source messages is an evidence turn); ``dense``: MiniLM cosine over the person's raw
   turns; ``bm25``: Okapi BM25 (k1 1.2, b 0.75) over the same turns.
4. **Answer shown** (``--limit`` questions per conversation, spread evenly; default 8, so the
   default run takes minutes, not hours): the gold answer is in what the person is shown (the
   reply and the memory answer under it) through the real :class:`ChatSession`, against
   **naive RAG**: the same chat model with the top-5 dense turns pasted into the system prompt.
   "Contains the gold answer": at least half of the gold answer's content words (all of them
   for one or two words) occur in the text, case-folded.

JSON: ``questions``, ``recall_at_5``, ``dense_recall_at_5``, ``bm25_recall_at_5``,
``answer_questions``, ``answer_shown``, ``naive_rag_answer_shown``, and the same under
``by_category`` (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop).
"""

from __future__ import annotations

import json
import math
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

CATEGORIES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop"}
NAIVE_PROMPT = "You are a helpful assistant. Things the user said in earlier conversations:\n{turns}"
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP = frozenset("a an the and or of to in on at for with by is was are were be been it its that this from as i my me".split())


def add_arguments(p) -> None:
    p.add_argument("--data", metavar="DIR", required=True, help="folder of LoCoMo conversation JSON files")
    p.add_argument("--limit", type=int, default=8, help="questions per conversation run through the chat model (0: none)")
    p.add_argument("--model", metavar="GGUF", default=None, help="chat model (default: the configured one)")
    p.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: the configured number)")
    p.add_argument("--details", action="store_true", help="include every question in the JSON")


# ----------------------------------------------------------------------------- data


def parse_date(text: str) -> datetime:
    """"11:01 am on 17 December, 2022" -> 2022-12-17 11:01 UTC."""
    m = re.match(r"\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", text, re.I)
    if m is None:
        raise ValueError(f"unreadable LoCoMo date {text!r}")
    hour = int(m[1]) % 12 + (12 if m[3].lower() == "pm" else 0)
    month = datetime.strptime(m[5][:3], "%b").month
    return datetime(int(m[6]), month, int(m[4]), hour, int(m[2]), tzinfo=UTC)


def sessions(conv: dict[str, Any]) -> list[tuple[datetime, list[dict[str, Any]]]]:
    out = []
    n = 1
    while f"session_{n}" in conv:
        out.append((parse_date(conv[f"session_{n}_date_time"]), conv[f"session_{n}"]))
        n += 1
    return out


def first_person(question: str, name: str) -> str:
    """A question about ``name`` asked by ``name`` ("When did John go to Paris?" -> "When did I go
    to Paris?", "What is John's job?" -> "What is my job?")."""
    n = re.escape(name)
    q = re.sub(rf"\b{n}['’]s\b", "my", question)
    q = re.sub(rf"\b(is|was|has|does|did|will|would|can|could|should)\s+{n}\b",
               lambda m: {"is": "am", "has": "have", "does": "do"}.get(m[1].lower(), m[1]) + " I", q, flags=re.I)  # fmt: skip
    q = re.sub(rf"\b{n}\s+(is|has|was)\b", lambda m: "I " + {"is": "am", "has": "have"}.get(m[1], m[1]), q)
    q = re.sub(rf"^{n}\b", "I", q)
    q = re.sub(rf"\b(?:to|with|for|about|from|of|by|at|than|give|gave|told|tell|asked|help|helped)\s+{n}\b",
               lambda m: m[0][: -len(name)] + "me", q)  # fmt: skip
    q = re.sub(rf"\b{n}\b", "I", q)
    if not re.search(r"\b(?:he|she|they)\b", question.replace(name, ""), re.I):
        q = re.sub(r"\b(?:his|her)\b", "my", q)
        q = re.sub(r"\b(?:him)\b", "me", q)
        q = re.sub(r"\b(?:he|she)\b", "I", q)
    return q


def eligible(conv: dict[str, Any], qa: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Questions about speaker_a whose evidence is speaker_a's turns (category 5 left out)."""
    a = conv["speaker_a"]
    by_turn = {t["dia_id"]: t["speaker"] for _, turns in sessions(conv) for t in turns}
    out = []
    for q in qa:
        ev = [e.strip() for e in q.get("evidence", []) for e in e.split(";")]
        if q.get("category") not in CATEGORIES or not ev or "answer" not in q:
            continue
        if all(by_turn.get(e) == a for e in ev) and a in q["question"]:
            out.append({"q": first_person(q["question"], a), "original": q["question"], "answer": str(q["answer"]),
                        "evidence": ev, "category": q["category"]})  # fmt: skip
    return out


_MONTHS = ("January February March April May June July August September October November December").split()
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def _spelled_dates(text: str) -> str:
    """``text`` with each ISO date also written as LoCoMo writes dates ("2023-05-07" -> "2023-05-07
    7 May 2023"): the memory line dates what it shows in ISO form, the gold answers spell them."""
    return _ISO_DAY.sub(lambda m: f"{m[0]} {int(m[3])} {_MONTHS[int(m[2]) - 1]} {m[1]}" if 1 <= int(m[2]) <= 12 else m[0], text)


def contains_gold(text: str, gold: str) -> bool:
    """At least half of the gold answer's content words (all, for one or two) are in ``text``
    (its ISO dates read as spelled dates too)."""
    g = [w for w in _WORD.findall(gold.casefold()) if w not in _STOP]
    if not g:
        return False
    have = set(_WORD.findall(_spelled_dates(text).casefold()))
    hit = sum(w in have for w in g)
    return hit == len(g) if len(g) <= 2 else 2 * hit >= len(g)


# ----------------------------------------------------------------------------- baselines


class BM25:
    """Okapi BM25 over tokenised documents: ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``,
    ``score = sum idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen))``."""

    def __init__(self, docs: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [Counter(w for w in _WORD.findall(d.casefold()) if w not in _STOP) for d in docs]
        self.lens = np.array([sum(d.values()) for d in self.docs], dtype=float)
        self.avg = float(self.lens.mean()) if len(self.docs) else 1.0
        df = Counter(w for d in self.docs for w in d)
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.k1, self.b = k1, b

    def top(self, query: str, k: int) -> list[int]:
        terms = [w for w in _WORD.findall(query.casefold()) if w in self.idf]
        scores = np.zeros(len(self.docs))
        for i, d in enumerate(self.docs):
            s = 0.0
            for t in terms:
                tf = d.get(t, 0)
                if tf:
                    s += self.idf[t] * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self.lens[i] / self.avg))
            scores[i] = s
        return [int(i) for i in np.argsort(-scores)[:k]]


def _unit(m: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.where(n == 0, 1, n)


# ----------------------------------------------------------------------------- running


def run_conversation(path: Path, embedder: Any, model: Any, limit: int, home: str) -> list[dict[str, Any]]:
    from assistant.config import Settings
    from assistant.context.assembler import DEFAULT_SYSTEM_PROMPT
    from assistant.engine.chat import ChatMessage
    from assistant.memory.capture.capturer import Capturer
    from assistant.memory.records import Role
    from assistant.memory.retrieval.retriever import Retriever
    from assistant.memory.store.facade import MemoryStore
    from assistant.answering import memory_line, show_memory_line
    from assistant.session import ChatSession

    conv = json.loads(path.read_text(encoding="utf-8"))
    qa = conv.get("qa", [])
    conv = conv.get("conversation", conv)
    a = conv["speaker_a"]
    store = MemoryStore(Path(home) / f"{path.stem}.db", key="ab" * 32, embed=embedder.embed)
    try:
        dia: dict[int, str] = {}
        turns: list[tuple[str, str]] = []  # (dia_id, text) of the person's turns
        user_ids = []
        for i, (when, ts) in enumerate(sessions(conv), start=1):
            sid = store.create_session(title=f"LoCoMo {path.stem} session {i}").id
            for t in ts:
                role = Role.USER if t["speaker"] == a else Role.ASSISTANT
                msg = store.add_message(sid, role, t["text"], observed_at=when)
                dia[msg.id] = t["dia_id"]
                if role is Role.USER:
                    turns.append((t["dia_id"], t["text"]))
                    user_ids.append(msg.id)
        Capturer(store, use_llm=False, settings=Settings()).capture_many(user_ids)
        retriever = Retriever(store, embedder)
        qs = eligible(conv, qa)
        dense = _unit(np.asarray(embedder.embed([t for _, t in turns]), dtype=np.float32))
        bm25 = BM25([t for _, t in turns])
        step = max(1, len(qs) // limit) if limit else 0
        answered = set(range(0, len(qs), step)[:limit]) if limit else set()
        rows = []
        for n, q in enumerate(qs):
            ev = set(q["evidence"])
            hits = retriever.search(q["q"], k=5)
            got = {dia.get(s.message_id) for h in hits for s in h.memory.sources if s.message_id is not None}
            qv = _unit(np.asarray(getattr(embedder, "embed_queries", embedder.embed)([q["q"]])[0], dtype=np.float32))
            top_dense = [int(i) for i in np.argsort(-(dense @ qv))[:5]]
            row = {"file": path.name, "q": q["q"], "answer": q["answer"], "category": q["category"],
                   "recall_at_5": bool(got & ev), "dense_recall_at_5": any(turns[i][0] in ev for i in top_dense),
                   "bm25_recall_at_5": any(turns[i][0] in ev for i in bm25.top(q["q"], 5))}  # fmt: skip
            if n in answered and model is not None:
                print(f"[locomo {path.stem} {n}] {q['q']}", file=sys.stderr, flush=True)
                chat = ChatSession(store, model, store.create_session(title="bench").id, settings=Settings(),
                                   retriever=retriever, capture=None)  # fmt: skip
                try:
                    turn = chat.send(q["q"], max_tokens=96)
                finally:
                    chat.close()
                ma = turn.memory_answer
                seen = turn.reply + ("\n" + memory_line(ma) if show_memory_line(ma) else "")  # what the person sees
                pasted = "\n".join(f"- {turns[i][1]}" for i in top_dense)
                naive, _ = model.complete([ChatMessage("system", NAIVE_PROMPT.format(turns=pasted) if pasted else DEFAULT_SYSTEM_PROMPT),
                                           ChatMessage("user", q["q"])], max_tokens=96, temperature=0.2)  # fmt: skip
                row.update(answer_shown=contains_gold(seen, q["answer"]), naive_rag_answer_shown=contains_gold(naive, q["answer"]),
                           reply=turn.reply, memory_answer=ma["text"] if ma else None, naive_reply=naive)  # fmt: skip
            rows.append(row)
        return rows
    finally:
        store.close()


def _rate(rows: list[dict[str, Any]], key: str) -> float | None:
    rs = [r for r in rows if key in r]
    return round(sum(bool(r[key]) for r in rs) / len(rs), 3) if rs else None


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def block(rs: list[dict[str, Any]]) -> dict[str, Any]:
        return {"questions": len(rs), "recall_at_5": _rate(rs, "recall_at_5"), "dense_recall_at_5": _rate(rs, "dense_recall_at_5"),
                "bm25_recall_at_5": _rate(rs, "bm25_recall_at_5"), "answer_questions": sum("answer_shown" in r for r in rs),
                "answer_shown": _rate(rs, "answer_shown"), "naive_rag_answer_shown": _rate(rs, "naive_rag_answer_shown")}  # fmt: skip

    out = block(rows)
    out["by_category"] = {CATEGORIES[c]: block([r for r in rows if r["category"] == c]) for c in sorted(CATEGORIES)
                          if any(r["category"] == c for r in rows)}  # fmt: skip
    return out


def run(args) -> dict[str, Any]:
    from assistant.bench import keepsake_home
    from assistant.cli.common import UserError
    from assistant.engine import registry
    from assistant.engine.chat import LlamaChatModel
    from assistant.engine.embedder import LlamaEmbedder

    files = sorted(Path(args.data).glob("*.json"))
    if not files:
        raise UserError(f"no LoCoMo conversation (*.json) in {args.data}")
    settings = args.services.settings
    threads = args.threads or settings.threads
    embedder = LlamaEmbedder(args.services.embedder_path(), n_threads=threads)
    model = None
    if args.limit:
        model = LlamaChatModel(registry.resolve_chat(args.model or settings.chat_model), n_ctx=settings.context_size, n_threads=threads)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as home, keepsake_home(home):
            for f in files:
                rows += run_conversation(f, embedder, model, args.limit, home)
    finally:
        embedder.close()
        if model is not None:
            model.close()
    out = summary(rows)
    out.update(conversations=len(files), answer_limit_per_conversation=args.limit, model=model.name if model else None,
               threads=threads, seconds=round(time.perf_counter() - started, 1))  # fmt: skip
    if args.details:
        out["rows"] = rows
    return out


def format_text(result: dict[str, Any]) -> str:
    lines = [f"LoCoMo: {result['conversations']} conversations, {result['questions']} questions ({result['seconds']} s)",
             f"{'':<12} {'n':>4} {'keepsake r@5':>12} {'dense r@5':>9} {'bm25 r@5':>8} {'answered':>8} {'shown':>6} {'naive RAG':>9}"]  # fmt: skip
    for name, b in [("all", result), *result["by_category"].items()]:
        lines.append(f"{name:<12} {b['questions']:>4} {b['recall_at_5']!s:>12} {b['dense_recall_at_5']!s:>9} {b['bm25_recall_at_5']!s:>8} "
                     f"{b['answer_questions']:>8} {b['answer_shown']!s:>6} {b['naive_rag_answer_shown']!s:>9}")  # fmt: skip
    return "\n".join(lines)
