"""`keepsake bench import [--json] [--user-messages N]`: how fast ``keepsake import`` captures.

Build (not timed): a Keepsake JSONL conversation of ``N`` user messages (default 211, as in the
419-message conversation of issue 14), each followed by an assistant reply, in sessions of 10-24
messages over several months. The user messages are the labeled capture set's
(``tests/data/capture_set.jsonl``: statements, questions, requests, chit-chat, six languages),
shuffled with ``--seed`` and repeated with a counter when N is larger than the set.

Run (timed): ``import_file`` into a fresh encrypted store with the configured embedder (loaded
before timing; its load time is reported apart), rules capture, nothing queued for the model.
``user_messages_per_s`` = user messages / wall seconds of the import (target >= 20 on a 2-core
machine). In the same run, the same file is imported into another fresh store one message at a
time (``chunk=1``: a transaction and a capture per message, the old import's shape) as the
baseline; ``embed_s`` is the time spent in the embedder.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from assistant.bench.capture import DEFAULT_SET, load_set
from assistant.config import Settings
from assistant.memory.capture.capturer import Capturer

TARGET = 20.0
_REPLIES = [
    "Thanks for telling me. I'll keep that in mind when we talk about it again.",
    "That sounds like a lot. Here are a few thoughts: start small, keep notes, and check in with yourself weekly.",
    "Good question. The short answer is that it depends on your situation, but most people find the first option easier.",
    "Here is a short draft you can adapt:\n\nDear team, thank you for your time today. Best regards.",
    "Sure! 1. Keep a regular schedule. 2. Avoid screens before bed. 3. Keep the room cool. 4. Limit caffeine. 5. Get daylight.",
    "Congratulations! That's a big step. How are you feeling about it?",
    "I'm sorry to hear that. If it keeps bothering you, it may be worth asking a professional.",
]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user-messages", type=int, default=211, help="user messages in the conversation (default 211)")
    p.add_argument("--seed", type=int, default=14)
    p.add_argument("--set", default=str(DEFAULT_SET), help="where the user messages come from (the labeled capture set)")
    p.add_argument("--no-baseline", action="store_true", help="skip the one-message-at-a-time baseline")


def write_conversation(path: Path, texts: list[str], n: int, seed: int) -> int:
    """A JSONL conversation of ``n`` user messages (+ replies); returns the number of lines."""
    rng = random.Random(seed)
    pool = list(texts)
    rng.shuffle(pool)
    when = datetime(2024, 1, 8, 9, 0, tzinfo=timezone.utc)
    lines, session, left = [], 0, 0
    for i in range(n):
        if left <= 0:
            session, left = session + 1, rng.randint(5, 12)
            when += timedelta(days=rng.randint(1, 9), hours=rng.randint(0, 8))
        left -= 1
        text = pool[i % len(pool)] + (f" ({i // len(pool) + 1})" if i >= len(pool) else "")
        for role, content in (("user", text), ("assistant", rng.choice(_REPLIES))):
            lines.append({"session": f"bench chat {session}", "role": role, "content": content,
                          "timestamp": when.isoformat()})  # fmt: skip
            when += timedelta(seconds=rng.randint(20, 240))
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return len(lines)


def _timed(embed: Callable[[list[str]], Any], spent: dict[str, float]) -> Callable[[list[str]], Any]:
    def run(texts: list[str]) -> Any:
        start = time.perf_counter()
        try:
            return embed(texts)
        finally:
            spent["s"] += time.perf_counter() - start
            spent["texts"] += len(texts)
            spent["calls"] += 1

    return run


def _import_once(tmp: Path, name: str, path: Path, embed: Callable[[list[str]], Any], chunk: int) -> dict[str, Any]:
    from assistant.memory.capture.importing.importers import import_file  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.store.facade import MemoryStore

    spent = {"s": 0.0, "texts": 0, "calls": 0}
    store = MemoryStore(tmp / f"{name}.db", key=secrets.token_hex(32), embed=_timed(embed, spent))
    try:
        capturer = Capturer(store, use_llm=False, settings=Settings())
        start = time.perf_counter()
        report = import_file(store, path, capturer=capturer, chunk=chunk)
        wall = time.perf_counter() - start
    finally:
        store.close()
    return {
        "chunk": chunk, "seconds": round(wall, 3), "user_messages": report.user_messages,
        "user_messages_per_s": round(report.user_messages / wall, 1) if wall else None,
        "messages_added": report.messages_added, "captured": report.captured, "memories_added": report.memories_added,
        "embed_s": round(spent["s"], 3), "embedded_texts": int(spent["texts"]), "embed_calls": int(spent["calls"]),
    }  # fmt: skip


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.user_messages < 1:
        raise SystemExit("--user-messages must be at least 1")
    set_path = Path(args.set)
    if not set_path.is_file():
        raise SystemExit(f"no labeled set at {set_path} (the benchmark runs from a source checkout, or pass --set)")
    texts = [item.text for item in load_set(set_path)]
    embedder = args.services.embedder()
    start = time.perf_counter()
    embedder.embed(["warm up"])
    load_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory(prefix="keepsake-bench-import-") as d:
        tmp = Path(d)
        conv = tmp / "conversation.jsonl"
        lines = write_conversation(conv, texts, args.user_messages, args.seed)
        shipped = _import_once(tmp, "chunked", conv, embedder.embed, 64)
        baseline = None if args.no_baseline else _import_once(tmp, "per-message", conv, embedder.embed, 1)
    out: dict[str, Any] = {
        "messages": lines, "user_messages": args.user_messages, "target_user_messages_per_s": TARGET,
        "embedder_load_s": round(load_s, 3), **shipped,
    }  # fmt: skip
    if baseline is not None:
        out["baseline_one_message_at_a_time"] = baseline
        if baseline["seconds"]:
            out["speedup_vs_baseline"] = round(baseline["seconds"] / shipped["seconds"], 2) if shipped["seconds"] else None
    return out


def format_text(r: dict[str, Any]) -> str:
    lines = [f"import of {r['messages']} messages ({r['user_messages']} yours), rules capture: {r['seconds']:.2f} s, "
             f"{r['user_messages_per_s']} user messages/s (target >= {r['target_user_messages_per_s']:g}); "
             f"{r['captured']} stated something, {r['memories_added']} memories; embedder {r['embed_s']:.2f} s for "
             f"{r['embedded_texts']} texts in {r['embed_calls']} calls (loaded before, in {r['embedder_load_s']:.2f} s)"]  # fmt: skip
    b = r.get("baseline_one_message_at_a_time")
    if b:
        lines.append(f"  baseline, one message at a time: {b['seconds']:.2f} s, {b['user_messages_per_s']} user messages/s "
                     f"(x{r.get('speedup_vs_baseline')} for the chunked import)")  # fmt: skip
    return "\n".join(lines)
