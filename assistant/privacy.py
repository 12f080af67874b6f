"""Private by default: the profile's folders are 0700 and its files 0600, on creation and on
every start (POSIX; elsewhere the OS's per-user folders already keep them private).

- :func:`private_umask` (called by the CLI and the app at start) makes everything this process
  creates private from the start: SQLite's ``-wal``/``-shm`` files, temp files, new folders.
- :func:`make_private` (called on every store open) tightens what already exists under
  Keepsake's own folders (data, config, cache, logs, models): a database or key file left 0644
  by an older version, a folder made 0755. The exports folder itself is tightened, but the files
  in it are the person's (they chose to export them): never touched.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from assistant.config import Paths

log = logging.getLogger(__name__)
DIR_MODE = 0o700
FILE_MODE = 0o600


def private_umask() -> int:
    """Set the process umask to 077 (new files 0600, new folders 0700); returns the old one."""
    return os.umask(0o077) if os.name == "posix" else 0


def _tighten(path: Path, mode: int) -> None:
    try:
        st = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode) or stat.S_IMODE(st.st_mode) == mode:
        return
    try:
        os.chmod(path, mode)
    except OSError as exc:  # not ours (e.g. a shared mount): say so, do not fail the start
        log.warning("could not make %s private: %s", path, exc)


def make_private(p: Paths) -> None:
    """Folders 0700 and files 0600 under Keepsake's own folders (see the module docstring)."""
    if os.name != "posix":
        return
    exports = p.exports.resolve()
    for root in dict.fromkeys((p.data, p.config, p.cache, p.logs, p.models)):
        if not root.is_dir():
            continue
        _tighten(root, DIR_MODE)
        for dirpath, dirs, files in os.walk(root):
            here = Path(dirpath)
            if here.resolve() == exports:
                dirs[:] = []  # the person's exports: only the folder itself is Keepsake's
                continue
            for d in dirs:
                _tighten(here / d, DIR_MODE)
            for f in files:
                _tighten(here / f, FILE_MODE)
