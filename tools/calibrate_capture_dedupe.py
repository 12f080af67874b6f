"""Calibrate ``assistant.memory.capture.dedupe.SAME_COSINE`` on the DEV capture sets only.

    KEEPSAKE_HOME=$(mktemp -d) python -m tools.calibrate_capture_dedupe [--top 40]

For every dev message (tests/data/capture_dev2.jsonl and the first set's dev items,
tests/data/capture_set.jsonl ``"split": "dev"``), the rules' candidates are paired within the
message; each pair is printed with its MiniLM cosine (household subject read as "User"), whether
rule 1 (equal meaning keys) already merges it and whether its anchors (proper nouns, numbers,
negation) agree. The held-out file is never read. Pairs are judged by eye: the threshold goes
above the highest-cosine pair with equal anchors that says two different things.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from itertools import combinations
from pathlib import Path

from assistant.memory.capture import dedupe
from assistant.memory.capture.rules import extract
from assistant.memory.capture.statements import classify

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
OBSERVED = datetime(2024, 3, 18, 10, 0, tzinfo=timezone.utc)


def dev_texts() -> list[str]:
    out = [json.loads(line)["text"] for line in (DATA / "capture_dev2.jsonl").read_text().splitlines() if line.strip()]
    for line in (DATA / "capture_set.jsonl").read_text().splitlines():
        if line.strip() and json.loads(line).get("split") == "dev":
            out.append(json.loads(line)["text"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    from assistant.profile import Profile
    from assistant.services import Services

    pairs = []
    texts = dev_texts()
    with Services(Profile.load()) as services:
        embed = services.embedder().embed
        for text in texts:
            units = " ".join(u.text for u in classify(text).statements)
            cands = extract(units, OBSERVED) if units else []
            if len(cands) < 2:
                continue
            vecs = embed([dedupe.plain(c.text) for c in cands])
            for (i, a), (j, b) in combinations(enumerate(cands), 2):
                cos = dedupe.cosine(vecs[i], vecs[j])
                pairs.append((cos, dedupe.key(a.text) == dedupe.key(b.text),
                              dedupe._anchors(a.text) == dedupe._anchors(b.text), a.text, b.text))  # fmt: skip
    pairs.sort(reverse=True)
    print(f"{len(texts)} dev messages, {len(pairs)} candidate pairs")
    for cos, same_key, same_anchors, a, b in pairs[: args.top]:
        print(f"{cos:.3f} key={'=' if same_key else '≠'} anchors={'=' if same_anchors else '≠'}  {a!r}  |  {b!r}")


if __name__ == "__main__":
    main()
