"""File helpers: the one atomic private writer, and secure removal of old plaintext files.

Keepsake writes few files (settings, the key file, exports the person asks for); everything the
person said lives in the encrypted database. Every file still written goes through
:func:`write_private_atomic`: a 0600 temp file beside the target, fsynced, renamed over it, the
folder fsynced - a crash leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


def write_private_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` as a complete, private file: a 0600 temp file beside it, fsynced,
    then ``os.replace`` (readers never see half a file) and an fsync of the folder. Creates the
    parent folder (0700)."""
    path = Path(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = write_private_temp(path, text)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


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


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def shred(path: Path | str) -> None:
    """Overwrite a file with zeros in place (fsynced), then remove it: used once, to remove the
    plaintext files an older Keepsake kept, after their content moved into the database."""
    path = Path(path)
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.write(b"\0" * size)
        fh.flush()
        os.fsync(fh.fileno())
    path.unlink()
