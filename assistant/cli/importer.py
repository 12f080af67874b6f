"""``keepsake import FILE [--json] [--no-llm]``: import past chats (Keepsake JSONL or a ChatGPT
export: ``conversations.json`` or the export zip), or restore a Keepsake export
(``keepsake export f.json``; the same as ``keepsake import-memories``). See
:mod:`assistant.memory.capture.importing.importers`.

Progress goes to stderr (also with ``--json``, whose stdout stays one JSON document): redrawn in
place on a terminal, else a line every 10%; the summary comes at the end."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from assistant.cli.common import UserError, add_json, emit, open_cli_store
from assistant.cli.transfer import restore_export
from assistant.memory.errors import StorageError

MAX_PROBLEM_LINES = 20
PARTIAL = 3  # exit code: the import finished, but some lines / messages were skipped (0: nothing skipped)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import",
        help="import past chats (Keepsake JSONL, ChatGPT export .json/.zip) or restore a Keepsake export",
        description="Import past conversations. Every message keeps its original time; re-importing "
        "the same file adds nothing; bad lines are reported and skipped. Memories come from what you "
        "stated about yourself (the rules, at once) and are marked 'imported'; the chat model reads "
        "those messages later, in the background, while the computer is idle (--no-llm: never). "
        "A file written by 'keepsake export' is restored as it was (memories, versions, dates, sessions). "
        "Exit code 0: everything imported; 3: the import finished but some lines were skipped (listed; "
        "'N imported, M skipped'); 2: nothing could be imported (an error).",
    )
    p.add_argument("file", help="a .jsonl file, conversations.json, a ChatGPT export .zip, or a Keepsake export .json")
    p.add_argument("--no-llm", action="store_true", help="rules only: do not queue the chat model's extraction")
    add_json(p)
    p.set_defaults(func=cmd_import)


class ProgressLine:
    """Import progress on ``stream`` (stderr): one line redrawn on a terminal, else a line every 10%."""

    def __init__(self, stream: TextIO | None = None, width: int = 24) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.last = -1

    def __call__(self, p) -> None:  # p: ImportProgress
        pct = int(p.fraction * 100)
        step = pct if self.tty else pct // 10
        if step == self.last:
            return
        self.last = step
        filled = int(self.width * pct / 100)
        rate = f", {p.user_messages / p.seconds:.0f} of yours/s" if p.seconds > 0.5 and p.user_messages else ""
        line = (f"importing [{'#' * filled}{'.' * (self.width - filled)}] {pct:3d}%  {p.messages} messages "
                f"({p.user_messages} yours), {p.memories_added} new memories{rate}")  # fmt: skip
        try:
            self.stream.write(("\r" + line + "\033[K") if self.tty else line + "\n")
            if self.tty and pct >= 100:
                self.stream.write("\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed stderr must not stop the import
            pass


def cmd_import(args: argparse.Namespace) -> int:
    from assistant.memory.capture.importing.importers import ImportFormatError, detect_format, import_file  # deferred: the store (SQLCipher, numpy)

    try:
        fmt = detect_format(args.file)  # fail fast, before loading any model
    except ImportFormatError as exc:
        raise UserError(str(exc)) from None
    if fmt == "keepsake":
        return restore_export(args, keep_trust=False)
    store = open_cli_store(args.services, with_embedder=True)
    try:
        report = import_file(store, args.file, settings=args.services.settings, progress=ProgressLine(), queue_model=not args.no_llm)
    except ImportFormatError as exc:
        raise UserError(str(exc)) from None
    except StorageError as exc:  # disk full, damaged file ... mid-import: say what is kept
        kept = "the messages imported before it are kept, and importing the file again adds only the rest"
        raise UserError(str(exc.with_outcome(kept))) from None
    finally:
        store.close()
    emit(args, {**report.to_json(), "imported": report.messages_added + report.messages_existing,
                "skipped": report.problems_total, "exit_code": PARTIAL if report.problems_total else 0}, summary(report, args.file))
    return PARTIAL if report.problems_total else 0


def summary(report, file: str) -> str:
    """The text summary printed after an import."""
    took = f" in {report.seconds:.1f} s" if report.seconds >= 1 else ""
    if report.seconds >= 2 and report.user_messages_per_s:
        took += f" ({report.user_messages_per_s:g} of your messages/s)"
    imported = report.messages_added + report.messages_existing
    lines = [
        f"{imported} imported, {report.problems_total} skipped.",
        f"Imported {report.format} file {file}{took}: {report.conversations} conversation(s), "
        f"{report.sessions_added} new session(s), {report.messages_added} new message(s) "
        f"({report.messages_existing} already there)."
    ]
    if report.captured:
        lines.append(
            f"{report.captured} of your messages stated something about you: {report.memories_added} new memories"
            + (f", {report.rejected} extracted fact(s) rejected by validation" if report.rejected else "")
            + ". Questions, requests and chit-chat stay in the conversations (keepsake sessions search)."
        )
    elif not report.capture_skipped:
        lines.append("Nothing new to remember.")
    if report.model_extraction_queued:
        lines.append(f"The chat model will read {report.model_extraction_queued} of them in the background while the "
                     "computer is idle (progress: keepsake jobs status, or Tidy-up in the app).")  # fmt: skip
    if report.capture_skipped:
        lines.append(f"No memories captured: {report.capture_skipped}.")
    if report.problems_total:
        shown = report.problems[:MAX_PROBLEM_LINES]
        lines.append(f"{report.problems_total} problem(s), skipped:")
        lines += [f"  {p}" for p in shown]
        if report.problems_total > len(shown):
            lines.append(f"  ... and {report.problems_total - len(shown)} more")
    return "\n".join(lines)
