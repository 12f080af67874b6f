"""Core commands: doctor, models, embed, chat, and launching the desktop app."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from typing import Iterator

from assistant.cli import argtypes
from assistant.cli import models as models_cli
from assistant.cli.common import UserError, add_json, dumps, emit
from assistant.engine import registry
from assistant.engine.errors import EngineError, ModelError
from assistant.engine.names import display_name

# The date-phrase module (dozens of regexes) is imported by the chat that uses it, not by every
# command that builds this parser.


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check the installation: versions, paths, models, keyring, chat engine")
    p.add_argument("--engine-url", metavar="URL", help="check this model server instead of the configured engine")
    p.add_argument("--engine-model", metavar="NAME", help="the server's model to check for")
    add_json(p)
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("models", help="list the local GGUF models; catalog/download/use: the curated catalog")
    add_json(p)
    p.set_defaults(func=cmd_models)
    models_cli.register_actions(p)

    p = sub.add_parser("embed", help="embed a text with the configured embedder")
    p.add_argument("text")
    add_json(p)
    p.set_defaults(func=cmd_embed)

    p = sub.add_parser("chat", help="chat in the terminal (or one turn with --once)")
    p.add_argument("--once", metavar="TEXT", help="send one message, print the reply and exit")
    p.add_argument("--session", metavar="ID", help="continue this session (default: a new one)")
    p.add_argument("--model", metavar="GGUF", help="use this chat model instead of the configured one")
    p.add_argument("--engine-url", metavar="URL",
                   help="chat with the model on this OpenAI-compatible server (e.g. http://host:8080/v1); memory stays here")
    p.add_argument("--engine-model", metavar="NAME", help="the server's model to use (default: the configured one, else the first it lists)")
    p.add_argument("--retry", action="store_true", help="with --session: answer the last message, which got no reply")
    p.add_argument("--incognito", action="store_true", help="remember nothing from this session")
    p.add_argument("--max-tokens", type=argtypes.tokens, default=512)
    p.add_argument("--temperature", type=argtypes.decimal(0.0, 5.0, "--temperature"), default=None, help="sampling temperature (default 0.2)")
    add_json(p)
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("app", help="open the desktop app")
    p.set_defaults(func=launch_app)


# -- doctor ------------------------------------------------------------------------------------
def cmd_doctor(args) -> int:
    from assistant.doctor import run_checks  # deferred: checks import every part they check

    report = run_checks(args.services.profile.with_settings(chat_settings(args)))
    if args.json:
        print(dumps(report))
    else:
        for c in report["checks"]:
            mark = "ok  " if c["ok"] else "FAIL"
            print(f"[{mark}] {c['name']}: {c['detail']}")
    return 0 if report["ok"] else 1


# -- models ------------------------------------------------------------------------------------
def cmd_models(args) -> int:
    entries = [e.to_json() for e in registry.discover(args.services.profile.paths)]
    lines = []
    for e in entries:
        status = ("ok" + (f" ({e['note']})" if e["note"] else "")) if e["ok"] else f"BROKEN: {e['error']}"
        roles = ",".join(e["roles"]) or "-"
        lines.append(f"{e['name']:<40} {roles:<16} {e['size_mb']:>8} MB  {e['source']:<8} {status}\n    {e['path']}")
    emit(args, {"models": entries}, "\n".join(lines) or "no models found")
    return 0


# -- embed -------------------------------------------------------------------------------------
def cmd_embed(args) -> int:
    try:
        emb = args.services.embedder()
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


def chat_settings(args):
    """The settings for this command: ``--engine-url``/``--engine-model`` put the chat on a
    model server for this run only (settings.json is not changed)."""
    settings = args.services.settings
    url, model = getattr(args, "engine_url", None), getattr(args, "engine_model", None)
    if url is not None and not url.strip():
        raise UserError("--engine-url is empty")
    if model is not None and not url:
        if not settings.engine_url:
            raise UserError("--engine-model needs --engine-url (no model server is configured)")
        url = settings.engine_url
    if url and getattr(args, "model", None):
        raise UserError("--model picks a local GGUF; it cannot be combined with --engine-url")
    return settings.with_server(url, model) if url else settings


def model_label(model) -> str:
    """The chat model as the person knows it: its file, or the server that runs it."""
    if getattr(model, "engine", "") == "openai":
        return f"{model.name} on the model server at {model.url}" if model.loaded else f"the model server at {model.url}"
    return display_name(model.path)


def open_chat(args, settings, *, show_progress: bool, connect: bool = True, warm: bool = True):
    """Load everything a chat needs, one announced step at a time, so the first reply does not
    pay for it: the memory, the embedding model, the chat model (a model server is checked, with
    ``connect``; one that does not answer is reported and the chat opens anyway: messages are
    kept and can be retried), then, with ``warm``, the one-time warm-ups (a first search, date
    parsing) that keep the first typed message as fast as the next. Both model files (and the
    date parser) load on their own threads from the start, while the memory opens (the steps
    then wait for what is not ready yet). A single turn (``--once``) is sent at once: it warms
    nothing up, and parses dates only if its message holds one (dateparser costs ~0.2 s)."""
    from assistant.memory.language import dates

    services = args.services
    steps = _Steps(4 if warm else 3, show_progress)
    chat_model = services.chat_model(model=args.model, settings=settings)  # a wrong file: its reason, before anything loads
    local = getattr(chat_model, "engine", "") != "openai"
    services.load_in_background(lambda: services.embedder().dim, *((chat_model.load,) if local else ()),
                                *((dates.preload,) if warm else ()))  # fmt: skip
    with steps.step("Opening your memory"):  # the vectors (for the first search) are read from now on, in the background
        store = services.open_store(warm=True)
    chat = None
    try:  # the session is checked (or created) before anything slow is waited for
        store.verify_soon()  # the integrity check the first write waits for (unless the file is as last checked), in the background
        from assistant.session import ChatSession  # deferred: retrieval, capture, context; imported meanwhile

        chat = ChatSession.open(services, args.session, incognito=args.incognito or None, store=store, settings=settings,
                                chat_model=chat_model, retriever=services.retriever(store))  # fmt: skip
        embedder = services.embedder()
        with steps.step(f"Loading {display_name(embedder.path)} (memory search)"):
            _ = embedder.dim  # loads it
        if local:
            with steps.step(f"Loading {display_name(chat.model.path)}"):
                chat.model.load()
        else:
            with steps.step(f"Checking the model server at {chat.model.url}"):
                if connect:
                    try:
                        chat.model.connect()
                    except EngineError as exc:
                        print(f"not answering ({exc}); your messages are kept and /retry sends one again.",
                              end=" ", file=sys.stderr)  # fmt: skip
        if warm:
            with steps.step("Warming up memory search and date reading"):
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
    interactive = args.once is None and not getattr(args, "retry", False)
    if args.once is not None and not args.once.strip():
        raise UserError("empty message")
    settings = chat_settings(args)
    if getattr(args, "retry", False) and args.session is None:
        raise UserError("--retry needs --session ID (the conversation whose last message got no reply)")
    if getattr(args, "retry", False) and args.once is not None:
        raise UserError("--retry resends the stored message; it takes no --once text")
    try:  # one turn: a server is contacted by the turn itself, after the message is stored
        chat = open_chat(args, settings, show_progress=interactive or (sys.stderr.isatty() and not args.json), connect=interactive,
                         warm=interactive)  # fmt: skip
    except ModelError as exc:
        raise UserError(str(exc)) from None
    kw = {"max_tokens": args.max_tokens}
    if args.temperature is not None:
        kw["temperature"] = args.temperature
    try:  # the memory is closed when the chat is done: checkpointed, and stamped healthy (no check next time)
        return _one_turn(args, chat, kw) if not interactive else _interactive(chat, kw, created=args.session is None)
    finally:
        chat.store.close()


def _one_turn(args, chat, kw) -> int:
    try:
        turn = chat.send(args.once, **kw) if args.once is not None else _drain(chat.retry(**kw), chat)
        chat.note_saved(turn)  # "Saved: ..." once the message's capture is done
    except EngineError as exc:
        raise _kept(exc, chat, as_json=args.json) from None
    finally:
        chat.close()
    if args.json:
        print(dumps(turn.to_json()))
    else:
        print(turn.reply)
        _after_reply(turn)
    return 0


def _drain(pieces, chat):
    for _ in pieces:
        pass
    return chat.last_turn


def _kept(exc: EngineError, chat, *, as_json: bool = False) -> UserError:
    """The engine failed: one line saying so, that the message is kept, and how to retry. A
    reply cut off by a deadline was stored as far as it came: it is printed first."""
    turn, sid = chat.last_turn, chat.session_id
    if turn is not None and turn.assistant_message_id is not None:
        if not as_json:
            print(turn.reply)
        err = UserError(f"{exc} - the partial reply above is kept in session {sid}")
        err.data = {"kind": exc.kind, "session_id": sid, "partial_reply": turn.reply, "assistant_message_id": turn.assistant_message_id}
        return err
    message = chat.unanswered()
    err = UserError(f"{exc} - your message is kept in session {sid}; retry with: keepsake chat --session {sid} --retry")
    err.data = {"kind": exc.kind, "session_id": sid, "user_message_id": message.id if message else None}
    return err


#: Memories listed under "I'm not sure: nothing I remember answers that." (the window lists them too).
LOOKED_AT = 5


def _after_reply(turn) -> None:
    """What code adds under a reply: why it was corrected, the memory answer, notices."""
    from assistant.answering import CORRECTION_NOTES, memory_line, show_memory_line, source_line  # deferred: the store (SQLCipher, numpy)

    if turn.correction in CORRECTION_NOTES and turn.correction != "empty":
        print(f"  ({CORRECTION_NOTES[turn.correction]})")
    if show_memory_line(turn.memory_answer):
        print(f"  {memory_line(turn.memory_answer)}")
    elif turn.memory_answer:  # the reply says it: where it came from, in a few words
        print(f"  {source_line(turn.memory_answer)}")
    if turn.correction == "unknown" and turn.injected_memories:  # "... The memories I looked at are listed under this reply."
        print("  Memories looked at:")
        for m in turn.injected_memories[:LOOKED_AT]:
            print(f"  - {m.text} (memory #{m.id})")
    for notice in turn.notices:
        print(f"  * {notice}")


def _interactive(chat, kw, *, created: bool) -> int:
    from assistant.session import NothingToRetry  # deferred: the store (see open_chat)

    session = chat.store.get_session(chat.session_id)
    where = f"“{session.title}” (session {session.id})" if session.title else f"session {session.id}"
    private = " Private: nothing from it is remembered." if session.incognito else ""
    print(f"Keepsake chat with {model_label(chat.model)}, {where}.{private} Ctrl-D to quit, Ctrl-C stops a reply.")
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
            pieces = chat.retry(cancel=cancel, **kw) if text.strip() == "/retry" else chat.stream(text, cancel=cancel, **kw)
            for piece in pieces:
                shown += piece
                print(piece, end="", flush=True)
        except KeyboardInterrupt:
            cancel.set()
            print(" [stopped]")
        except (EngineError, NothingToRetry) as exc:
            hint = " Your message is kept: type /retry to send it again." if isinstance(exc, EngineError) else ""
            print(f"\n[error] {exc}.{hint}")
            continue
        print()
        turn = chat.last_turn
        if turn is not None:
            if turn.correction is not None and turn.reply.strip() != shown.strip():  # replaced by code after it streamed
                print(f"keepsake> {turn.reply}")
            chat.note_saved(turn)
            _after_reply(turn)
            _confirm_forget(chat, turn)
        chat.maintain(max_tokens=kw["max_tokens"])  # compaction (when due) now, not on the next message
    if created:
        _drop_if_empty(chat)
    chat.close()
    return 0


def _confirm_forget(chat, turn) -> None:
    """"forget X" in the terminal: list the candidates and ask before anything is deleted."""
    from assistant.cli.forget import confirm_and_forget, describe_candidates, render  # deferred: the store (see open_chat)
    from assistant.memory.forget.topic import Candidate  # deferred: the store (SQLCipher, numpy)

    cands = [Candidate.from_json(d) for d in turn.forget_candidates]
    if not any(c.pre_ticked for c in cands):
        return
    print(describe_candidates(cands))

    def confirm(question: str) -> bool:
        try:
            return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
        except EOFError:
            return False

    report = confirm_and_forget(chat.store, cands, confirm)
    if report is None:
        print("  · Nothing was forgotten.")
        return
    from assistant.memory.wording import found_phrase

    # "1 memory and 1 of your messages", as the notice before said what was found (a kept copy is a message)
    gone = [c for c in turn.forget_candidates if c.get("pre_ticked") and int(c["id"]) in set(report.requested_ids)]
    print(f"  · Forgot {found_phrase(gone)} about “{turn.forget_query}”.")
    if not report.ok:
        print(render(report))


# -- desktop app -------------------------------------------------------------------------------
def launch_app(args, profile) -> int:
    """Open the desktop app on ``profile``, or say why it cannot open here (no display, or a
    system library Qt's platform plugin needs is missing: checked before Qt would abort) and
    offer the terminal chat instead."""
    from ui import platform_check  # ui imports only when the app is asked for: the core never needs it

    if not platform_check.has_display(os.environ):
        return _offer_terminal_chat(profile, "keepsake: no display available (no DISPLAY or WAYLAND_DISPLAY), "
                                    "so the desktop app cannot open.")  # fmt: skip
    problem = platform_check.find_problem(os.environ)
    if problem is not None:
        return _offer_terminal_chat(profile, f"keepsake: {problem.message()}")
    from ui.app import main as ui_main  # PySide6: loaded only to open the app

    return ui_main(profile=profile)


def _offer_terminal_chat(profile, reason: str) -> int:
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
    from assistant.services import Services

    with Services(profile) as services:
        ns = argparse.Namespace(session=None, model=None, incognito=False, max_tokens=512, temperature=None, once=None,
                                json=False, retry=False, services=services)  # fmt: skip
        return cmd_chat(ns)
