"""The held-out phrasing set of ``keepsake bench truth --split heldout``: plain-word statements of
change (and past statements, plans, additions that must change nothing) written by an
independent tester, copied unchanged to ``tests/data/truth_heldout.json``. Never used to tune
rules. Each item: ``before`` (said at 09:00) and ``after`` (said at 09:30 on ``after_said_on``),
``now_true`` / ``no_longer_true`` (words that must / must not be in a current memory of the
person's), ``change_date`` (when the change happened, or null)."""

from __future__ import annotations

import json
from datetime import date, datetime, timezone
from pathlib import Path

from assistant.bench.truth_scenarios import Scenario

UTC = timezone.utc


def load(path: Path) -> list[Scenario]:
    if not path.is_file():
        raise FileNotFoundError(f"the held-out set {path} is missing (a source checkout has it)")
    out = []
    for item in json.loads(path.read_text(encoding="utf-8")):
        said = date.fromisoformat(item["after_said_on"])
        t_old = datetime(said.year, said.month, said.day, 9, tzinfo=UTC)
        t_change = t_old.replace(minute=30)
        changed = item.get("change_date")
        changed_at = datetime.fromisoformat(changed).replace(tzinfo=UTC) if changed else t_change
        out.append(Scenario(
            item["id"], item.get("topic", "?"), item.get("kind", "change"), item.get("lang", "en"), item["before"],
            item["after"], t_old, t_change, changed_at, "", "", now_true=tuple(item.get("now_true") or ()),
            no_longer_true=tuple(item.get("no_longer_true") or ()), has_date=bool(changed),
        ))  # fmt: skip
    return out
