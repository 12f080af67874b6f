"""`keepsake bench forget`: how long forgetting takes as the memory grows.

For each size N (memories), a fresh encrypted store in a temp profile holds N/3 user messages
in conversations of 20 messages ("I live in Town<k>. My friend Name<k> has a cat named Pet<k>."),
each with its episode and two facts, the conversations' archived history, and a reply quoting
each message. Measured, median of ``--repeat`` runs each on a different target:

- ``edit_ms``: one memory edit (a versioned write): the baseline, measured in the same run;
- ``delete_ms``: ``store.delete`` of one fact (the whole cascade: the sentence leaves the message
  and the episode, the reply loses it, the archive is cleaned, WAL checkpoint);
- ``forget_preview_ms``: "forget my friend Name<k>": candidates + preview;
- ``delete_session_ms``: a whole conversation.

Ratios are against ``edit_ms`` of the same size.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from typing import Any

from assistant.memory.records import Kind, NewMemory, Source
from assistant.profile import Profile

DEFAULT_SIZES = "1000,10000"


def add_arguments(p) -> None:
    p.add_argument("--sizes", default=DEFAULT_SIZES, help=f"comma-separated memory counts (default {DEFAULT_SIZES})")
    p.add_argument("--repeat", type=int, default=5, help="targets per measurement (median; default 5)")


def _build(store: Any, n: int) -> list[dict[str, int]]:
    from assistant.memory.store.archive.context import ArchivedMessage  # deferred: the store (SQLCipher, numpy)

    per_session = 20
    rows: list[dict[str, int]] = []
    messages = max(1, n // 3)
    sid = None
    history: list[ArchivedMessage] = []
    for k in range(messages):
        if k % per_session == 0:
            if history:
                store.context_archive.append(str(sid), history)
            sid, history = store.create_session(f"talk {k // per_session}").id, []
        text = f"I live in Town{k}. My friend Name{k} has a cat named Pet{k}."
        msg = store.add_message(sid, "user", text)
        reply = store.add_message(sid, "assistant", f"Nice! Say hi to Name{k} and Pet{k}.")
        src = Source(sid, msg.id)
        added = store.add_many([
            NewMemory(text, kind=Kind.EPISODE, sources=(src,)),
            NewMemory(f"User lives in Town{k}.", kind=Kind.FACT, sources=(src,)),
            NewMemory(f"User's friend Name{k} has a cat named Pet{k}.", kind=Kind.FACT, sources=(src,)),
        ], embed=False)  # fmt: skip
        history += [ArchivedMessage(msg.id, "user", text, text), ArchivedMessage(reply.id, "assistant", reply.content)]
        rows.append({"k": k, "session": sid, "fact": added[2].id, "city": added[1].id})
    if history:
        store.context_archive.append(str(sid), history)
    return rows


def _median_ms(fn, targets) -> float:
    times = []
    for t in targets:
        start = time.perf_counter()
        fn(t)
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


def run_size(n: int, repeat: int) -> dict[str, Any]:
    from assistant.memory.forget.topic import propose, request_for  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.store.facade import MemoryStore

    with tempfile.TemporaryDirectory() as home:
        old = os.environ.get("KEEPSAKE_HOME")
        os.environ["KEEPSAKE_HOME"] = home
        try:
            p = Profile.load(home).paths
            store = MemoryStore(p.database, key_file=p.key_file)
            rows = _build(store, n)
            count = store.count(include_all=True)
            step = max(1, len(rows) // (4 * repeat + 1))
            picks = rows[::step]
            edit = _median_ms(lambda r: store.edit(r["city"], f"User lives in Town{r['k']} now."), picks[:repeat])
            delete = _median_ms(lambda r: store.delete(r["fact"]), picks[repeat : 2 * repeat])
            preview = _median_ms(lambda r: store.forget_preview(request_for(propose(store, None, f"my friend Name{r['k']}"))),
                                 picks[2 * repeat : 3 * repeat])  # fmt: skip
            sessions = list(dict.fromkeys(r["session"] for r in picks[3 * repeat :]))[:repeat]
            delete_session = _median_ms(lambda s: store.delete_session(s), sessions)
            size_mb = round(store.path.stat().st_size / 1e6, 1)
            store.close()
        finally:
            if old is None:
                os.environ.pop("KEEPSAKE_HOME", None)
            else:
                os.environ["KEEPSAKE_HOME"] = old
    return {
        "memories": count, "db_mb": size_mb, "edit_ms": edit, "delete_ms": delete, "forget_preview_ms": preview,
        "delete_session_ms": delete_session, "delete_over_edit": round(delete / max(edit, 1e-9), 1),
        "forget_preview_over_edit": round(preview / max(edit, 1e-9), 1),
    }  # fmt: skip


def run(args) -> dict[str, Any]:
    sizes = [int(x) for x in str(args.sizes).split(",") if x.strip()]
    return {"repeat": args.repeat, "sizes": [run_size(n, args.repeat) for n in sizes]}


def format_text(result: dict[str, Any]) -> str:
    lines = [f"{'memories':>9} {'db MB':>6} {'edit ms':>8} {'delete ms':>10} {'x edit':>7} {'forget preview ms':>18} "
             f"{'x edit':>7} {'delete conversation ms':>23}"]  # fmt: skip
    for r in result["sizes"]:
        lines.append(f"{r['memories']:>9} {r['db_mb']:>6} {r['edit_ms']:>8} {r['delete_ms']:>10} {r['delete_over_edit']:>7} "
                     f"{r['forget_preview_ms']:>18} {r['forget_preview_over_edit']:>7} {r['delete_session_ms']:>23}")  # fmt: skip
    return "\n".join(lines)
