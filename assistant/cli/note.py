"""`keepsake note show|edit|history|restore|forget-history`: the person's "About me &
instructions" note (kept in the encrypted database with its versions)."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from assistant.cli import argtypes
from assistant.cli.common import UserError, add_json, emit, opened_store
from assistant.fileio import shred


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

    sp = nsub.add_parser("forget-history", help="forget the old wording: remove every version but the current one")
    add_json(sp)
    sp.set_defaults(func=cmd_forget_history)

    p.set_defaults(func=cmd_show, json=False)


@contextlib.contextmanager
def _notes(services):
    from assistant.context.note import NoteStore  # deferred: the store (SQLCipher, numpy)

    with opened_store(services) as store:
        yield NoteStore(store.context_archive)


def _describe(note) -> str:
    return f"version {note.version}, saved {note.saved_at:%Y-%m-%d %H:%M} UTC, {note.size_bytes:,} bytes"


def cmd_show(args) -> int:
    with _notes(args.services) as notes:
        note = notes.get()
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
    with _notes(args.services) as notes:
        return _edit(args, notes)


def _edit(args, store) -> int:
    from assistant.context.note import NoteError  # deferred: the store (SQLCipher, numpy)

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
        shred(draft)  # the draft held the note in plaintext outside the database
    changed = current is None or note.version != current.version
    message = f"Saved your note ({_describe(note)})." if changed else "The note is unchanged."
    emit(args, {**note.to_json(), "changed": changed}, message)
    return 0


def cmd_history(args) -> int:
    with _notes(args.services) as notes:
        versions = notes.history()
    lines = []
    for v in reversed(versions):
        first = next((line for line in v.text.splitlines() if line.strip()), "(empty)")
        restored = f" (restored from {v.restored_from})" if v.restored_from else ""
        lines.append(f"{_describe(v)}{restored}\n    {first[:80]}")
    emit(args, {"versions": [v.to_json() for v in versions]}, "\n".join(lines) or "(no note yet)")
    return 0


def cmd_restore(args) -> int:
    from assistant.context.note import NoteError  # deferred: the store (SQLCipher, numpy)

    try:
        with _notes(args.services) as notes:
            note = notes.restore(args.version)
    except NoteError as exc:
        raise UserError(str(exc)) from None
    emit(args, note.to_json(), f"Restored version {args.version} as {_describe(note)}.")
    return 0


def cmd_forget_history(args) -> int:
    with _notes(args.services) as notes:
        removed = notes.forget_history()
        current = notes.get()
    emit(args, {"removed_versions": removed, "current_version": current.version if current else None},
         f"Forgot {removed} earlier version{'s' if removed != 1 else ''} of your note; the current one stays.")  # fmt: skip
    return 0
