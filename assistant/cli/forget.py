"""Forgetting from the terminal: the report every delete prints, ``keepsake memory forget TEXT``
(the chat's "forget X" without the chat) and ``keepsake memory forget-versions ID`` ("forget
the old wording"). The same services as the app's dialogs: :mod:`assistant.memory.forget`.

    keepsake memory forget "my dog"                # lists the candidates, asks "Forget these N? [y/N]"
    keepsake memory forget "my dog" --yes --json   # forgets the pre-ticked ones, prints the report
    keepsake memory forget "my dog" --only 4 9     # exactly these candidates
    keepsake memory forget "my dog" --dry-run      # candidates and what would go, nothing changes
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from dataclasses import replace
from typing import Any, Callable, Sequence

from assistant.cli import argtypes
from assistant.cli.common import UserError, add_json, emit, opened_store
from assistant.memory.wording import quoted

MAX_SHOWN = 160


def _q(text: str) -> str:
    return quoted(text, MAX_SHOWN)


def render(report: Any) -> str:
    """A delete report as text: what goes whole, which sentences go and what stays, per holder
    counts, earlier exports still holding it, errors."""
    lines = []
    for cut in report.memories_removed:
        lines.append(f"memory #{cut.id} goes: {_q(cut.removed[0])}")
    said = {(tuple(c.removed), c.kept) for c in report.message_edits}
    for cut in report.memory_edits:
        if (tuple(cut.removed), cut.kept) in said:
            continue  # your message's kept copy (its episode) loses the same: listed once, as the message
        gone = "; ".join(_q(s) for s in cut.removed)
        lines.append(f"memory #{cut.id} loses {gone}; stays: {_q(cut.kept)}")
    for cut in report.message_edits:
        who = "reply" if cut.role == "assistant" else "your message"
        gone = "; ".join(_q(s) for s in cut.removed)
        lines.append(f"{who} #{cut.id} loses {gone}; " + (f"stays: {_q(cut.kept)}" if cut.kept else "nothing of it stays"))
    for p in getattr(report, "proposed", ()):
        take = "taken only with --with-copies" if not report.executed else "kept"
        lines.append(f"memory #{p.memory_id} stays ({take}): {p.reason}: {_q(p.text)}")
    if report.detached_ids:
        lines.append(f"memories also learned elsewhere stay (they only lose this link): {', '.join(f'#{i}' for i in report.detached_ids)}")
    if report.session_ids:
        lines.append(f"conversation #{report.session_ids[0]} goes with its {len(report.deleted_message_ids)} messages")
    for path in report.exports:
        lines.append(f"an export you made earlier still holds this (your file; Keepsake does not touch it): {path}")
    lines += [f"note: {n}" for n in report.notes]
    counts = ", ".join(f"{k}: {v}" for k, v in report.counts.items() if v)
    lines.append(f"rows: {counts or 'none'}")
    lines += [f"ERROR: {e}" for e in report.errors]
    return "\n".join(lines)


def finish(args: argparse.Namespace, report: Any, head: str) -> int:
    """Print an executed report; exit code 1 when a holder failed (the text says which)."""
    emit(args, report.to_json(), f"{head}:\n{render(report)}")
    if not report.ok:
        if not getattr(args, "json", False):
            print("keepsake: the delete reported errors (see above)", file=sys.stderr)
        return 1
    return 0


def ask(question: str, args: argparse.Namespace) -> bool:
    """``--yes``, else a [y/N] question on a terminal; refuses (UserError) when not interactive."""
    if getattr(args, "yes", False):
        return True
    if not sys.stdin.isatty():
        raise UserError("refusing to delete without --yes when not interactive (see --dry-run first)")
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def describe_candidates(cands: Sequence[Any]) -> str:
    lines = []
    for c in cands:
        box = "[x]" if c.pre_ticked else "[ ]"
        what = "whole" if c.whole else "part: " + "; ".join(_q(s) for s in c.removed) + f" (stays: {_q(c.kept)})"
        lines.append(f"{box} #{c.memory_id} {_q(c.text)} - {what} - {c.reason}")
    return "\n".join(lines)


def confirm_and_forget(store: Any, cands: Sequence[Any], confirm: Callable[[str], bool]) -> Any | None:
    """The terminal's confirmation step shared by ``keepsake chat`` and ``memory forget``: the
    pre-ticked candidates, one question, then one forget. None when nothing was chosen/confirmed."""
    from assistant.memory.forget.topic import request_for  # deferred: the store (SQLCipher, numpy)

    chosen = [c for c in cands if c.pre_ticked]
    if not chosen:
        return None
    n = len(chosen)
    if not confirm(f"Forget these {n}?"):
        return None
    return store.forget(request_for(chosen))


def register(msub: argparse._SubParsersAction) -> None:
    p = msub.add_parser("forget", help='forget what you said about something ("my dog"): shows the candidates first')
    p.add_argument("text", help="what to forget, in your words")
    p.add_argument("--yes", "-y", action="store_true", help="forget the pre-ticked candidates without asking")
    p.add_argument("--only", type=argtypes.record_id, nargs="+", metavar="ID", help="forget exactly these candidates (ticked or not)")
    p.add_argument("--dry-run", action="store_true", help="only show the candidates and what would go")
    p.add_argument("--with-copies", action="store_true",
                   help="also take the other memories that hold a forgotten text (listed as proposed copies; never taken otherwise)")
    add_json(p)
    p.set_defaults(func=cmd_forget)

    p = msub.add_parser("forget-versions", help="forget the old wording of a memory: its earlier versions go")
    p.add_argument("id", type=argtypes.record_id)
    p.add_argument("--yes", "-y", action="store_true")
    p.add_argument("--dry-run", action="store_true")
    add_json(p)
    p.set_defaults(func=cmd_forget_versions)


def _retriever(services: Any, store: Any) -> Any:
    try:
        return services.retriever(store)
    except Exception as exc:  # noqa: BLE001 - no embedder: the words still find what is about it
        print(f"keepsake: note: semantic search unavailable ({exc}); matching by words only", file=sys.stderr)
        return None


def cmd_forget(args: argparse.Namespace) -> int:
    from assistant.memory.forget.topic import request_for  # deferred: the store (SQLCipher, numpy)

    if not args.text.strip():
        raise UserError("say what to forget, e.g. keepsake memory forget \"my dog\"")
    with opened_store(args.services, with_embedder=True) as store, _maintenance(store, args):
        cands = store_candidates(args.services, store, args.text)
        if args.only:
            by_id = {c.memory_id: c for c in cands}
            unknown = [i for i in args.only if i not in by_id]
            if unknown:
                raise UserError(f"not a candidate for {args.text!r}: {', '.join(f'#{i}' for i in unknown)}")
            chosen = [by_id[i] for i in args.only]
        else:
            chosen = [c for c in cands if c.pre_ticked]
        data = {"query": args.text, "candidates": [c.to_json() for c in cands], "chosen": [c.memory_id for c in chosen]}
        if not chosen:
            emit(args, {**data, "forgotten": False}, (describe_candidates(cands) + "\n" if cands else "") + "nothing about it to forget")
            return 0
        request = request_for(chosen)
        preview = store.forget_preview(request)
        if args.with_copies and preview.proposed:  # exactly the copies shown, whatever is added meanwhile
            request = replace(request, copies=tuple(p.memory_id for p in preview.proposed))
            preview = store.forget_preview(request)
        if args.dry_run:
            emit(args, {**data, "preview": preview.to_json()}, describe_candidates(cands) + "\nwould forget:\n" + render(preview))
            return 0
        if not args.yes and not args.json:
            print(describe_candidates(cands) + "\n" + render(preview), file=sys.stderr)
        if not ask(f"Forget these {len(chosen)}?", args):
            emit(args, {**data, "forgotten": False}, "nothing forgotten")
            return 1
        report = store.forget(request)
    if args.json:
        emit(args, {**data, "forgotten": report.executed, "report": report.to_json()})
        return 0 if report.ok else 1
    return finish(args, report, "forgotten")


def _maintenance(store: Any, args: argparse.Namespace) -> Any:
    """Without a question to the person (``--yes``), candidates, preview and forget are one unit
    a tidy-up does not run in the middle of (:mod:`assistant.memory.store.sqlite.worklock`)."""
    from assistant.memory.store.sqlite.worklock import maintenance  # deferred with the store

    return maintenance(store.path) if args.yes else contextlib.nullcontext()


def store_candidates(services: Any, store: Any, text: str) -> list[Any]:
    from assistant.memory.forget import topic  # deferred: the store (SQLCipher, numpy)

    return topic.propose(store, _retriever(services, store), text)


def cmd_forget_versions(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        preview = store.purge_versions_preview(args.id)
        versions = [v for v in store.history(args.id) if v.version != store.get(args.id).version]
        if args.dry_run or not versions:
            emit(args, {**preview.to_json(), "versions": len(versions)},
                 f"{len(versions)} earlier version(s) of #{args.id}" + ("" if versions else ": nothing to forget"))  # fmt: skip
            return 0
        if not ask(f"Forget the {len(versions)} earlier version(s) of #{args.id}?", args):
            emit(args, {"forgotten": False}, "nothing forgotten")
            return 1
        report = store.purge_versions(args.id)
    return finish(args, report, f"forgot the old wording of #{args.id}")
