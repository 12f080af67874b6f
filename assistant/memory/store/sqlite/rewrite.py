"""Rewrite every page of the database file after a forget (``VACUUM``).

``secure_delete = ON`` zeroes a deleted cell and a freed page, but not every stale byte: when a
b-tree page is rebalanced, SQLite rebuilds it in place (``rebuildPage`` in btree.c) and leaves
the gap between its cell pointers and its cell content as it was, so copies of cells that moved
to a sibling page stay there. A later delete zeroes the live copy only. Which pages keep such
copies depends on the lengths of everything written before (the history of the file), so a
forgotten sentence could survive in the unused part of a live page - seen as a rare failure of
``tests/test_forget_trace.py``. ``VACUUM`` builds the database again from its live rows and
writes every page anew (through the WAL; the caller's ``wal_checkpoint(TRUNCATE)`` then copies
them over the file and empties the log), so nothing deleted remains in any page.

Cost: about 0.6 s for a 24 MB database with 10,000 memories on a loaded 2-core machine
(linear in the file's size). Row ids survive: every table of the schema keys its rows by an
``INTEGER PRIMARY KEY`` or a declared key, and SQLite keeps rowids of ordinary tables.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from assistant.memory.store.sqlite.db import DatabaseError, is_busy

log = logging.getLogger(__name__)


def rewrite_pages(conn: Any, *, attempts: int = 3, pause: float = 0.2) -> bool:
    """``VACUUM`` on ``conn`` (outside any transaction). True when it ran; False when the
    database stayed busy (another connection writing) for ``attempts`` tries, each waiting the
    connection's busy timeout, ``pause`` seconds apart. Other errors raise."""
    for i in range(attempts):
        try:
            conn.execute("VACUUM")
            return True
        except DatabaseError as exc:
            if not is_busy(exc):
                raise
            log.info("VACUUM after a forget: the database is busy (try %d of %d)", i + 1, attempts)
            time.sleep(pause * (i + 1))
    return False
