"""Knowing a database is damaged, and remembering it: nothing is written after that.

- :func:`quick_check` runs ``PRAGMA quick_check`` (every page and b-tree is read; SQLCipher
  verifies each page's HMAC on the way, so any damaged byte of an encrypted file shows).
- A damaged file gets a *marker* next to it, ``<db>.damaged`` (JSON: when, what, and the file's
  identity: inode, size, mtime). Every process that opens the database sees the marker and
  refuses writes (:meth:`StoreCore.write`) until ``keepsake repair`` replaces the file. If the
  file was replaced by other means (a backup restored over it: another identity), the marker is
  checked again with :func:`quick_check` and dropped when the file is healthy.
- A store checks the file once before its first write (:meth:`StoreCore.verify`), so a write
  never lands in a file whose damage could have been seen.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Damage:
    detected_at: str
    detail: str
    identity: tuple[int, int, int] | None  # (inode, size, mtime_ns) of the file when it was found damaged

    def to_json(self) -> dict[str, Any]:
        return {"detected_at": self.detected_at, "detail": self.detail, "identity": list(self.identity or ())}


def marker_path(db_path: Path) -> Path:
    return Path(db_path).with_name(Path(db_path).name + ".damaged")


def identity(db_path: Path) -> tuple[int, int, int] | None:
    try:
        st = Path(db_path).stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def read_marker(db_path: Path) -> Damage | None:
    """The damage recorded for ``db_path``, or None. A marker that cannot be read counts as
    damage (it was written for a reason)."""
    p = marker_path(db_path)
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Damage("", f"damage marker {p} unreadable: {exc.strerror}", None)
    try:
        data = json.loads(raw)
        ident = tuple(int(x) for x in data.get("identity") or ()) or None
        return Damage(str(data.get("detected_at", "")), str(data.get("detail", "damaged")), ident)  # type: ignore[arg-type]
    except (ValueError, TypeError, AttributeError):
        return Damage("", "damaged (the marker file is unreadable)", None)


def write_marker(db_path: Path, detail: str) -> Damage:
    """Record that ``db_path`` is damaged (best effort: a read-only folder keeps no marker, and
    the caller still refuses to write)."""
    damage = Damage(datetime.now(timezone.utc).isoformat(timespec="seconds"), detail[:500], identity(db_path))
    p = marker_path(db_path)
    with contextlib.suppress(OSError):
        tmp = p.with_name(p.name + f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(damage.to_json()), encoding="utf-8")
        os.replace(tmp, p)
    return damage


def clear_marker(db_path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        marker_path(db_path).unlink()


def confirm_damage(path: Path, key_hex: str | None) -> str | None:
    """Is ``path`` really damaged? A driver error that says "corrupt" can be a read that met
    another process's change (an FTS5 segment merged away under a reader): a FRESH connection
    runs :func:`quick_check` (which also runs FTS5's own integrity check on its tables). None:
    healthy; else what is wrong (a file that cannot even be opened is damaged)."""
    from assistant.memory.store.sqlite.db import open_connection  # cycle: db -> diagnose -> ...

    try:
        conn = open_connection(Path(path), key_hex, busy_timeout=5.0, deadline=5.0)
    except Exception as exc:  # noqa: BLE001 - cannot open it at all: what is wrong is that
        return f"cannot be opened: {exc}"
    try:
        return quick_check(conn)
    except Exception as exc:  # noqa: BLE001 - the check itself met the damage
        return str(exc)
    finally:
        with contextlib.suppress(Exception):
            conn.close()


def quick_check(conn: Any) -> str | None:
    """None when ``PRAGMA quick_check`` says ok, else a short summary: how many problems (it
    stops counting at 20) and the first damaged page, e.g. ``"the integrity check found 20+
    problems, the first on page 6"``."""
    rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(20)").fetchall()]
    if rows == ["ok"]:
        return None
    lines = [ln.strip() for r in rows for ln in r.splitlines() if ln.strip() and not ln.startswith("***")]
    count = f"{len(lines)}+" if len(lines) >= 20 else str(len(lines) or 1)
    page = re.search(r"\bpage (\d+)", lines[0]) if lines else None
    where = f", the first on page {page.group(1)}" if page else (f": {lines[0][:120]}" if lines else "")
    return f"the integrity check found {count} problem{'s' if count != '1' else ''}{where}"
