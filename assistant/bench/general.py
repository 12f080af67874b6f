"""`keepsake bench general`: which questions code reads as asking for a fact of the person's life
(issue 28.2: "I don't know that yet" only for those, never for a general question that mentions
the person).

Two sets written apart from the rules by helpers that never saw the code: ``--split dev``
(``tests/data/general_dev.json``: 150 general questions that mention the person, in six
languages; the rules were tuned on it) and ``--split heldout`` (``general_heldout.json``: 120
general and 80 personal questions, never tuned on). For each question code's reading is
:func:`assistant.memory.retrieval.questions.asks_personal_fact` (pure: no model, no store):

- ``general_refusable``: general questions read as personal: code could replace an ungrounded
  reply with "I don't know that yet" (0 is the goal);
- ``personal_read``: personal questions read as personal (what memory may answer or refuse; the
  rest get no refusal when nothing is remembered).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
SPLITS = {"dev": DATA / "general_dev.json", "heldout": DATA / "general_heldout.json"}


def add_arguments(p) -> None:
    p.add_argument("--split", choices=sorted(SPLITS), default="heldout", help="dev: the set the rules were tuned on; heldout: never tuned on")
    p.add_argument("--details", action="store_true", help="list the questions read the wrong way")


def score(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the module docstring for ``items`` ({"q", "kind", "lang"} each)."""
    from assistant.memory.retrieval.questions import asks_personal_fact

    rows = [{**i, "personal": asks_personal_fact(i["q"])} for i in items]
    gen = [r for r in rows if r["kind"] == "general"]
    per = [r for r in rows if r["kind"] == "personal"]
    by_lang: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        by_lang[r["lang"]].append(r["personal"] == (r["kind"] == "personal"))
    refusable, read = sum(r["personal"] for r in gen), sum(r["personal"] for r in per)
    out: dict[str, Any] = {"questions": len(rows), "general": len(gen), "general_refusable": refusable,
                           "general_refusable_rate": round(refusable / max(1, len(gen)), 3),
                           "personal": len(per), "personal_read": read, "personal_read_rate": round(read / len(per), 3) if per else None,
                           "read_right_by_lang": {k: round(sum(v) / len(v), 3) for k, v in sorted(by_lang.items())}}  # fmt: skip
    out["misread"] = [r["q"] for r in rows if r["personal"] != (r["kind"] == "personal")]
    return out


def run(args) -> dict[str, Any]:
    t0 = time.perf_counter()
    out = score(json.loads(SPLITS[args.split].read_text(encoding="utf-8")))
    if not getattr(args, "details", False):
        out.pop("misread")
    return {**out, "split": args.split, "seconds": round(time.perf_counter() - t0, 2)}
