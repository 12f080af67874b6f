"""Moving memories in and out: ``keepsake export FILE`` (memories and, unless told not to, the
conversations) and ``keepsake import-memories FILE`` (a Keepsake export back, idempotent;
``keepsake import`` reuses :func:`restore_export` when it recognises one)."""

from __future__ import annotations

import argparse

from assistant.cli import argtypes
from assistant.cli.common import UserError, add_json, emit, opened_store
from assistant.cli.memory import store_command
from assistant.memory.errors import StoreError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export all memories (and sessions) to a JSON file")
    p.add_argument("file")
    p.add_argument("--no-sessions", action="store_true", help="memories only")
    p.add_argument("--ids", type=argtypes.record_id, nargs="+", metavar="ID", help="only these memories (implies --no-sessions)")
    add_json(p)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import-memories", help="import a Keepsake JSON export (idempotent)")
    p.add_argument("file")
    p.add_argument("--keep-trust", action="store_true", help="keep the trust levels in the file (default: cap at 'imported')")
    add_json(p)
    p.set_defaults(func=cmd_import)


@store_command
def cmd_export(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        try:
            data = store.export_json(args.file, include_sessions=not (args.no_sessions or args.ids), ids=args.ids)
        except OSError as exc:
            raise UserError(f"cannot write {args.file}: {exc.strerror or exc}") from None
    summary = {"file": args.file, "memories": len(data["memories"]), "sessions": len(data.get("sessions", []))}
    emit(args, summary, f"exported {summary['memories']} memories and {summary['sessions']} sessions to {args.file}")
    return 0


@store_command
def cmd_import(args: argparse.Namespace) -> int:
    return restore_export(args, keep_trust=args.keep_trust)


def restore_export(args: argparse.Namespace, *, keep_trust: bool) -> int:
    """Restore a file written by ``keepsake export`` (``import-memories``, and ``keepsake import``
    when it recognises an export): memories with their versions and dates, sessions, messages."""

    try:
        with opened_store(args.services, with_embedder=True) as store:
            report = store.import_json(args.file, keep_trust=keep_trust)
    except (StoreError, ValueError) as exc:
        raise UserError(str(exc)) from None
    r = {"format": "keepsake", **report.to_json()}
    text = (f"restored a Keepsake export: {r['memories_added']} new memories ({r['memories_merged']} already known), "
            f"{r['sessions_added']} sessions, {r['messages_added']} messages")  # fmt: skip
    if r["errors"]:
        text += "\nskipped:\n" + "\n".join(f"  {e}" for e in r["errors"])
    emit(args, r, text)
    return 0
