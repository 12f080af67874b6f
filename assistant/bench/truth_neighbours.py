"""The neighbours splits of ``keepsake bench truth`` (``--split neighbours-dev`` /
``neighbours-heldout``): does a change end what it replaces and *nothing else*?

The set (``tests/data/truth_neighbours.json``, written by an independent tester before the
rules changed; half the cases marked ``dev`` for tuning, half ``heldout``, never tuned on) holds
small realistic stores: 6-12 earlier statements of one person (name, home, job, commute, pets,
habits, devices ...), then one new message, labelled with the store statements it ``ends`` and
those that ``stays`` true. Kinds: change-unnamed ("I drink tea these days"), change-named,
addition, past, unrelated, plan.

Each case runs in a fresh encrypted store with the real MiniLM and the real capture (rules, no
chat model): the store statements are captured on their days, a tidy-up runs (the baseline: what
was current before the message), then the message is captured (hot path) and a tidy-up runs
again. Checked after both:

- a statement *ended* when none of its memories is current any more;
- a statement *stayed* when every memory of it current at the baseline still is.

Figures: ``ends_recall`` = ended / ``ends`` labels; ``false_end_rate`` = stays statements that
ended / ``stays`` labels (the silent losses a two-message bench cannot see); ``cases_exact`` =
cases where every label holds after the hot path and after tidy-up.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

UTC = timezone.utc
NEIGHBOURS = Path(__file__).resolve().parents[2] / "tests" / "data" / "truth_neighbours.json"


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def load(split: str, path: Path = NEIGHBOURS) -> list[dict[str, Any]]:
    """The cases of ``split`` ("dev" or "heldout")."""
    if not path.is_file():
        raise FileNotFoundError(f"the neighbours set {path} is missing (a source checkout has it)")
    return [c for c in json.loads(path.read_text(encoding="utf-8")) if c.get("split") == split]


def _at(day: str, hour: int, minute: int = 0) -> datetime:
    d = date.fromisoformat(day)
    return datetime(d.year, d.month, d.day, hour, minute, tzinfo=UTC)


def run_case(case: dict[str, Any], embed: Any, home: str) -> dict[str, Any]:
    from assistant.bench.truth import _ids_of
    from assistant.config import Settings  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.capture.capturer import Capturer
    from assistant.memory.consolidation.consolidator import Consolidator
    from assistant.memory.records import Role
    from assistant.memory.store.facade import MemoryStore

    said = _at(case["said_on"], 9, 30)
    clock = _Clock(said)
    store = MemoryStore(Path(home) / f"{case['id']}.db", key="ab" * 32, embed=embed, clock=clock)
    try:
        cap = Capturer(store, use_llm=False, settings=Settings(), tz=UTC)
        session = store.create_session("bench").id
        ids: dict[str, set[int]] = {}
        for i, item in enumerate(sorted(case["store"], key=lambda s: s["said_on"])):
            t = _at(item["said_on"], 9) + timedelta(minutes=i)
            clock.now = t
            mid = store.add_message(session, Role.USER, item["text"], observed_at=t).id
            cap.capture_message(mid)
            ids[item["text"]] = _ids_of(store, mid)
        clock.now = said - timedelta(minutes=10)
        Consolidator(store, clock=clock).run(trigger="bench")
        current = {m.id for m in store.list(limit=None)}
        base = {text: mids & current for text, mids in ids.items()}
        clock.now = said
        new_mid = store.add_message(session, Role.USER, case["message"], observed_at=said).id
        cap.capture_message(new_mid)
        new = _ids_of(store, new_mid)

        def check() -> dict[str, Any]:
            now = {m.id for m in store.list(limit=None)}
            ended = [t for t in case["ends"] if not (base.get(t, set()) - new) & now and base.get(t)]
            lost = [t for t in case["stays"] if (base.get(t, set()) - new) - now]
            return {"ended": ended, "lost": lost,
                    "exact": len(ended) == len(case["ends"]) and not lost}  # fmt: skip

        clock.now = said + timedelta(hours=1)
        hot = check()
        Consolidator(store, clock=clock).run(trigger="bench")
        tidy = check()
        return {"id": case["id"], "kind": case.get("kind", "?"), "lang": case.get("lang", "en"), "hot": hot,
                "tidy": tidy, "ends": len(case["ends"]), "stays": len(case["stays"]),
                "unknown": [t for t in case["ends"] if not base.get(t)]}  # fmt: skip
    finally:
        store.close()


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    ends = sum(r["ends"] for r in results) or 1
    stays = sum(r["stays"] for r in results) or 1
    n = len(results) or 1

    def figures(stage: str) -> dict[str, float]:
        return {"ends_recall": round(sum(len(r[stage]["ended"]) for r in results) / ends, 3),
                "false_end_rate": round(sum(len(r[stage]["lost"]) for r in results) / stays, 3),
                "cases_exact": round(sum(1 for r in results if r[stage]["exact"]) / n, 3)}  # fmt: skip

    by_kind: dict[str, list] = defaultdict(list)
    for r in results:
        by_kind[r["kind"]].append(r)
    out: dict[str, Any] = {"cases": len(results), **figures("tidy"), "hot_path": figures("hot")}
    out["cases_exact"] = round(sum(1 for r in results if r["hot"]["exact"] and r["tidy"]["exact"]) / n, 3)
    out["by_kind"] = {k: {"n": len(v), "ends_recall": summary_small(v)[0], "false_end_rate": summary_small(v)[1]}
                      for k, v in sorted(by_kind.items())}  # fmt: skip
    out["failures"] = [{"id": r["id"], "kind": r["kind"], "missed": r["ends"] - len(r["tidy"]["ended"]), "lost": r["tidy"]["lost"],
                        "hot_lost": r["hot"]["lost"]}
                       for r in results if not (r["hot"]["exact"] and r["tidy"]["exact"])][:30]  # fmt: skip
    return out


def summary_small(results: list[dict[str, Any]]) -> tuple[float, float]:
    ends = sum(r["ends"] for r in results)
    stays = sum(r["stays"] for r in results) or 1
    rec = round(sum(len(r["tidy"]["ended"]) for r in results) / ends, 3) if ends else 1.0
    return rec, round(sum(len(r["tidy"]["lost"]) for r in results) / stays, 3)
