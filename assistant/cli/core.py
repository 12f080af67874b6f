"""Core commands: doctor, models, embed, chat, and launching the desktop app."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from typing import Iterator

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
        status = ("ok" + (f" ({e['note']})" if e["note"] else "")) if e["ok"] else f"BROKEN: {e['error']}"
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
class _Steps:
    """``[2/4] Loading SmolLM2-135M-Instruct... 0.4 s`` on stderr while the chat gets ready
    (silent when disabled, e.g. ``--once`` piped into another program)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.n = total, enabled, 0

    @contextlib.contextmanager
    def step(self, text: str) -> Iterator[None]:
        self.n += 1
        if self.enabled:
            print(f"[{self.n}/{self.total}] {text}...", end=" ", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            yield
        except BaseException:
            if self.enabled:
                print("failed", file=sys.stderr, flush=True)
            raise
        if self.enabled:
            print(f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)


def open_chat(args, *, show_progress: bool):
    """Load everything a chat needs, one announced step at a time, so the first reply does not
    pay for it: the memory, the embedding model, the chat model, then the one-time warm-ups
    (search's vector cache, date parsing)."""
    from assistant import services
    from assistant.engine.names import display_name
    from assistant.session import ChatSession

    steps = _Steps(4, show_progress)
    with steps.step("Opening your memory"):
        store = services.open_store()
    chat = None
    try:  # the session is checked (or created) before anything slow is loaded
        chat = ChatSession.open(session_id=args.session, incognito=args.incognito or None, store=store,
                                chat_model=services.get_chat_model(model=args.model),
                                retriever=services.get_retriever(store))  # fmt: skip
        embedder = services.get_embedder()
        with steps.step(f"Loading {display_name(embedder.path)} (memory search)"):
            _ = embedder.dim  # loads it
        with steps.step(f"Loading {display_name(chat.model.path)}"):
            chat.model.load()
        with steps.step("Warming up memory search and date reading"):
            from assistant.memory import dates

            chat.retriever.search("hello", k=1)
            dates.preload()
        return chat
    except BaseException:
        if chat is not None and args.session is None:
            _drop_if_empty(chat)
        store.close()
        raise


def _drop_if_empty(chat) -> None:
    """A conversation started here that never got a message is not kept (as in the app)."""
    if chat.store.get_session(chat.session_id).message_count == 0:
        chat.store.delete_session(chat.session_id)


def cmd_chat(args) -> int:
    interactive = args.once is None
    if not interactive and not args.once.strip():
        raise UserError("empty message")
    try:
        chat = open_chat(args, show_progress=interactive or (sys.stderr.isatty() and not args.json))
    except ModelError as exc:
        raise UserError(str(exc)) from None
    kw = {"max_tokens": args.max_tokens}
    if args.temperature is not None:
        kw["temperature"] = args.temperature
    if not interactive:
        turn = chat.send(args.once, **kw)
        result = turn.to_json()
        if args.json:
            print(dumps(result))
        else:
            print(turn.reply)
            _after_reply(turn)
        chat.close()
        return 0
    return _interactive(chat, kw, created=args.session is None)


def _after_reply(turn) -> None:
    """What code adds under a reply: why it was corrected, the memory answer, notices."""
    from assistant.answering import CORRECTION_NOTES, memory_line, show_memory_line

    if turn.correction in CORRECTION_NOTES and turn.correction != "empty":
        print(f"  ({CORRECTION_NOTES[turn.correction]})")
    if show_memory_line(turn.memory_answer):
        print(f"  {memory_line(turn.memory_answer)}")
    for notice in turn.notices:
        print(f"  * {notice}")


def _interactive(chat, kw, *, created: bool) -> int:
    from assistant.engine.names import display_name

    session = chat.store.get_session(chat.session_id)
    where = f"“{session.title}” (session {session.id})" if session.title else f"session {session.id}"
    private = " Private: nothing from it is remembered." if session.incognito else ""
    print(f"Keepsake chat with {display_name(chat.model.path)}, {where}.{private} Ctrl-D to quit, Ctrl-C stops a reply.")
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
        shown = ""
        try:
            for piece in chat.stream(text, cancel=cancel, **kw):
                shown += piece
                print(piece, end="", flush=True)
        except KeyboardInterrupt:
            cancel.set()
            print(" [stopped]")
        print()
        turn = chat.last_turn
        if turn is not None:
            if turn.correction is not None and turn.reply.strip() != shown.strip():  # replaced by code after it streamed
                print(f"keepsake> {turn.reply}")
            _after_reply(turn)
        chat.maintain(max_tokens=kw["max_tokens"])  # compaction (when due) now, not on the next message
    if created:
        _drop_if_empty(chat)
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
