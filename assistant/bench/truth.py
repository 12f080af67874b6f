"""`keepsake bench truth`: does a change said in plain words stay true, and does tidy-up never
reverse it (issue 23)?

Each scenario (:mod:`.truth_scenarios`; ``--split heldout``: the independent phrasing set
``tests/data/truth_heldout.json``) runs in a fresh encrypted store with the real MiniLM embedder
and the real capture (rules; no chat model), on a fixed calendar. It is checked three times:
after the hot path (capture), after a consolidation run, and after undoing that run.

- ``correct_now``: the change's memories are current, the old message's are not;
- ``correct_as_of``: ``as_of`` a moment before the change the old state is true and the change is
  not; just after the change was said, the reverse;
- ``reversed_by_tidyup``: scenarios where the run ended a memory of the change (a newer fact
  retired by an older one) -- must be 0;
- ``undo_exact``: undoing the run gives back exactly the memories after the hot path (text,
  start, start kind, end, expiry, status of every row).

Figures are fractions of the scenarios (``by_topic``/``by_order``/``by_cue`` break them down;
``failures`` lists the first few with what went wrong).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from assistant.bench import keepsake_home
from assistant.bench.truth_scenarios import NOW, UTC, Scenario, generate, spread

HELDOUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "truth_heldout.json"
DEV = HELDOUT.with_name("truth_dev.json")  # our own plain-word changes: the set rules are tuned on
SPLITS = ("generated", "dev", "heldout", "both", "neighbours-dev", "neighbours-heldout")


def add_arguments(p) -> None:
    p.add_argument("--size", type=int, default=72, help="generated scenarios to run, spread over all 144 (default 72)")
    p.add_argument("--split", choices=SPLITS, default="generated",
                   help="generated scenarios; the dev phrasing set (tuning); the held-out phrasing set (never tuned on); "
                        "generated + held-out; or the neighbours sets (a change must end what it replaces and nothing else)")  # fmt: skip
    p.add_argument("--threads", type=int, default=None)


class _Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


def _rows(store: Any) -> list[tuple]:
    return [tuple(r) for r in store.conn.execute(
        "SELECT id, text, valid_at, start_kind, invalid_at, expired_at, status FROM memories ORDER BY id")]  # fmt: skip


def _ids_of(store: Any, message_id: int) -> set[int]:
    return {r[0] for r in store.conn.execute("SELECT memory_id FROM memory_sources WHERE message_id = ?", (message_id,))}


def _visible(store: Any, ids: set[int], **kw: Any) -> set[int]:
    return {m.id for m in store.list(limit=None, **kw)} & ids


def _words_check(store: Any, old: set[int], sc: Scenario) -> dict[str, bool]:
    """Held-out items: every ``now_true`` word is in a current memory; no ``no_longer_true`` word
    is in a current memory of the earlier message; with a change date, the reverse held the day
    before it (when the earlier state's start allows it)."""

    def texts(ids: set[int] | None, **kw: Any) -> list[str]:
        return [m.text.casefold() for m in store.list(limit=None, **kw) if ids is None or m.id in ids]

    def holds(when: dict[str, Any]) -> bool:
        current, earlier = texts(None, **when), texts(old, **when)
        return all(any(w.casefold() in t for t in current) for w in sc.now_true or ()) and \
            not any(w.casefold() in t for w in sc.no_longer_true for t in earlier)  # fmt: skip

    now_ok = holds({})
    as_of = holds({"as_of": sc.after()})
    if sc.has_date and sc.no_longer_true:
        before = sc.changed_at - timedelta(days=1)
        earlier = texts(old, as_of=before)
        as_of = as_of and all(any(w.casefold() in t for t in earlier) for w in sc.no_longer_true)
    return {"now": now_ok, "as_of": as_of}


def _check(store: Any, old: set[int], new: set[int], sc: Scenario) -> dict[str, bool]:
    if sc.now_true is not None:
        return _words_check(store, old, sc)
    now_ok = not _visible(store, old) and _visible(store, new) == new
    before = _visible(store, old, as_of=sc.before()) and not _visible(store, new, as_of=sc.before())
    after = not _visible(store, old, as_of=sc.after()) and _visible(store, new, as_of=sc.after())
    return {"now": bool(now_ok), "as_of": bool(before and after)}


def run_scenario(sc: Scenario, embed: Any, home: str) -> dict[str, Any]:
    from assistant.config import Settings  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.capture.capturer import Capturer
    from assistant.memory.consolidation.consolidator import Consolidator
    from assistant.memory.records import Role
    from assistant.memory.store.facade import MemoryStore

    clock = _Clock()
    store = MemoryStore(Path(home) / f"{abs(hash(sc.id))}.db", key="ab" * 32, embed=embed, clock=clock)
    try:
        cap = Capturer(store, use_llm=False, settings=Settings(), tz=UTC)
        session = store.create_session("bench").id
        msgs = {}
        order = [("change", sc.change, sc.t_change), ("old", sc.old, sc.t_old)]
        if not sc.change_first:
            order.reverse()
        for i, (name, text, said) in enumerate(order):
            clock.now = max(said, NOW if sc.change_first else said) + timedelta(seconds=i)
            msgs[name] = store.add_message(session, Role.USER, text, observed_at=said).id
            cap.capture_message(msgs[name])
        old = _ids_of(store, msgs["old"])
        new = _ids_of(store, msgs["change"]) - old  # a record both say is the old state said again
        clock.now = max(NOW, sc.t_change + timedelta(hours=1)) + timedelta(minutes=5)
        hot = _check(store, old, new, sc)
        rows_hot = _rows(store)
        current_new = _visible(store, new)
        report = Consolidator(store, clock=clock).run(trigger="bench")
        tidy = _check(store, old, new, sc)
        reversed_ = any(store.get(i).invalid_at is not None for i in current_new)
        clock.now += timedelta(minutes=5)
        Consolidator(store, clock=clock).undo(report.run_id)
        exact = _rows(store) == rows_hot
        return {"id": sc.id, "topic": sc.topic, "order": sc.order, "cue": sc.cue, "hot": hot, "tidy": tidy,
                "reversed_by_tidyup": reversed_, "undo_exact": exact}  # fmt: skip
    finally:
        store.close()


def _summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = max(1, len(results))

    def frac(pred) -> float:
        return round(sum(1 for r in results if pred(r)) / n, 3)

    return {
        "scenarios": len(results),
        "correct_now": frac(lambda r: r["hot"]["now"] and r["tidy"]["now"]),
        "correct_as_of": frac(lambda r: r["hot"]["as_of"] and r["tidy"]["as_of"]),
        "hot_path": {"correct_now": frac(lambda r: r["hot"]["now"]), "correct_as_of": frac(lambda r: r["hot"]["as_of"])},
        "after_tidyup": {"correct_now": frac(lambda r: r["tidy"]["now"]), "correct_as_of": frac(lambda r: r["tidy"]["as_of"])},
        "reversed_by_tidyup": sum(1 for r in results if r["reversed_by_tidyup"]),
        "undo_exact": frac(lambda r: r["undo_exact"]),
    }


def _breakdown(results: list[dict[str, Any]], key: str) -> dict[str, dict[str, float]]:
    groups: dict[str, list] = defaultdict(list)
    for r in results:
        groups[str(r.get(key))].append(r)
    return {k: {"n": len(v), "correct_now": _summary(v)["correct_now"], "correct_as_of": _summary(v)["correct_as_of"]}
            for k, v in groups.items()}  # fmt: skip


def heldout_scenarios(path: Path = HELDOUT) -> list[Scenario]:
    """The held-out set (or, with ``DEV``, the dev set in the same format) as scenarios."""
    from assistant.bench.truth_heldout import load  # deferred: only for --split heldout / dev

    return load(path)


def _run_neighbours(split: str, embed: Any) -> dict[str, Any]:
    from assistant.bench import truth_neighbours as nb  # deferred: only for the neighbours splits

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as home, keepsake_home(home):
        results = [nb.run_case(c, embed, home) for c in nb.load(split)]
    out = nb.summary(results)
    out["wall_s"] = round(time.perf_counter() - started, 1)
    return out


def _run_split(scenarios: list[Scenario], embed: Any) -> dict[str, Any]:
    results = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as home, keepsake_home(home):
        for sc in scenarios:
            results.append(run_scenario(sc, embed, home))
    out = _summary(results)
    out["wall_s"] = round(time.perf_counter() - started, 1)
    out["by_topic"] = _breakdown(results, "topic")
    out["by_order"] = _breakdown(results, "order")  # held-out: by kind (change, past, plan, addition)
    out["by_cue"] = _breakdown(results, "cue")  # held-out: by language
    out["failures"] = [r for r in results if not (r["hot"]["now"] and r["tidy"]["now"] and r["hot"]["as_of"]
                                                   and r["tidy"]["as_of"] and r["undo_exact"]) or r["reversed_by_tidyup"]][:20]  # fmt: skip
    return out


def run(args) -> dict[str, Any]:
    from assistant.engine.embedder import LlamaEmbedder  # deferred: llama.cpp

    threads = args.threads or args.services.settings.threads
    embedder = LlamaEmbedder(args.services.embedder_path(), n_threads=threads)
    try:
        out: dict[str, Any] = {"now": NOW.isoformat()}
        if args.split in ("generated", "both"):
            out["generated"] = _run_split(spread(generate(), args.size), embedder.embed)
        if args.split in ("heldout", "both"):
            out["heldout"] = _run_split(heldout_scenarios(), embedder.embed)
        if args.split == "dev":
            out["dev"] = _run_split(heldout_scenarios(DEV), embedder.embed)
        if args.split.startswith("neighbours-"):
            out[args.split] = _run_neighbours(args.split.split("-", 1)[1], embedder.embed)
    finally:
        embedder.close()
    return out


def format_text(result: dict[str, Any]) -> str:
    lines = []
    for split in ("neighbours-dev", "neighbours-heldout"):
        r = result.get(split)
        if r:
            lines.append(f"{split}: {r['cases']} cases  ends_recall {r['ends_recall']}  false_end_rate {r['false_end_rate']}  "
                         f"cases_exact {r['cases_exact']}  ({r['wall_s']} s)")  # fmt: skip
    for split in ("generated", "dev", "heldout"):
        r = result.get(split)
        if not r:
            continue
        lines.append(f"{split}: {r['scenarios']} scenarios  correct_now {r['correct_now']}  correct_as_of {r['correct_as_of']}  "
                     f"reversed_by_tidyup {r['reversed_by_tidyup']}  undo_exact {r['undo_exact']}  ({r['wall_s']} s)")  # fmt: skip
        for f in r["failures"][:10]:
            lines.append(f"  x {f['id']}: hot {f['hot']} tidy {f['tidy']} reversed {f['reversed_by_tidyup']} undo {f['undo_exact']}")
    return "\n".join(lines) or json.dumps(result)
