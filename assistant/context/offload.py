"""Offload long content to archive files, read it back within limits, and manage a session's files.

The cheapest, fully reversible step of the compaction ladder (DESIGN section 7): content over
``OFFLOAD_CHARS`` is written to a plain-text file under ``paths().archive / "session-<id>"`` and
the context window keeps a ``PREVIEW_CHARS`` preview plus a pointer (the file's path relative to
the archive folder). The file name is derived from the content hash, so offloading the same text
again gives the same pointer (the prompt prefix stays stable).

Reading back (:func:`read_back`) never floods the window: over ``READ_LIMIT`` characters only the
head and tail ``READ_HEAD_TAIL`` characters come back, and lines over ``LINE_LIMIT`` characters
are cut, each cut marked.

Privacy: archive files hold message text in the clear (plain text / JSONL; the database is the
encrypted copy). Each session's files are listed by :func:`archive_files_for_session` (including
the compaction state JSON, which holds the summary) and removed by :func:`delete_session_files`;
the memory store's delete cascade also scans the archive folder for deleted text.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from assistant.config import paths
from assistant.fileio import write_private_atomic

OFFLOAD_CHARS = 8000
PREVIEW_CHARS = 500
READ_LIMIT = 30_000
READ_HEAD_TAIL = 10_000
LINE_LIMIT = 2000
_SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@dataclass(frozen=True)
class Offloaded:
    ref: str  # path relative to the archive folder: what the window shows
    path: Path
    chars: int
    text: str  # preview + pointer, the replacement shown in the window


def _sid(session_id: int | str) -> str:
    sid = str(session_id)
    if not _SAFE_ID.match(sid) or sid in (".", ".."):
        raise ValueError(f"invalid session id for a file name: {sid!r}")
    return sid


def session_archive_dir(session_id: int | str) -> Path:
    return paths().archive / f"session-{_sid(session_id)}"


def context_state_path(session_id: int | str) -> Path:
    """The per-session compaction state (summary, what it covers, the archive file)."""
    return paths().data / "context" / f"{_sid(session_id)}.json"


def append_lines(path: Path, lines: Iterable[str]) -> None:
    """Append text lines (JSONL) to an archive file, created 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        for line in lines:
            f.write(line.rstrip("\n") + "\n")
        f.flush()
        os.fsync(f.fileno())


def ref_for(path: Path) -> str:
    return path.resolve().relative_to(paths().archive.resolve()).as_posix()


def offload(text: str, session_id: int | str, *, kind: str = "output") -> Offloaded | None:
    """Archive ``text`` when it is over ``OFFLOAD_CHARS``; None when it is short enough to keep."""
    if len(text) <= OFFLOAD_CHARS:
        return None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    path = session_archive_dir(session_id) / f"{re.sub(r'[^a-z0-9_-]', '', kind) or 'output'}-{digest}.txt"
    if not path.exists():
        write_private_atomic(path, text)
    ref = ref_for(path)
    pointer = (
        f"\n[... offloaded: {len(text)} characters in total, {len(text) - PREVIEW_CHARS} not shown; "
        f"the full text is in the archive file {ref}]"
    )
    return Offloaded(ref, path, len(text), text[:PREVIEW_CHARS] + pointer)


def offload_text(text: str, session_id: int | str, *, kind: str = "output") -> str:
    """``text`` itself, or its preview + pointer when it is over ``OFFLOAD_CHARS``."""
    done = offload(text, session_id, kind=kind)
    return text if done is None else done.text


def resolve_ref(ref: str | Path) -> Path:
    """An archive pointer (relative path) or absolute path, which must stay inside the archive."""
    root = paths().archive.resolve()
    p = Path(ref)
    p = (p if p.is_absolute() else root / p).resolve()
    if not p.is_relative_to(root):
        raise ValueError(f"not an archive file: {ref}")
    return p


def limit_text(text: str) -> str:
    """Apply the read-back limits: head + tail when over ``READ_LIMIT``, long lines cut."""
    if len(text) > READ_LIMIT:
        cut = len(text) - 2 * READ_HEAD_TAIL
        text = (
            text[:READ_HEAD_TAIL]
            + f"\n[... {cut} characters not shown (the file has {len(text)}) ...]\n"
            + text[-READ_HEAD_TAIL:]
        )
    lines = []
    for line in text.split("\n"):
        if len(line) > LINE_LIMIT:
            line = line[:LINE_LIMIT] + f" [... line cut: {len(line) - LINE_LIMIT} more characters]"
        lines.append(line)
    return "\n".join(lines)


def read_back(ref: str | Path) -> str:
    """An archived file's text for the window, within the read-back limits."""
    return limit_text(resolve_ref(ref).read_text(encoding="utf-8"))


def archive_files_for_session(session_id: int | str) -> list[Path]:
    """Every file Keepsake keeps outside the database that holds this session's text: its
    archive folder (history JSONL, offloaded outputs) and its compaction state JSON."""
    folder = session_archive_dir(session_id)
    files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
    state = context_state_path(session_id)
    return files + ([state] if state.is_file() else [])


def delete_session_files(session_id: int | str) -> list[Path]:
    """Overwrite with zeros and remove every file of :func:`archive_files_for_session`."""
    removed = []
    for p in archive_files_for_session(session_id):
        try:
            size = p.stat().st_size
            with open(p, "r+b") as f:
                f.write(b"\0" * size)
                f.flush()
                os.fsync(f.fileno())
            p.unlink()
            removed.append(p)
        except FileNotFoundError:
            continue
    folder = session_archive_dir(session_id)
    for d in sorted((d for d in folder.rglob("*") if d.is_dir()), reverse=True) if folder.is_dir() else []:
        d.rmdir()
    if folder.is_dir():
        folder.rmdir()
    return removed


def dumps_line(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False)
