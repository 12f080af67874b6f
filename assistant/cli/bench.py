"""`keepsake bench NAME [--json]`: performance figures (never asserted in tests).

Benchmarks live in ``assistant/bench/<name>.py``; each module has ``add_arguments(parser)`` and
``run(args) -> dict``. Modules are imported only when their command runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from assistant.cli.common import UserError, add_json, dumps

#: Benchmarks that measure in child Python processes (``sys.executable -m/-c``): a frozen
#: desktop bundle has no Python interpreter to start, so they only run from a source checkout.
CHILD_PROCESS_BENCHES = ("retrieval", "consolidate", "ui", "faults", "startup")


def _needs_checkout(name: str) -> bool:
    """True for a child-process benchmark in a frozen bundle (it cannot run there)."""
    return bool(getattr(sys, "frozen", False)) and name in CHILD_PROCESS_BENCHES

BENCHES = {
    "retrieval": "hybrid memory search at 1k/10k/100k memories vs a numpy brute-force baseline",
    "context": "prompt tokens evaluated and TTFT per turn: Keepsake's assembler vs a naive one",
    "consolidate": "wall time and peak memory of a full consolidation run",
    "ui": "window start-up, UI-thread stalls, inspector at 100k memories",
    "faults": "SIGKILL keepsake consolidate at random moments: every run all or nothing, undoable",
    "forget": "delete / forget / delete-conversation time at 1k and 10k memories vs one edit",
    "capture": "precision/recall of what capture keeps, on the labeled message set",
    "import": "user messages/s of 'keepsake import' (rules capture) vs one message at a time",
    "answers": "does the memory reach the person: seeded questions through the real ChatSession, scored by code",
    "locomo": "LoCoMo conversations: Keepsake recall@5 vs dense MiniLM and BM25, answer shown vs naive RAG",
    "general": "general questions that mention the person: how many code reads as asking for a fact of their life",
    "truth": "a change said in plain words stays true: now, as of a date, after tidy-up and after undo",
    "startup": "cold start of --version, memory list/search, chat --once and the app vs the llama.cpp floor, empty and 10k memories",
}
#: Benchmarks whose module name differs from the command ("import" is a Python keyword).
MODULES = {"import": "imports"}


def named_in(argv: list[str]) -> str:
    """The benchmark ``argv`` runs (``bench NAME ...``); "" when it runs none."""
    if argv[:1] != ["bench"]:
        return ""
    return next((a for a in argv[1:] if not a.startswith("-")), "")


def register(sub: argparse._SubParsersAction, only: str | None = None) -> None:
    """``only``: import just this benchmark's module for its options (None: every one; "" or a
    name no benchmark has: none), so commands other than ``bench NAME`` import no benchmark."""
    p = sub.add_parser("bench", help="run a benchmark")
    bsub = p.add_subparsers(dest="bench", metavar="NAME")
    for name, help_text in BENCHES.items():
        bp = bsub.add_parser(name, help=help_text)
        add_json(bp)
        if only is not None and name != only:
            bp.set_defaults(func=_missing, bench_name=name)  # never run: another command was parsed
            continue
        try:
            module = importlib.import_module(f"assistant.bench.{MODULES.get(name, name)}")
        except ImportError:
            bp.set_defaults(func=_missing, bench_name=name)
            continue
        module.add_arguments(bp)
        bp.set_defaults(func=_runner(module))
    ap = bsub.add_parser("all", help="run every benchmark with its defaults")
    add_json(ap)
    ap.set_defaults(func=_run_all)


def _runner(module):
    def run(args) -> int:
        name = args.bench
        if _needs_checkout(name):
            raise UserError(f"'keepsake bench {name}' starts Python child processes and runs from a source "
                            "checkout only (make bench); the desktop bundle has no Python interpreter")  # fmt: skip
        result = module.run(args)
        if args.json:
            print(dumps(result))
        else:
            print(getattr(module, "format_text", dumps)(result))
        return 0

    return run


def _missing(args) -> int:
    print(f"benchmark '{args.bench_name}' is not available in this build")
    return 1


def _run_all(args) -> int:
    results = {}
    for name in BENCHES:
        try:
            module = importlib.import_module(f"assistant.bench.{MODULES.get(name, name)}")
        except ImportError:
            continue
        if _needs_checkout(name):
            results[name] = {"skipped": "runs from a source checkout only (starts Python child processes)"}
            continue
        parser = argparse.ArgumentParser()
        module.add_arguments(parser)
        ns = parser.parse_args([])
        ns.json, ns.services = args.json, args.services
        results[name] = module.run(ns)
        if not args.json:
            print(f"== {name}")
            print(getattr(module, "format_text", dumps)(results[name]))
    if args.json:
        print(dumps(results))
    return 0
