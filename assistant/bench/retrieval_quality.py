"""`keepsake bench retrieval --quality`: does search find the message that holds the answer, in
a long multi-session conversation, better than plain MiniLM cosine over the raw messages?

The set (``tests/data/long_conversation.json``, or ``--set``): dated sessions over several
months, every message with an id; first-person questions, each with the ids of the user
messages that hold its answer (``sources``: any one of them counts); and ``never_said``
questions about things the person never said.

One run, in a temporary encrypted store:

1. the sessions are written as a Keepsake JSONL file and imported with ``keepsake import``'s
   own code (:func:`assistant.memory.capture.importing.importers.import_file`, rules capture, every message with
   its original time), then consolidated once (:class:`Consolidator`, as the idle job would);
2. **hybrid**: :meth:`Retriever.search` (``k=5``, the default threshold and gates); a question
   is answered when a hit's sources include one of its source messages;
3. **dense**: the same MiniLM vectors, cosine between the question and every raw *user*
   message, top 5 (no threshold);
4. **bm25**: SQLite FTS5 ``bm25()`` over the user messages (the question's terms OR-ed), top 5.

``*_recall_at_5`` = answered questions / questions. ``never_said_empty`` = the share of
never-said questions for which hybrid search returns nothing (dense and bm25 always return
something). ``by_type`` splits recall by question type; ``hybrid_misses`` lists what hybrid
search missed, with what it returned instead.
"""

from __future__ import annotations

import json
import secrets
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from assistant.config import REPO_ROOT, Settings

K = 5


def default_set() -> Path:
    return REPO_ROOT / "tests" / "data" / "long_conversation.json"


def load_set(path: Path) -> dict[str, Any]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    ids = {m["id"] for s in data["sessions"] for m in s["messages"] if m["role"] == "user"}
    for q in data["questions"]:
        missing = [s for s in q["sources"] if s not in ids]
        if missing:
            raise ValueError(f"question {q['q']!r}: unknown source message(s) {missing}")
    return data


