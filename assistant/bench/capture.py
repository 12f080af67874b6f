"""`keepsake bench capture [--json] [--set FILE] [--split dev|heldout|holdout|all] [--locomo DIR] [--llm]`: does
capture keep what the person states about themselves, and only that?

``--split dev`` / ``--split heldout`` score the clause-level sets written apart from the rules
(:mod:`assistant.bench.capture_sets`: precision, recall by must words, granularity); ``--locomo DIR``
reports capture recall on LoCoMo conversations. ``--split holdout|all`` (and ``--set`` with the
first set's format) run the first set, described below.

The labeled set (``tests/data/capture_set.jsonl``, one message a line) holds real-looking user
messages -- statements, questions, requests, commands, chit-chat, mixed, standing instructions, in
English, Chinese, Spanish, German, French and Portuguese -- each with ``facts``: the spans of the
message (verbatim) that state something about the person, and optionally ``not``: strings no stored
memory may contain. ``split`` is ``dev`` (the messages the rules were written against) or
``holdout`` (written at the same time, before the rules, and not looked at while tuning them).

Every message is captured in a fresh store (rules only; ``--llm`` adds the real chat model's
extraction), then each memory stored for it is judged against its labels (and, in the same run, what
the old capture kept -- every message whole as an episode plus the rules' facts -- as a baseline):

- an **episode** is correct when, after removing every labeled span from it, only filler words
  are left ("hi", "by the way", "remember that" ...): it holds nothing but statements;
- a **profile/fact** is correct when it is supported by the labeled spans alone (the capture
  validator, :func:`assistant.memory.language.validate.validate`, run against the spans and the spans with
  dates grounded), shares a content word with them (not only template words such as "lives") and
  contains none of the ``not`` strings.

    precision = correct stored memories / stored memories
    recall    = labeled spans found in a stored memory of their message / labeled spans

(text compared case- and space-insensitively, trailing punctuation ignored). Targets (issue 14):
precision >= 0.95, recall >= 0.9.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from assistant.config import Settings
from assistant.memory.language import rules as extract_rules
from assistant.memory.capture.capturer import Capturer
from assistant.memory.language.dates import ground
from assistant.memory.language.validate import STOPWORDS, TEMPLATE_WORDS, stem, validate, words

OBSERVED = datetime(2024, 3, 18, 10, 0, tzinfo=timezone.utc)  # a Monday
DEFAULT_SET = Path(__file__).resolve().parents[2] / "tests" / "data" / "capture_set.jsonl"
# what an episode may hold besides statements: fillers, greetings, "remember that" ...
FILLER_WORDS = frozenset(
    """hi hello hey ok okay so oh well by the way also btw just you know remember that please pls keep in mind note
    don't forget honestly lol haha yes yeah thanks thank morning good and but anyway actually fyi for context""".split()
)  # fmt: skip


@dataclass(frozen=True)
class Labeled:
    id: str
    split: str
    category: str
    lang: str
    text: str
    facts: tuple[str, ...]
    never: tuple[str, ...] = ()


@dataclass(frozen=True)
class StoredMemory:
    text: str
    kind: str  # "episode" | "profile" | "fact"


@dataclass
class Judged:
    """The verdict for one message."""

    item: Labeled
    stored: list[StoredMemory]
    wrong: list[StoredMemory] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)


def load_set(path: str | Path) -> list[Labeled]:
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        d = json.loads(line)
        item = Labeled(d["id"], d["split"], d["category"], d["lang"], d["text"], tuple(d["facts"]), tuple(d.get("not", ())))
        for span in item.facts:
            if span not in item.text:
                raise ValueError(f"line {n} ({item.id}): fact span {span!r} is not in the message")
        out.append(item)
    return out


def _norm(text: str) -> str:
    t = " ".join(text.casefold().replace("’", "'").split())
    return t.strip(" .!?。！？,;:…")


def _words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.casefold().replace("’", "'"))


def episode_ok(text: str, spans: Sequence[str]) -> bool:
    """Nothing but labeled spans and filler words."""
    rest = _norm(text)
    for span in sorted((_norm(s) for s in spans), key=len, reverse=True):
        if span:
            rest = rest.replace(span, " ")
    return all(w in FILLER_WORDS for w in _words(rest))


