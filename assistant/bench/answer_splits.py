"""`keepsake bench answers --split dev|dev2|dev3|heldout`: the evaluation sets written apart from the rules
(issue 28), run through the real capture, retrieval and ChatSession.

Each set (``tests/data/answers_dev.json``, ``answers_dev2.json``: a second tuning set by
another tester, added 2026-12-05; ``answers_dev3.json``: a third, a Glasgow nurse, by yet another
tester, added 2026-12-05 (third session) after dev2 had been tuned to; ``answers_dev4.json``: a fourth, a
German hydrologist in Porto, by another tester, added 2026-12-06 (sixth session); ``answers_heldout.json``,
never tuned on) holds ``memories`` (a
first-person statement ``said`` on ``said_on``, in one of the six capture languages),
``questions`` about them (``q``, the values one of which the person must be shown ``expect``,
the memory ``key``, ``lang``, ``style``: plain, indirect, imperative, casual, typo,
other_lang), ``general`` questions that must never be refused, and ``never_said`` questions
about the person's life that were never answered.

**Seeding**: each statement is sent through the real capture (:class:`Capturer`, rules only, as
live chat does) as a message the person wrote on ``said_on``; the memories it gives (episode,
profile, facts) belong to its key.

**Scores** (on top of ``correct``, ``in_reply``, ``loops``, ``leaks``, ``invented`` of
:mod:`assistant.bench.answers`):

- ``recall_at_5``: questions whose key's memories include one of the top 5 retrieved (what the
  memory answer is chosen from, below the threshold included); ``injected_recall_at_5``: among
  the top 5 that passed the threshold (what the model is shown);
- ``general_refused``: general questions whose reply code replaced or refused
  (``correction`` "unknown" or "memory"); ``general_abstained``: the model itself said it did
  not know (model quality, for context);
- ``idk_when_known``: questions about something said whose shown reply is "I don't know" (code's
  or the model's) with no memory answer;
- ``wrong_memory``: questions shown a memory answer that does not hold the expected value;
- ``by_lang``, ``by_style``: ``correct`` per language and per phrasing style.

``--code-only`` skips the chat model: the memory answer code picks is scored alone (``correct``
= the expected value is in the memory answer; ``general_refusable``: general questions code
would treat as asking for a fact of the person's life). Quick, for tuning on ``--split dev``.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data"
SPLITS = {"dev": "answers_dev.json", "dev2": "answers_dev2.json", "dev3": "answers_dev3.json", "dev4": "answers_dev4.json", "heldout": "answers_heldout.json"}


def load(split: str, set_path: str | None = None) -> dict[str, Any]:
    """The split's file, or ``set_path`` (a scratch set of the same shape) when given."""
    from assistant.cli.common import UserError

    path = Path(set_path) if set_path else DATA_DIR / SPLITS.get(split, SPLITS["dev"])
    if not path.is_file():
        raise UserError(f"'keepsake bench answers --split {split}' needs {path} (a source checkout: make bench)")
    return json.loads(path.read_text(encoding="utf-8"))


def seed_said(store: Any, data: dict[str, Any]) -> dict[str, set[int]]:
    """Send every statement through the real capture as a message observed on ``said_on``;
    returns key -> the ids of the memories it gave."""
    from assistant.config import Settings
    from assistant.memory.capture.capturer import Capturer
    from assistant.memory.records import Role

    capturer = Capturer(store, use_llm=False, settings=Settings())
    sid = store.create_session(title="said").id
    out: dict[str, set[int]] = {}
    for m in data["memories"]:
        day = datetime.fromisoformat(m["said_on"]).replace(hour=12, tzinfo=UTC)
        msg = store.add_message(sid, Role.USER, m["said"], observed_at=day)
        res = capturer.capture_message(msg.id)
        ids = {i for i in [res.episode_id, *res.memory_ids] if i is not None}
        out.setdefault(m["key"], set()).update(ids)
    return out


def _has(expect: list[str], text: str) -> bool:
    low = text.casefold()
    return any(e.casefold() in low for e in expect)


def answer_text(ma: dict[str, Any] | None) -> str:
    """The memory answer as shown: its text (and English reading, for a memory in another
    language) and the memories shown with it."""
    if not ma:
        return ""
    return "\n".join(t for a in (ma, *ma.get("also", [])) for t in (a["text"], a.get("english")) if t)


def recall_rows(retriever: Any, data: dict[str, Any], keys: dict[str, set[int]], k: int = 5) -> dict[str, tuple[bool, bool]]:
    """question -> (recall, injected recall): for each of its keys (one, or a list when two
    memories answer together), one of the key's memories is among the top ``k`` the memory
    answer is chosen from (``include_rejected``: below the threshold too, as a chat turn does),
    and among the top ``k`` that passed the threshold (injected into the prompt)."""
    out = {}
    for q in data["questions"]:
        hits = retriever.search(q["q"], k=k, include_rejected=True)
        seen = {h.memory.id for h in hits}
        injected = {h.memory.id for h in hits if h.passed_threshold}
        wanted = q["key"] if isinstance(q["key"], list) else [q["key"]]
        out[q["q"]] = (all(seen & keys.get(key, set()) for key in wanted), all(injected & keys.get(key, set()) for key in wanted))
    return out


