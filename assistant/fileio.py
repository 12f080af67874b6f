"""File helpers shared by the memory store, the context manager and the UI."""

from __future__ import annotations

import os
import threading
from pathlib import Path


def overwrite_in_place(path: Path | str, data: bytes) -> None:
    """Rewrite a file in place (same blocks where the filesystem allows), then fsync: the old
    bytes are overwritten, not left behind in a replaced inode (used to redact deleted text)."""
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
        fh.flush()
        os.fsync(fh.fileno())


def write_private_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` as a complete, private file: a 0600 temp file beside it, fsynced,
    then ``os.replace`` (readers never see half a file). Creates the parent folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.replace(write_private_temp(path, text), path)


def write_private_temp(path: Path, text: str) -> Path:
    """A complete 0600 copy of ``text`` in a temp file beside ``path`` (named for this process
    and thread), fsynced; the caller moves or links it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    return tmp