def fact_ok(text: str, spans: Sequence[str], never: Sequence[str]) -> bool:
    """Supported by the spans alone (the capture validator), shares a content word with them (not
    only the extractors' template words), and holds none of the ``never`` strings."""

    if not spans or any(n.casefold() in text.casefold() for n in never):
        return False
    said = "\n".join(spans)
    content = {stem(w) for w in words(said) if w.casefold() not in STOPWORDS | TEMPLATE_WORDS}
    if not any(stem(w) in content for w in words(text) if w.casefold() not in STOPWORDS | TEMPLATE_WORDS):
        return False
    return validate(text, [said, ground(said, OBSERVED).text]) is None


def judge(item: Labeled, stored: Sequence[StoredMemory]) -> Judged:
    out = Judged(item, list(stored))
    for m in stored:
        ok = episode_ok(m.text, item.facts) if m.kind == "episode" else fact_ok(m.text, item.facts, item.never)
        if not ok or (m.kind == "episode" and not item.facts):
            out.wrong.append(m)
    texts = [_norm(m.text) for m in stored]
    out.missed = [s for s in item.facts if not any(_norm(s) in t for t in texts)]
    return out


def capture_all(items: Sequence[Labeled], *, chat_model: Any = None) -> tuple[list[Judged], float]:
    """Capture every message in a throwaway store; (verdicts, seconds spent capturing)."""
    from assistant.memory.store.facade import MemoryStore  # deferred: the store (SQLCipher, numpy)

    verdicts: list[Judged] = []
    spent = 0.0
    with tempfile.TemporaryDirectory(prefix="keepsake-bench-capture-") as tmp:
        store = MemoryStore(Path(tmp) / "bench.db", encrypted=False)
        try:
            capturer = Capturer(store, chat_model, use_llm=chat_model is not None, settings=Settings(), tz=timezone.utc)
            for item in items:
                session = store.create_session(item.id)
                msg = store.add_message(session.id, "user", item.text, observed_at=OBSERVED)
                start = time.perf_counter()
                result = capturer.capture_message(msg.id)
                spent += time.perf_counter() - start
                ids = [i for i in [result.episode_id, *result.memory_ids] if i is not None]
                stored = [StoredMemory(m.text, m.kind.value) for m in store.get_many(ids)]
                verdicts.append(judge(item, stored))
        finally:
            store.close()
    return verdicts, spent


def baseline(items: Sequence[Labeled]) -> list[Judged]:
    """What capture did before statements were told apart: every message whole as an episode, plus
    the rules' facts from all of it (validated against the whole message)."""
    out = []
    for item in items:
        stored = [StoredMemory(item.text.strip(), "episode")]
        sources = [item.text, ground(item.text, OBSERVED).text]
        stored += [StoredMemory(c.text, c.kind.value) for c in extract_rules.extract(item.text, OBSERVED)
                   if validate(c.text, sources) is None]  # fmt: skip
        out.append(judge(item, stored))
    return out


def score(verdicts: Sequence[Judged]) -> dict[str, Any]:
    stored = sum(len(v.stored) for v in verdicts)
    wrong = sum(len(v.wrong) for v in verdicts)
    facts = sum(len(v.item.facts) for v in verdicts)
    missed = sum(len(v.missed) for v in verdicts)
    return {
        "messages": len(verdicts), "stored": stored, "correct": stored - wrong, "facts": facts,
        "recalled": facts - missed,
        "precision": round((stored - wrong) / stored, 4) if stored else 1.0,
        "recall": round((facts - missed) / facts, 4) if facts else 1.0,
    }  # fmt: skip


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", default=None, help="the labeled set (JSONL; default: tests/data/capture_dev2.jsonl for --split dev, "
                   "capture_heldout2.jsonl for heldout, capture_set.jsonl for holdout/all)")
    p.add_argument("--split", choices=["dev", "heldout", "holdout", "all"], default="dev",
                   help="dev / heldout: the clause-level sets; holdout / all: the first set (default dev)")
    p.add_argument("--locomo", default=None, metavar="DIR", help="capture recall on LoCoMo conversations (*.json) in DIR")
    p.add_argument("--llm", action="store_true", help="also run the chat model's extraction (slow; default: rules only)")
    p.add_argument("--errors", type=int, default=40, help="wrong and missed items listed (default 40)")


