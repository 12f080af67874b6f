"""Core commands: doctor, models, embed, chat, and launching the desktop app."""

from __future__ import annotations

import argparse
import os
import sys
import threading

from assistant.cli.common import UserError, add_json, dumps, emit
from assistant.config import paths
from assistant.engine.errors import ModelError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check the installation: versions, paths, models, keyring")
    add_json(p)
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("models", help="list the default and discovered GGUF models")
    add_json(p)
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("embed", help="embed a text with the configured embedder")
    p.add_argument("text")
    add_json(p)
    p.set_defaults(func=cmd_embed)

    p = sub.add_parser("chat", help="chat in the terminal (or one turn with --once)")
    p.add_argument("--once", metavar="TEXT", help="send one message, print the reply and exit")
    p.add_argument("--session", metavar="ID", help="continue this session (default: a new one)")
    p.add_argument("--model", metavar="GGUF", help="use this chat model instead of the configured one")
    p.add_argument("--incognito", action="store_true", help="remember nothing from this session")
    p.add_argument("--max-tokens", type=int, default=512)
    p.add_argument("--temperature", type=float, default=None, help="sampling temperature (default 0.2)")
    add_json(p)
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("app", help="open the desktop app")
    p.set_defaults(func=launch_app)


# -- doctor ------------------------------------------------------------------------------------
def cmd_doctor(args) -> int:
    from assistant.doctor import run_checks

    report = run_checks()
    if args.json:
        print(dumps(report))
    else:
        for c in report["checks"]:
            mark = "ok  " if c["ok"] else "FAIL"
            print(f"[{mark}] {c['name']}: {c['detail']}")
    return 0 if report["ok"] else 1


# -- models ------------------------------------------------------------------------------------
def cmd_models(args) -> int:
    from assistant.engine import registry

    entries = [e.to_json() for e in registry.discover()]
    lines = []
    for e in entries:
        status = "ok" if e["ok"] else f"BROKEN: {e['error']}"
        roles = ",".join(e["roles"]) or "-"
        lines.append(f"{e['name']:<40} {roles:<16} {e['size_mb']:>8} MB  {e['source']:<8} {status}\n    {e['path']}")
    emit(args, {"models": entries}, "\n".join(lines) or "no models found")
    return 0


# -- embed -------------------------------------------------------------------------------------
def cmd_embed(args) -> int:
    from assistant.services import get_embedder

    try:
        emb = get_embedder()
        vec = emb.embed_one(args.text)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    emit(args, {"model": emb.name, "dim": len(vec), "embedding": vec},
         f"{emb.name}: {len(vec)} dims [{', '.join(f'{x:.4f}' for x in vec[:6])}, ...]")
    return 0


# -- chat --------------------------------------------------------------------------------------
def cmd_chat(args) -> int:
    from assistant.session import ChatSession

    try:
        chat = ChatSession.open(session_id=args.session, model=args.model, incognito=args.incognito or None)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    kw = {"max_tokens": args.max_tokens}
    if args.temperature is not None:
        kw["temperature"] = args.temperature
    if args.once is not None:
        if not args.once.strip():
            raise UserError("empty message")
        turn = chat.send(args.once, **kw)
        result = turn.to_json()
        if args.json:
            print(dumps(result))
        else:
            print(turn.reply)
        chat.close()
        return 0
    return _interactive(chat, kw)


def _interactive(chat, kw) -> int:
    print(f"Keepsake chat — session {chat.session_id}. Ctrl-D to quit, Ctrl-C stops a reply.")
    while True:
        try:
            text = input("\nyou> ")
        except (EOFError, KeyboardInterrupt):
            print()
            break
        if not text.strip():
            continue
        cancel = threading.Event()
        print("keepsake> ", end="", flush=True)
        try:
            for piece in chat.stream(text, cancel=cancel, **kw):
                print(piece, end="", flush=True)
        except KeyboardInterrupt:
            cancel.set()
            print(" [stopped]")
        print()
        chat.maintain(max_tokens=kw["max_tokens"])  # compaction (when due) now, not on the next message
    chat.close()
    return 0


# -- desktop app -------------------------------------------------------------------------------
def launch_app(args=None) -> int:
    """Open the desktop app, or say why it cannot open here (no display, or a system library
    Qt's platform plugin needs is missing: checked before Qt would abort) and offer the
    terminal chat instead."""
    from ui import platform_check

    if not platform_check.has_display(os.environ):
        return _offer_terminal_chat("keepsake: no display available (no DISPLAY or WAYLAND_DISPLAY), "
                                    "so the desktop app cannot open.")  # fmt: skip
    problem = platform_check.find_problem(os.environ)
    if problem is not None:
        return _offer_terminal_chat(f"keepsake: {problem.message()}")
    from ui.app import main as ui_main

    return ui_main()


def _offer_terminal_chat(reason: str) -> int:
    print(reason, file=sys.stderr)
    if not sys.stdin.isatty():
        print("Run `keepsake chat` for the terminal chat.", file=sys.stderr)
        return 1
    try:
        answer = input("Start the terminal chat instead? [Y/n] ").strip().lower()
    except EOFError:
        answer = "n"
    if answer not in ("", "y", "yes"):
        return 1
    ns = argparse.Namespace(session=None, model=None, incognito=False, max_tokens=512, temperature=None, once=None, json=False)
    return cmd_chat(ns)
