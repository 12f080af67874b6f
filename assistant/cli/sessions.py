"""Conversation commands: ``keepsake sessions list|show|search|rename|delete``. Questions and
requests live here (in the messages), not in memory."""

from __future__ import annotations

import argparse
import sys

from assistant.cli import argtypes
from assistant.cli import forget as forget_cli
from assistant.cli.common import add_json, emit, opened_store
from assistant.cli.memory import fmt_date, store_command


def register(sub: argparse._SubParsersAction) -> None:
    ses = sub.add_parser("sessions", help="list, show, search, rename and delete chat sessions")
    ssub = ses.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    p = ssub.add_parser("list", help="sessions, most recent first")
    p.add_argument("--limit", type=argtypes.limit)
    add_json(p)
    p.set_defaults(func=cmd_sessions_list)
    p = ssub.add_parser("show", help="a session and its messages")
    p.add_argument("id", type=argtypes.record_id)
    add_json(p)
    p.set_defaults(func=cmd_sessions_show)
    p = ssub.add_parser("search", help="find messages in your conversations (questions and requests live here, not in memory)")
    p.add_argument("query")
    p.add_argument("--limit", type=argtypes.limit, default=20, help="how many messages (default 20)")
    add_json(p)
    p.set_defaults(func=cmd_sessions_search)
    p = ssub.add_parser("rename", help="set a session's title")
    p.add_argument("id", type=argtypes.record_id)
    p.add_argument("title")
    add_json(p)
    p.set_defaults(func=cmd_sessions_rename)
    p = ssub.add_parser("delete", help="delete a session, its messages and memories only it supports")
    p.add_argument("id", type=argtypes.record_id)
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--yes", "-y", action="store_true")
    add_json(p)
    p.set_defaults(func=cmd_sessions_delete)


@store_command
def cmd_sessions_list(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        items = store.list_sessions(limit=args.limit)
    emit(args, [s.to_json() for s in items],
         "\n".join(f"#{s.id:<5} {fmt_date(s.updated_at)}  {s.message_count:>4} msgs  {s.title or '(untitled)'}" for s in items)
         or "no sessions")  # fmt: skip
    return 0


@store_command
def cmd_sessions_show(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        s = store.get_session(args.id)
        msgs = store.messages(args.id)
    data = {**s.to_json(), "messages": [m.to_json() for m in msgs]}
    lines = [f"#{s.id} {s.title or '(untitled)'}"]
    lines += [f"  [{m.id}] {m.role.value}: {'[deleted]' if m.redacted else m.content}{' [part deleted]' if m.partly_redacted else ''}"
              for m in msgs]
    emit(args, data, "\n".join(lines))
    return 0


@store_command
def cmd_sessions_search(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        found = store.search_messages(args.query, limit=args.limit)
    lines = [f"#{m.session_id:<5} [{m.id}] {fmt_date(m.observed_at)}  {m.role.value}: {_one_line(m.content)}" for m in found]
    emit(args, [m.to_json() for m in found], "\n".join(lines) or "no message matches")
    return 0


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@store_command
def cmd_sessions_rename(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        s = store.rename_session(args.id, args.title)
    emit(args, s.to_json(), f"#{s.id} renamed to {s.title!r}")
    return 0


@store_command
def cmd_sessions_delete(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        plan = store.delete_session_preview(args.id)
        if args.dry_run:
            emit(args, plan.to_json(), "would delete:\n" + forget_cli.render(plan))
            return 0
        if not args.yes:
            print(forget_cli.render(plan), file=sys.stderr)
        if not forget_cli.ask(f"Delete session {args.id}, its messages and {len(plan.memory_ids)} memories?", args):
            emit(args, {"deleted": False}, "nothing deleted")
            return 1
        report = store.delete_session(args.id)
    return forget_cli.finish(args, report, "deleted")
