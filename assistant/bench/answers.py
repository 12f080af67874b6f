"""`keepsake bench answers`: does the memory reach the person, through the real ChatSession?

A seeded memory (``tests/data/answers_set.json``: 30 memories about a fictional person, 45
paraphrased questions about them with the value the person must be shown, 10 questions about
things never said, 5 remember/forget commands with a follow-up question) runs through
:class:`assistant.session.ChatSession` with the real chat model (default SmolLM2-135M or
``--model GGUF``) and the real MiniLM retrieval, in a temporary KEEPSAKE_HOME; every question in
a new session. Scored by code:

- ``correct``: the expected value (any of ``expect``, case-insensitive) is in what the person is
  shown: the reply, or the memory answer's text (``memory_answer``, shown under the reply when
  the reply misses it); fraction of the 45 questions;
- ``in_reply``: the model itself said it: the expected value is in the model's own (guarded)
  reply, before any code correction; fraction of the 45;
- ``loops``: shown replies (all turns) with a line or an 8-word phrase repeated 3+ times;
- ``leaks``: shown replies holding the system prompt or the memory block's wording
  (:func:`leaks_in`);
- ``invented``: never-said questions whose shown reply states something: a memory answer was
  given, or the reply does not say it does not know; count of 10;
- ``commands_ok``: remember -> ``remembered`` non-empty and a "Saved to memory" notice and the
  follow-up question answered; forget -> the expected memory among ``forget_candidates`` and a
  notice;
- ``p50_ttft_ms``: median time to first token over every turn.

``--layout`` compares how the memory answer is put next to the question
(:data:`assistant.memory.retrieval.inject.LAYOUTS`); ``--runs N`` repeats the set (replies are sampled at
the chat's default temperature, so runs differ).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assistant.bench import keepsake_home
from assistant.cli.common import UserError
from assistant.config import Settings
from assistant.context.assembler import DEFAULT_SYSTEM_PROMPT
from assistant.engine import registry
from assistant.engine.chat import LlamaChatModel
from assistant.engine.embedder import LlamaEmbedder
from assistant.memory.retrieval import reply_check
from assistant.memory.records import Kind, Source

SET_PATH = Path(__file__).resolve().parents[2] / "tests" / "data" / "answers_set.json"
LEAK_PHRASES = ("helpful assistant", "reference only", "reference-only", "retrieved_memories", "not instructions",
                "background notes", "retrieved for this message")  # fmt: skip
_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--split", choices=("legacy", "dev", "dev2", "dev3", "dev4", "heldout"), default="legacy",
                   help="question set: legacy (tests/data/answers_set.json, seeded as stored memories), dev, dev2, dev3, dev4 or "
                        "heldout (tests/data/answers_{dev,dev2,dev3,dev4,heldout}.json, seeded through the real capture; tune on "
                        "dev, dev2, dev3 and dev4 only)")
    p.add_argument("--set", dest="set_path", metavar="FILE", default=None,
                   help="score this answers set (same shape as tests/data/answers_dev.json) instead of the split's file")
    p.add_argument("--code-only", action="store_true", help="dev/dev2/dev3/dev4/heldout: no chat model, score the memory answer code picks")
    p.add_argument("--typos", action="store_true", help="dev/dev2/dev3/dev4/heldout: each English question with one slip (a letter left out, "
                                                         "doubled or two swapped), the same every run")
    p.add_argument("--model", metavar="GGUF", default=None, help="chat model (default: the configured one)")
    p.add_argument("--layout", default=None, help="memory-answer layout (default: the app's; 'all' compares every one)")
    p.add_argument("--runs", type=int, default=1, help="repeat the whole set N times")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions (quick look)")
    p.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: the configured number)")
    p.add_argument("--details", action="store_true", help="include every turn in the JSON")
    p.add_argument("--repeat-penalty", type=float, default=None, help="override the chat model's repeat penalty")
    p.add_argument("--presence-penalty", type=float, default=None, help="override the chat model's presence penalty")


# ----------------------------------------------------------------------------- scoring


def loop_in(text: str) -> bool:
    """A line (non-blank) or an 8-word phrase occurring 3+ times."""
    lines = Counter(" ".join(ln.split()).casefold() for ln in text.splitlines() if ln.strip())
    if any(n >= 3 for n in lines.values()):
        return True
    w = [x.casefold() for x in _WORDS.findall(text)]
    grams = Counter(tuple(w[i : i + 8]) for i in range(len(w) - 7))
    return any(n >= 3 for n in grams.values())


def leaks_in(text: str, system_prompt: str) -> list[str]:
    """Prompt wording in a reply: the system prompt, the memory block's tags/preamble phrases,
    memory line tags ``[m12, ...``, or any 6 consecutive words of the preamble."""
    from assistant.engine.guard import MEMORY_TAG
    from assistant.memory.retrieval.inject import PREAMBLE  # deferred: the store (SQLCipher, numpy)

    low = " ".join(text.casefold().split())
    found = [p for p in (system_prompt.casefold().rstrip("."), *LEAK_PHRASES) if p and p in low]
    if MEMORY_TAG.search(text):
        found.append("[m<id>, ...] tag")
    pre = [x.casefold() for x in _WORDS.findall(PREAMBLE)]
    w = [x.casefold() for x in _WORDS.findall(text)]
    shingles = {tuple(pre[i : i + 6]) for i in range(len(pre) - 5)}
    if any(tuple(w[i : i + 6]) in shingles for i in range(len(w) - 5)):
        found.append("preamble wording")
    return found


def _has(expect: list[str], text: str) -> bool:
    low = text.casefold()
    return any(e.casefold() in low for e in expect)


def shown(turn: Any) -> str:
    """Everything the person sees for a turn: the reply, plus the memory answer's text."""
    ma = turn.memory_answer
    return turn.reply + ("\n" + ma["text"] if ma else "")


def model_text(turn: Any) -> str:
    return turn.model_reply if turn.model_reply is not None else turn.reply


# ----------------------------------------------------------------------------- running


def seed(store: Any, data: dict) -> dict[str, int]:
    """Write the set's memories (as capture stores them); returns key -> memory id."""

    ids = {}
    for m in data["memories"]:
        day = datetime.fromisoformat(m["valid_at"]).replace(tzinfo=UTC)
        ids[m["key"]] = store.add(
            m["text"], kind=Kind(m["kind"]), slot=m["slot"], entities=m["entities"], valid_at=day, actor="user",
            source=Source(extractor="answers-set", speaker="user", observed_at=day),
        )  # fmt: skip
    return ids


class Runner:
    """One store, one chat model, one retriever; a new ChatSession per question."""

    def __init__(self, store: Any, model: Any, retriever: Any, layout: str | None) -> None:
        self.store, self.model, self.retriever, self.layout = store, model, retriever, layout
        self.asked = 0  # progress goes to stderr, one line a turn

    def ask(self, text: str, max_tokens: int = 512):
        from assistant.session import ChatSession  # deferred: the store (SQLCipher, numpy)

        self.asked += 1
        print(f"[{self.layout or 'default'} {self.asked}] {text}", file=sys.stderr, flush=True)
        sid = self.store.create_session(title="bench").id
        # the settings of a fresh profile (what the bench's temporary home holds)
        chat = ChatSession(self.store, self.model, sid, settings=Settings(), retriever=self.retriever, capture=None)
        if self.layout is not None:
            chat.layout = self.layout
        try:
            return chat.send(text, max_tokens=max_tokens)
        finally:
            chat.close()


def _score_turn(turn: Any, system_prompt: str) -> dict[str, Any]:
    return {"reply": turn.reply, "model_reply": turn.model_reply, "memory_answer": turn.memory_answer,
            "correction": turn.correction, "loop": loop_in(turn.reply), "leaks": leaks_in(turn.reply, system_prompt),
            "guard": turn.guard.get("stop_reason"), "cuts": [c["reason"] for c in turn.guard.get("cuts", [])],
            "ttft_ms": turn.stats.ttft_ms}  # fmt: skip


def run_set(runner: Runner, data: dict, system_prompt: str, limit: int | None = None) -> dict[str, Any]:
    questions = data["questions"][:limit] if limit else data["questions"]
    never = data["never_said"][: max(1, limit // 4)] if limit else data["never_said"]
    rows: list[dict[str, Any]] = []
    for q in questions:
        turn = runner.ask(q["q"])
        row = _score_turn(turn, system_prompt) | {"kind": "question", "q": q["q"], "expect": q["expect"]}
        row["correct"] = _has(q["expect"], shown(turn))
        row["in_reply"] = turn.correction is None and _has(q["expect"], model_text(turn))
        rows.append(row)

    for q in never:
        turn = runner.ask(q)
        row = _score_turn(turn, system_prompt) | {"kind": "never_said", "q": q}
        row["invented"] = turn.memory_answer is not None or not reply_check.abstains(turn.reply)
        rows.append(row)
    for c in data["commands"] if not limit else data["commands"][:2]:
        rows += _command(runner, c, system_prompt)
    return _summary(rows)


def _command(runner: Runner, c: dict, system_prompt: str) -> list[dict[str, Any]]:
    turn = runner.ask(c["text"])
    row = _score_turn(turn, system_prompt) | {"kind": "command", "q": c["text"], "notices": turn.notices}
    if c["kind"] == "remember":
        saved = [runner.store.get(i).text for i in turn.remembered]
        ok = bool(saved) and any(c["expect"].casefold() in s.casefold() for s in saved)
        ok = ok and any(n.startswith(("Saved to memory", "Already in memory")) for n in turn.notices)
        follow = runner.ask(c["ask"])
        frow = _score_turn(follow, system_prompt) | {"kind": "follow_up", "q": c["ask"], "expect": [c["expect"]]}
        frow["correct"] = _has([c["expect"]], shown(follow))
        row["ok"] = ok and frow["correct"]
        return [row, frow]
    texts = [m["text"] for m in turn.forget_candidates]
    row["ok"] = any(c["expect"].casefold() in t.casefold() for t in texts) and bool(turn.notices)
    return [row]


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    qs = [r for r in rows if r["kind"] == "question"]
    never = [r for r in rows if r["kind"] == "never_said"]
    cmds = [r for r in rows if r["kind"] == "command"]
    return {
        "questions": len(qs),
        "correct": round(sum(r["correct"] for r in qs) / len(qs), 3) if qs else None,
        "in_reply": round(sum(r["in_reply"] for r in qs) / len(qs), 3) if qs else None,
        "memory_answers": sum(r["memory_answer"] is not None for r in qs),
        "corrected": sum(r["correction"] == "memory" for r in qs),
        "loops": sum(r["loop"] for r in rows),
        "leaks": sum(bool(r["leaks"]) for r in rows),
        "invented": sum(r["invented"] for r in never),
        "never_said": len(never),
        "commands": len(cmds),
        "commands_ok": sum(r["ok"] for r in cmds),
        "loops_cut": sum(r["guard"] == "loop" or "repeat" in r["cuts"] for r in rows),
        "echoes_cut": sum("echo" in r["cuts"] for r in rows),
        "turns": len(rows),
        "p50_ttft_ms": round(statistics.median(r["ttft_ms"] for r in rows), 1) if rows else None,
        "rows": rows,
    }


def run(args) -> dict:
    if getattr(args, "split", "legacy") != "legacy" or getattr(args, "set_path", None):
        return run_split(args)
    from assistant.memory.retrieval.inject import LAYOUTS  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.retrieval.retriever import Retriever
    from assistant.memory.store.facade import MemoryStore

    if not SET_PATH.is_file():
        raise UserError(f"'keepsake bench answers' needs its data set {SET_PATH} (a source checkout: make bench)")
    data = json.loads(SET_PATH.read_text(encoding="utf-8"))
    settings = args.services.settings
    threads = args.threads or settings.threads
    chat_path = registry.resolve_chat(args.model or settings.chat_model)
    embed_path = args.services.embedder_path()
    layouts = list(LAYOUTS) if args.layout == "all" else [args.layout]
    model = LlamaChatModel(chat_path, n_ctx=settings.context_size, n_threads=threads)
    if args.repeat_penalty is not None:
        model.repeat_penalty = args.repeat_penalty
    if args.presence_penalty is not None:
        model.presence_penalty = args.presence_penalty
    embedder = LlamaEmbedder(embed_path, n_threads=threads)
    started = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory() as home, keepsake_home(home):
        store = MemoryStore(Path(home) / "bench.db", key="ab" * 32, embed=embedder.embed)
        try:
            for layout in layouts:
                for _ in range(max(1, args.runs)):
                    store.close()
                    db = Path(home) / f"bench-{len(results)}.db"
                    store = MemoryStore(db, key="ab" * 32, embed=embedder.embed)
                    seed(store, data)
                    runner = Runner(store, model, Retriever(store, embedder), layout)
                    res = run_set(runner, data, DEFAULT_SYSTEM_PROMPT, args.limit)
                    res["layout"] = layout or _default_layout()
                    results.append(res)
        finally:
            store.close()
            model.close()
            embedder.close()
    out = _merge(results, model.name)
    out["seconds"] = round(time.perf_counter() - started, 1)
    out["repeat_penalty"], out["presence_penalty"] = model.repeat_penalty, model.presence_penalty
    out["threads"] = threads
    if not args.details:
        for r in out.get("by_layout", []):
            r.pop("rows", None)
        out.pop("rows", None)
    return out


def run_split(args) -> dict:
    """``--split dev|dev2|heldout`` (:mod:`assistant.bench.answer_splits`)."""
    from assistant.bench import answer_splits as S
    from assistant.memory.retrieval.retriever import Retriever  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.store.facade import MemoryStore

    data = S.load(args.split, getattr(args, "set_path", None))
    if getattr(args, "typos", False):  # every English question typed fast: one slip each (assistant.bench.typos)
        from assistant.bench.typos import with_typos

        data = with_typos(data)
    settings = args.services.settings
    threads = args.threads or settings.threads
    embedder = LlamaEmbedder(args.services.embedder_path(), n_threads=threads)
    model = None if args.code_only else LlamaChatModel(registry.resolve_chat(args.model or settings.chat_model),
                                                         n_ctx=settings.context_size, n_threads=threads)  # fmt: skip
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as home, keepsake_home(home):
        store = MemoryStore(Path(home) / "bench.db", key="ab" * 32, embed=embedder.embed)
        try:
            keys = S.seed_said(store, data)
            retriever = Retriever(store, embedder)
            if model is None:
                out = S.code_only(retriever, data, keys, args.limit)
            else:
                runner = Runner(store, model, retriever, args.layout)
                out = S.with_model(runner, retriever, data, keys, DEFAULT_SYSTEM_PROMPT, args.limit)
        finally:
            store.close()
            embedder.close()
            if model is not None:
                model.close()
    split = "set" if getattr(args, "set_path", None) else args.split
    out.update(split=split, typos=bool(getattr(args, "typos", False)), model=model.name if model is not None else None, threads=threads,
               seconds=round(time.perf_counter() - started, 1), memories=len(data["memories"]))  # fmt: skip
    if not args.details:
        out.pop("rows", None)
    return out


def _default_layout() -> str:
    from assistant.memory.retrieval.inject import DEFAULT_LAYOUT  # deferred: the store (SQLCipher, numpy)

    return DEFAULT_LAYOUT


def _merge(results: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """One summary over every run of a layout; several layouts: the first is the headline and
    ``by_layout`` lists each."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by.setdefault(r["layout"], []).append(r)
    merged = []
    for layout, runs in by.items():
        rows = [row for r in runs for row in r["rows"]]
        s = _summary(rows)
        s.update(layout=layout, runs=len(runs))
        merged.append(s)
    head = dict(merged[0])
    head["model"] = model
    if len(merged) > 1:
        head["by_layout"] = merged
    return head


def format_text(result: dict) -> str:
    if result.get("split"):
        skip = ("rows", "by_lang", "by_style")
        lines = [f"split {result['split']} ({result['model'] or 'code only'}, {result['seconds']} s)"]
        lines += [f"  {k}: {v}" for k, v in result.items() if k not in skip and k not in ("split", "model", "seconds")]
        lines += [f"  correct by language: {result['by_lang']}", f"  correct by style: {result['by_style']}"]
        return "\n".join(lines)
    rows = result.get("by_layout") or [result]
    lines = [f"model {result['model']} ({result['threads']} threads, {result['seconds']} s)",
             f"{'layout':<12} {'runs':>4} {'questions':>9} {'correct':>7} {'in_reply':>8} {'mem.ans':>7} {'corrected':>9} "
             f"{'loops':>5} {'leaks':>5} {'invented':>8} {'commands':>8} {'ttft p50':>8}"]  # fmt: skip
    for r in rows:
        lines.append(f"{r['layout']:<12} {r['runs']:>4} {r['questions']:>9} {r['correct']:>7} {r['in_reply']:>8} "
                     f"{r['memory_answers']:>7} {r['corrected']:>9} {r['loops']:>5} {r['leaks']:>5} "
                     f"{r['invented']:>3}/{r['never_said']:<4} {r['commands_ok']:>3}/{r['commands']:<4} {r['p50_ttft_ms']:>8}")  # fmt: skip
    return "\n".join(lines)
