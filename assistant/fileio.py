"""File helpers shared by the memory store and the context manager."""

from __future__ import annotations

import os
from pathlib import Path


def overwrite_in_place(path: Path | str, data: bytes) -> None:
    """Rewrite a file in place (same blocks where the filesystem allows), then fsync: the old
    bytes are overwritten, not left behind in a replaced inode (used to redact deleted text)."""
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
        fh.flush()
        os.fsync(fh.fileno())
