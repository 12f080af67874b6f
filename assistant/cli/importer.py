"""``keepsake import FILE [--json] [--no-llm]``: import past chats (Keepsake JSONL or a ChatGPT
export: ``conversations.json`` or the export zip). See :mod:`assistant.memory.importers`."""

from __future__ import annotations

import argparse
import sys

from assistant.cli.common import UserError, add_json, emit, open_cli_store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import",
        help="import past chats (Keepsake JSONL, ChatGPT export .json/.zip)",
        description="Import past conversations. Every message keeps its original time; re-importing "
        "the same file adds nothing; bad lines are reported and skipped. Memories from imports are "
        "marked 'imported'.",
    )
    p.add_argument("file", help="a .jsonl file, conversations.json, or a ChatGPT export .zip")
    p.add_argument("--no-llm", action="store_true", help="extract with the rules only (much faster)")
    add_json(p)
    p.set_defaults(func=cmd_import)


class _Bar:
    """A progress bar on stderr (redrawn in place on a terminal, else a line every 10%)."""

    def __init__(self, stream=None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.last = -1

    def __call__(self, done: int, total: int) -> None:
        pct = 100 if total == 0 else int(done * 100 / total)
        if not self.tty and pct // 10 == self.last // 10 and done != total:
            return
        if self.tty and pct == self.last and done != total:
            return
        self.last = pct
        filled = int(self.width * pct / 100)
        line = f"importing [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} messages"
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        if self.tty and done == total:
            self.stream.write("\n")
        self.stream.flush()


def _chat_model(args: argparse.Namespace):
    if args.no_llm:
        return None
    try:
        from assistant.services import get_chat_model

        model = get_chat_model()
        model.load()
        return model
    except Exception as exc:  # noqa: BLE001 - the rules still work without a model
        print(f"keepsake: note: chat model unavailable ({exc}); extracting with the rules only", file=sys.stderr)
        return None


def cmd_import(args: argparse.Namespace) -> int:
    from assistant.memory.errors import StorageError
    from assistant.memory.importers import ImportFormatError, import_file, read_file

    try:
        read_file(args.file)  # fail fast, before loading any model
    except ImportFormatError as exc:
        raise UserError(str(exc)) from None
    model = _chat_model(args)
    store = open_cli_store(with_embedder=True)
    try:
        report = import_file(store, args.file, chat_model=model, use_llm=model is not None,
                             progress=None if args.json else _Bar())  # fmt: skip
    except ImportFormatError as exc:
        raise UserError(str(exc)) from None
    except StorageError as exc:  # disk full, damaged file ... mid-import: say what is kept
        kept = "the messages imported before it are kept, and importing the file again adds only the rest"
        raise UserError(str(exc.with_outcome(kept))) from None
    finally:
        store.close()
    lines = [
        f"Imported {report.format} file {args.file}: {report.conversations} conversation(s), "
        f"{report.sessions_added} new session(s), {report.messages_added} new message(s) "
        f"({report.messages_existing} already there), {report.memories_added} new memories"
        + (f", {report.rejected} extracted fact(s) rejected by validation" if report.rejected else "")
        + "."
    ]
    if report.capture_skipped:
        lines.append(f"No memories captured: {report.capture_skipped}.")
    if report.problems:
        lines.append(f"{len(report.problems)} problem(s), skipped:")
        lines += [f"  {p}" for p in report.problems]
    emit(args, report.to_json(), "\n".join(lines))
    return 0