def _write_jsonl(data: dict[str, Any], path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for s in data["sessions"]:
            for m in s["messages"]:
                fh.write(json.dumps({"session": s["id"], "role": m["role"], "content": m["content"],
                                     "timestamp": m["timestamp"]}, ensure_ascii=False) + "\n")  # fmt: skip


def build(store: Any, data: dict[str, Any], tmp: Path, *, consolidate: bool = True) -> tuple[dict[int, str], dict[str, float]]:
    """Import the set into ``store`` (and consolidate); returns store message id -> set id and timings."""
    from assistant.memory.capture.capturer import Capturer  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.consolidation.consolidator import Consolidator
    from assistant.memory.capture.importing.importers import import_file

    timings: dict[str, float] = {}
    path = tmp / "conversation.jsonl"
    _write_jsonl(data, path)
    t = time.perf_counter()
    import_file(store, path, capturer=Capturer(store, None, use_llm=False, settings=Settings(), tz=UTC))
    timings["import_s"] = round(time.perf_counter() - t, 2)
    by_title = {s.title: s for s in store.list_sessions()}
    mapping: dict[int, str] = {}
    for s in data["sessions"]:
        stored = store.messages(by_title[s["id"]].id)
        if len(stored) != len(s["messages"]):
            raise RuntimeError(f"session {s['id']}: {len(stored)} messages stored, {len(s['messages'])} in the set")
        mapping.update({m.id: d["id"] for m, d in zip(stored, s["messages"])})
    if consolidate:
        t = time.perf_counter()
        Consolidator(store).run(trigger="bench")
        timings["consolidate_s"] = round(time.perf_counter() - t, 2)
    return mapping, timings


def _hit_messages(hits: list[Any], mapping: dict[int, str]) -> list[str]:
    out: list[str] = []
    for h in hits:
        for src in h.memory.sources:
            mid = mapping.get(src.message_id) if src.message_id is not None else None
            if mid is not None and mid not in out:
                out.append(mid)
    return out


def _bm25_top(store: Any, query: str, mapping: dict[int, str], user_ids: set[int], k: int) -> list[str]:
    from assistant.memory.store.sqlite.fts import match_expression  # deferred: the store (SQLCipher, numpy)

    expr = match_expression(query)
    if expr is None:
        return []
    rows = store.conn.execute(
        "SELECT rowid FROM message_fts WHERE message_fts MATCH ? ORDER BY bm25(message_fts) LIMIT ?", (expr, 4 * k + 40)
    ).fetchall()  # fmt: skip
    return [mapping[r[0]] for r in rows if r[0] in user_ids][:k]


def _queries(embedder: Any):
    """The embedder's query embedding (its query prompt), or ``embed`` when it has none."""
    return getattr(embedder, "embed_queries", embedder.embed)


def evaluate(data: dict[str, Any], embedder: Any, *, consolidate: bool = True, threshold: float | None = None) -> dict[str, Any]:
    """Run the three searches over ``data`` (see the module docstring)."""
    from assistant.memory.retrieval.retriever import Retriever  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.store.facade import MemoryStore

    questions, never = data["questions"], data.get("never_said", [])
    with tempfile.TemporaryDirectory(prefix="keepsake-quality-") as tmp_name:
        tmp = Path(tmp_name)
        store = MemoryStore(tmp / "quality.db", key=secrets.token_hex(32), embed=embedder.embed)
        try:
            mapping, timings = build(store, data, tmp, consolidate=consolidate)
            user_msgs = [(m.id, mapping[m.id], m.content) for s in store.list_sessions() for m in store.messages(s.id)
                         if m.role.value == "user"]  # fmt: skip
            t = time.perf_counter()
            mvec = _unit(np.asarray(embedder.embed([c for _, _, c in user_msgs]), dtype=np.float32))
            qvec = _unit(np.asarray(_queries(embedder)([q["q"] for q in questions]), dtype=np.float32))
            nvec = _unit(np.asarray(_queries(embedder)(never), dtype=np.float32)) if never else np.zeros((0, mvec.shape[1]))
            timings["embed_s"] = round(time.perf_counter() - t, 2)
            retriever = Retriever(store, embedder, threshold=threshold)  # None: the embedder's own
            user_ids = {i for i, _, _ in user_msgs}
            per_q: list[dict[str, Any]] = []
            t = time.perf_counter()
            for q, v in zip(questions, qvec):
                hits = retriever.search(q["q"], k=K, vector=v)
                dense = [user_msgs[i][1] for i in np.argsort(-(mvec @ v))[:K]]
                per_q.append({
                    "q": q["q"], "type": q.get("type", ""), "sources": q["sources"],
                    "hybrid": _hit_messages(hits, mapping), "hybrid_texts": [h.memory.text[:90] for h in hits],
                    "dense": dense, "bm25": _bm25_top(store, q["q"], mapping, user_ids, K),
                })  # fmt: skip
            empty = [not retriever.search(q, k=K, vector=v) for q, v in zip(never, nvec)]
            timings["search_s"] = round(time.perf_counter() - t, 2)
            n_memories = int(store.conn.execute("SELECT count(*) FROM memories WHERE status = 'active'").fetchone()[0])
        finally:
            store.close()

    def recall(name: str, rows: list[dict[str, Any]]) -> float:
        return round(sum(bool(set(r["sources"]) & set(r[name])) for r in rows) / len(rows), 3) if rows else 0.0

    types = sorted({r["type"] for r in per_q})
    return {
        "hybrid_recall_at_5": recall("hybrid", per_q),
        "dense_recall_at_5": recall("dense", per_q),
        "bm25_recall_at_5": recall("bm25", per_q),
        "questions": len(per_q),
        "never_said": len(never),
        "never_said_empty": round(sum(empty) / len(empty), 3) if empty else None,
        "by_type": {t: {"questions": sum(r["type"] == t for r in per_q),
                        **{f"{n}_recall_at_5": recall(n, [r for r in per_q if r["type"] == t]) for n in ("hybrid", "dense", "bm25")}}
                    for t in types},  # fmt: skip
        "sessions": len(data["sessions"]),
        "messages": sum(len(s["messages"]) for s in data["sessions"]),
        "user_messages": len(user_msgs),
        "memories": n_memories,
        "consolidated": consolidate,
        "hybrid_misses": [{"q": r["q"], "sources": r["sources"], "got": r["hybrid_texts"]}
                          for r in per_q if not set(r["sources"]) & set(r["hybrid"])],  # fmt: skip
        "timings": timings,
    }


def _unit(a: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(a, axis=1, keepdims=True)
    n[n == 0] = 1.0
    return a / n


def run(args: Any) -> dict[str, Any]:
    from assistant.bench.retrieval import _embedder  # a cycle: retrieval imports this module for --quality

    data = load_set(Path(args.set) if getattr(args, "set", None) else default_set())
    embedder = _embedder(args.services.embedder_path(), getattr(args, "embed_threads", 1))
    try:
        result = evaluate(data, embedder, consolidate=not getattr(args, "no_consolidate", False))
    finally:
        embedder.close()
    result["set"] = str(Path(args.set) if getattr(args, "set", None) else default_set().name)
    result["embedder"] = getattr(embedder, "name", "")
    result["run_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    return result


def format_text(result: dict[str, Any]) -> str:
    lines = [f"{result['questions']} questions over {result['messages']} messages ({result['user_messages']} from the person, "
             f"{result['sessions']} sessions); {result['memories']} memories",
             f"{'':<19} {'recall@5':>9}",
             f"{'hybrid (Keepsake)':<19} {result['hybrid_recall_at_5']:>9.3f}",
             f"{'dense (MiniLM)':<19} {result['dense_recall_at_5']:>9.3f}",
             f"{'bm25 (FTS5)':<19} {result['bm25_recall_at_5']:>9.3f}"]  # fmt: skip
    for t, r in result["by_type"].items():
        lines.append(f"  {t:<17} n={r['questions']:<3} hybrid {r['hybrid_recall_at_5']:.3f}  dense {r['dense_recall_at_5']:.3f}  "
                     f"bm25 {r['bm25_recall_at_5']:.3f}")  # fmt: skip
    if result.get("never_said_empty") is not None:
        lines.append(f"never-said questions with no memory returned: {result['never_said_empty']:.3f} of {result['never_said']}")
    return "\n".join(lines)