def code_only(retriever: Any, data: dict[str, Any], keys: dict[str, set[int]], limit: int | None) -> dict[str, Any]:
    """Memory answers decided by code, no chat model (see the module docstring)."""
    from assistant.memory.retrieval import answer as memanswer

    rows = []
    qs = data["questions"][:limit] if limit else data["questions"]
    recall = recall_rows(retriever, {"questions": qs}, keys)
    for q in qs:
        a = memanswer.choose(q["q"], retriever.search(q["q"], k=memanswer.POOL, include_rejected=True), retriever.matcher)
        ma = a.to_json(False) if a else None
        shown = answer_text(ma)
        rows.append({"kind": "question", "q": q["q"], "key": str(q["key"]), "lang": q["lang"], "style": q["style"],
                     "expect": q["expect"], "memory_answer": ma, "correct": _has(q["expect"], shown),
                     "wrong_memory": ma is not None and not _has(q["expect"], shown), "recall_at_5": recall[q["q"]][0],
                     "injected_recall_at_5": recall[q["q"]][1]})  # fmt: skip
    for g in data["general"]:
        a = memanswer.choose(g["q"], retriever.search(g["q"], k=memanswer.POOL, include_rejected=True), retriever.matcher)
        rows.append({"kind": "general", "q": g["q"], "refusable": memanswer.about_person(g["q"], retriever.matcher),
                     "memory_answer": a is not None})
    for q in data["never_said"]:
        a = memanswer.choose(q["q"], retriever.search(q["q"], k=memanswer.POOL, include_rejected=True), retriever.matcher)
        rows.append({"kind": "never_said", "q": q["q"], "invented": a is not None, "memory_answer": a.text if a else None})
    return summary(rows, code=True)


def _rate(rows: list[dict[str, Any]], key: str) -> float | None:
    return round(sum(bool(r[key]) for r in rows) / len(rows), 3) if rows else None


def summary(rows: list[dict[str, Any]], code: bool = False) -> dict[str, Any]:
    qs = [r for r in rows if r["kind"] == "question"]
    gen = [r for r in rows if r["kind"] == "general"]
    never = [r for r in rows if r["kind"] == "never_said"]
    out: dict[str, Any] = {
        "questions": len(qs),
        "correct": _rate(qs, "correct"),
        "recall_at_5": _rate(qs, "recall_at_5"),
        "injected_recall_at_5": _rate(qs, "injected_recall_at_5"),
        "wrong_memory": sum(r["wrong_memory"] for r in qs),
        "general": len(gen),
        "never_said": len(never),
        "invented": sum(r["invented"] for r in never),
        "invented_rate": _rate(never, "invented"),
        "by_lang": {lang: _rate([r for r in qs if r["lang"] == lang], "correct") for lang in sorted({r["lang"] for r in qs})},
        "by_style": {s: _rate([r for r in qs if r["style"] == s], "correct") for s in sorted({r["style"] for r in qs})},
    }
    if code:
        out["general_refusable"] = sum(r["refusable"] for r in gen)
        out["general_memory_answers"] = sum(r["memory_answer"] for r in gen)
    else:
        out["in_reply"] = _rate(qs, "in_reply")
        out["memory_answers"] = sum(r["memory_answer"] is not None for r in qs)
        out["general_refused"] = sum(r["refused"] for r in gen)
        out["general_abstained"] = sum(r["abstained"] for r in gen)
        out["idk_when_known"] = sum(r["idk"] for r in qs)
        out["loops"] = sum(r["loop"] for r in rows)
        out["leaks"] = sum(bool(r["leaks"]) for r in rows)
        out["p50_ttft_ms"] = _median([r["ttft_ms"] for r in rows])
    out["rows"] = rows
    return out


def _median(xs: list[float]) -> float | None:
    import statistics

    return round(statistics.median(xs), 1) if xs else None


def with_model(runner: Any, retriever: Any, data: dict[str, Any], keys: dict[str, set[int]], system_prompt: str,
               limit: int | None) -> dict[str, Any]:  # fmt: skip
    """Every question through the real ChatSession (see the module docstring)."""
    from assistant.bench.answers import _score_turn, model_text, shown
    from assistant.memory.retrieval.reply_check import abstains

    qs = data["questions"][:limit] if limit else data["questions"]
    gen = data["general"][: max(1, limit // 4)] if limit else data["general"]
    never = data["never_said"][: max(1, limit // 4)] if limit else data["never_said"]
    recall = recall_rows(retriever, {"questions": qs}, keys)
    rows = []
    for q in qs:
        turn = runner.ask(q["q"])
        ma = turn.memory_answer
        seen = turn.reply + "\n" + answer_text(ma)
        row = _score_turn(turn, system_prompt) | {"kind": "question", "q": q["q"], "key": str(q["key"]), "lang": q["lang"],
                                                   "style": q["style"], "expect": q["expect"]}  # fmt: skip
        row["correct"] = _has(q["expect"], seen)
        row["in_reply"] = turn.correction is None and _has(q["expect"], model_text(turn))
        row["wrong_memory"] = ma is not None and not _has(q["expect"], answer_text(ma))
        row["idk"] = ma is None and (turn.correction == "unknown" or abstains(turn.reply))
        row["recall_at_5"], row["injected_recall_at_5"] = recall[q["q"]]
        rows.append(row)
    for g in gen:
        turn = runner.ask(g["q"])
        row = _score_turn(turn, system_prompt) | {"kind": "general", "q": g["q"], "general_kind": g.get("kind")}
        row["refused"] = turn.correction in ("unknown", "memory")
        row["abstained"] = abstains(turn.reply)
        rows.append(row)
    for q in never:
        turn = runner.ask(q["q"])
        row = _score_turn(turn, system_prompt) | {"kind": "never_said", "q": q["q"]}
        row["invented"] = turn.memory_answer is not None or not abstains(turn.reply)
        rows.append(row)
    del shown
    return summary(rows)


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
