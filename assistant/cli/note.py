"""`keepsake note show|edit|history|restore`: the person's "About me & instructions" note."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from assistant.cli import argtypes
from assistant.cli.common import UserError, add_json, emit


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("note", help='your "About me & instructions" note (only you edit it)')
    nsub = p.add_subparsers(dest="note_command", metavar="ACTION")

    sp = nsub.add_parser("show", help="print the current note")
    add_json(sp)
    sp.set_defaults(func=cmd_show)

    sp = nsub.add_parser("edit", help="edit the note in $EDITOR, or set it with --text/--file")
    src = sp.add_mutually_exclusive_group()
    src.add_argument("--text", help="the new note text")
    src.add_argument("--file", metavar="F", help="read the new note from this file ('-' = stdin)")
    add_json(sp)
    sp.set_defaults(func=cmd_edit)

    sp = nsub.add_parser("history", help="list every saved version")
    add_json(sp)
    sp.set_defaults(func=cmd_history)

    sp = nsub.add_parser("restore", help="make an old version current again (saved as a new version)")
    sp.add_argument("version", type=argtypes.version)
    add_json(sp)
    sp.set_defaults(func=cmd_restore)

    p.set_defaults(func=cmd_show, json=False)


def _store():
    from assistant.context.note import NoteStore

    return NoteStore()


def _describe(note) -> str:
    return f"version {note.version}, saved {note.saved_at:%Y-%m-%d %H:%M} UTC, {note.size_bytes:,} bytes"


def cmd_show(args) -> int:
    note = _store().get()
    if note is None:
        emit(args, {"version": None, "text": "", "bytes": 0}, "(no note yet: write one with `keepsake note edit`)")
        return 0
    emit(args, note.to_json(), note.text)
    return 0


def _run_editor(current: str) -> str:
    """Open $VISUAL/$EDITOR on a temp file holding ``current`` and return that file's path (the
    caller removes it once saved; when the save fails it stays as the person's draft)."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or ("notepad" if sys.platform == "win32" else "vi")
    fd, name = tempfile.mkstemp(prefix="keepsake-note-", suffix=".md")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(current)
    try:
        code = subprocess.run([*shlex.split(editor), name], check=False).returncode
    except OSError as exc:
        Path(name).unlink(missing_ok=True)
        raise UserError(f"could not start the editor {editor!r} ({exc}); set $EDITOR or use --text/--file") from None
    if code != 0:
        Path(name).unlink(missing_ok=True)
        raise UserError(f"the editor exited with code {code}; the note was not changed")
    return name


def cmd_edit(args) -> int:
    from assistant.context.note import NoteError

    store = _store()
    current = store.get()
    draft = None
    if args.text is not None:
        text = args.text
    elif args.file is not None:
        try:
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"could not read {args.file}: {exc}") from None
    else:
        draft = _run_editor(current.text if current else "")
        text = Path(draft).read_text(encoding="utf-8")
    try:
        note = store.save(text)
    except NoteError as exc:
        kept = f" Your draft is kept in {draft}." if draft else ""
        raise UserError(f"{exc}{kept}") from None
    if draft:
        Path(draft).unlink(missing_ok=True)
    changed = current is None or note.version != current.version
    message = f"Saved your note ({_describe(note)})." if changed else "The note is unchanged."
    emit(args, {**note.to_json(), "changed": changed}, message)
    return 0


def cmd_history(args) -> int:
    versions = _store().history()
    lines = []
    for v in reversed(versions):
        first = next((line for line in v.text.splitlines() if line.strip()), "(empty)")
        restored = f" (restored from {v.restored_from})" if v.restored_from else ""
        lines.append(f"{_describe(v)}{restored}\n    {first[:80]}")
    emit(args, {"versions": [v.to_json() for v in versions]}, "\n".join(lines) or "(no note yet)")
    return 0


def cmd_restore(args) -> int:
    from assistant.context.note import NoteError

    try:
        note = _store().restore(args.version)
    except NoteError as exc:
        raise UserError(str(exc)) from None
    emit(args, note.to_json(), f"Restored version {args.version} as {_describe(note)}.")
    return 0
