"""``keepsake notices``: what capture kept from your messages ("Saved: ..."), per message, the CLI
face of the app's "Saved: ..." line (issue 24). Each memory carries its id; ``keepsake memory
delete ID`` takes one back. A message that stored nothing is not listed."""

from __future__ import annotations

import argparse
from datetime import datetime

from assistant.cli import argtypes
from assistant.cli.common import add_json, emit, opened_store
from assistant.cli.memory import fmt_date, store_command
from assistant.memory.capture.saved import UNDO_HINT, saved_from
from assistant.memory.entries import title_from


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("notices", help="what was saved to memory from your messages (\"Saved: ...\"), with ids to take back")
    p.add_argument("--session", type=argtypes.record_id, default=None, help="this conversation (default: the most recent)")
    p.add_argument("--limit", type=argtypes.limit, default=20, help="the last N messages that saved something (default 20)")
    p.add_argument("--all", action="store_true", help="every conversation, oldest first (each with its last --limit messages)")
    add_json(p)
    p.set_defaults(func=cmd_notices)


def notices(store, session_id: int | None, limit: int | None = 20) -> dict:
    """{"session_id", "title", "messages": [{"message_id", "said", "at", "saved": [{"id", "text", "kind"}]}]}:
    the person's messages of the conversation that kept memories, oldest first (the last ``limit``)."""
    if session_id is None:
        recent = store.list_sessions(limit=1)
        if not recent:
            return {"session_id": None, "title": None, "messages": []}
        session_id = recent[0].id
    session = store.get_session(session_id)
    out = []
    for m in store.messages(session_id):
        if m.role.value != "user":
            continue
        kept = saved_from(store, m.id)
        if kept:
            out.append({"message_id": m.id, "said": m.content, "at": m.created_at.isoformat(),
                        "saved": [{"id": k.id, "text": k.text, "kind": k.kind.value} for k in kept]})  # fmt: skip
    return {"session_id": session_id, "title": session.title, "messages": out[-limit:] if limit else out}


def _text(data: dict) -> str:
    if data["session_id"] is None:
        return "No conversations yet."
    head = f"Conversation #{data['session_id']} {data['title'] or '(untitled)'}"
    if not data["messages"]:
        return f"{head}\nNothing was saved to memory from your messages here."
    lines = [head]
    for m in data["messages"]:
        lines.append(f"  {fmt_date(datetime.fromisoformat(m['at']))}  you: {title_from(m['said'])}")
        lines.append("    Saved: " + "; ".join(f"{s['text']} (#{s['id']})" for s in m["saved"]))
    lines.append(UNDO_HINT[0].upper() + UNDO_HINT[1:])
    return "\n".join(lines)


def every_conversation(store, limit: int | None = 20) -> dict:
    """{"sessions": [notices(...) of each conversation that kept memories, oldest first]}."""
    found = [notices(store, s.id, limit) for s in reversed(store.list_sessions(limit=None))]
    return {"sessions": [d for d in found if d["messages"]]}


@store_command
def cmd_notices(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        data = every_conversation(store, args.limit) if args.all else notices(store, args.session, args.limit)
    if args.all:
        emit(args, data, lambda: "\n\n".join(_text(d) for d in data["sessions"]) or "Nothing was saved to memory from your messages yet.")
    else:
        emit(args, data, lambda: _text(data))
    return 0