def run(args: argparse.Namespace) -> dict[str, Any]:
    from assistant.bench import capture_sets

    model = None
    if args.llm:
        model = args.services.chat_model()
        model.load()
    if args.locomo:
        return capture_sets.run_locomo(args.locomo, chat_model=model)
    if args.split in ("dev", "heldout") and (args.set is None or "split" not in Path(args.set).read_text("utf-8")[:2000]):
        return capture_sets.run_set(args.split, args.set, chat_model=model, errors=args.errors)
    path = Path(args.set or DEFAULT_SET)
    if not path.is_file():
        raise SystemExit(f"no labeled set at {path} (the benchmark runs from a source checkout, or pass --set)")
    items = [i for i in load_set(path) if args.split == "all" or i.split == args.split]
    verdicts, spent = capture_all(items, chat_model=model)
    by: dict[str, dict[str, list[Judged]]] = {"split": defaultdict(list), "category": defaultdict(list), "lang": defaultdict(list)}
    for v in verdicts:
        by["split"][v.item.split].append(v)
        by["category"][v.item.category].append(v)
        by["lang"][v.item.lang].append(v)
    errors = []
    for v in verdicts:
        for m in v.wrong:
            errors.append({"id": v.item.id, "error": "stored", "kind": m.kind, "text": m.text, "message": v.item.text})
        for s in v.missed:
            errors.append({"id": v.item.id, "error": "missed", "text": s, "message": v.item.text})
    return {
        "set": str(path), "split": args.split, "extractors": "rules+llm" if args.llm else "rules",
        **score(verdicts),
        "targets": {"precision": 0.95, "recall": 0.9},
        "baseline_whole_message": score(baseline(items)),
        "by_split": {k: score(v) for k, v in sorted(by["split"].items())},
        "by_category": {k: score(v) for k, v in sorted(by["category"].items())},
        "by_lang": {k: score(v) for k, v in sorted(by["lang"].items())},
        "kinds_stored": dict(Counter(m.kind for v in verdicts for m in v.stored)),
        "messages_per_s": round(len(verdicts) / spent, 1) if spent else None,
        "errors": errors[: max(0, args.errors)],
        "errors_total": len(errors),
    }  # fmt: skip


def format_text(r: dict[str, Any]) -> str:
    if "baseline_whole_message" not in r:
        from assistant.bench import capture_sets

        return capture_sets.format_text(r)
    lines = [f"capture on {r['messages']} labeled messages ({r['split']}, {r['extractors']}): "
             f"precision {r['precision']:.3f} ({r['correct']}/{r['stored']} stored memories correct), "
             f"recall {r['recall']:.3f} ({r['recalled']}/{r['facts']} stated facts kept); "
             f"targets >= {r['targets']['precision']} / >= {r['targets']['recall']}",
             f"  baseline (every message kept whole, as before): precision {r['baseline_whole_message']['precision']:.3f}, "
             f"recall {r['baseline_whole_message']['recall']:.3f}"]  # fmt: skip
    for group in ("by_split", "by_category", "by_lang"):
        lines.append(f"  {group[3:]}:")
        for k, s in r[group].items():
            lines.append(f"    {k:<12} {s['messages']:>4} msgs  stored {s['stored']:>4}  precision {s['precision']:.3f}  "
                         f"facts {s['facts']:>4}  recall {s['recall']:.3f}")  # fmt: skip
    if r["errors"]:
        lines.append(f"  errors ({len(r['errors'])} of {r['errors_total']}):")
        for e in r["errors"]:
            lines.append(f"    {e['id']}: {e['error']} {e.get('kind', '')} {e['text']!r}  <- {e['message']!r}")
    return "\n".join(lines)
