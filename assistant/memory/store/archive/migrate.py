"""First start after the upgrade: the plaintext files an older Keepsake kept next to its
encrypted database move into the database, then are securely removed.

Only Keepsake's own files, recognised by their exact names, are touched:

- ``data/archive/session-<id>/history.jsonl`` -> ``context_history``;
- ``data/archive/session-<id>/<kind>-<16 hex>.txt`` (offloads) -> ``context_offloads`` under the
  same reference the old pointers name (``session-<id>/<kind>-<hex>.txt``), tied to its message
  when the old ``file_refs`` table knew it;
- ``data/context/<id>.json`` (compaction state) -> ``context_state``;
- ``data/note/v<6+ digits>.json`` (note versions) -> ``note_versions``.

Everything goes in one transaction (``INSERT OR IGNORE``: a second run adds nothing); only after
it committed is each file overwritten with zeros, fsynced and removed (:func:`fileio.shred`),
and the folders left empty are removed. A file that cannot be read or parsed is left where it
is and logged (nothing is lost). Any other file (the person's exports, unknown files) is never
opened.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from assistant.config import Paths
from assistant.fileio import shred
from assistant.memory.times import ts_to_db

log = logging.getLogger(__name__)
_SESSION_DIR = re.compile(r"^session-([A-Za-z0-9_.-]{1,128})$")
_OFFLOAD = re.compile(r"^([a-z0-9_-]+)-([0-9a-f]{16})\.txt$")
_STATE = re.compile(r"^([A-Za-z0-9_.-]{1,128})\.json$")
_NOTE = re.compile(r"^v(\d{6,})\.json$")


@dataclass
class Migrated:
    files: list[Path] = field(default_factory=list)
    rows: int = 0
    problems: list[str] = field(default_factory=list)


def _read(path: Path, result: Migrated) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        result.problems.append(f"{path}: {exc}")
        log.warning("left %s in place: cannot read it (%s)", path, exc)
        return None


def _collect(p: Paths, result: Migrated) -> list[tuple[str, tuple[Any, ...], Path]]:
    """(sql, params, file) for every recognised file; a file may give several rows."""
    rows: list[tuple[str, tuple[Any, ...], Path]] = []
    now = ts_to_db(datetime.now(timezone.utc))
    archive = p.archive
    for folder in sorted(archive.iterdir()) if archive.is_dir() else []:
        m = _SESSION_DIR.match(folder.name)
        if not m or not folder.is_dir():
            continue
        key = m.group(1)
        for f in sorted(folder.iterdir()):
            if f.name == "history.jsonl":
                text = _read(f, result)
                if text is None:
                    continue
                items = []
                for n, line in enumerate(text.splitlines(), 1):
                    try:
                        item = json.loads(line) if line.strip() else None
                        if item is not None:
                            items.append((int(item["id"]), str(item["role"]), str(item["content"]), item.get("raw")))
                    except (ValueError, KeyError, TypeError) as exc:  # a torn line (a crash mid-write): unreadable
                        result.problems.append(f"{f} line {n}: {exc}")
                for r in items:
                    rows.append(("INSERT OR IGNORE INTO context_history(session_key, message_id, role, content, raw) VALUES (?,?,?,?,?)",
                                 (key, *r), f))  # fmt: skip
            elif om := _OFFLOAD.match(f.name):
                text = _read(f, result)
                if text is not None:
                    rows.append(("INSERT OR IGNORE INTO context_offloads(ref, session_key, message_id, kind, text, created_at) "
                                 "VALUES (?,?,(SELECT message_id FROM file_refs WHERE path = ? AND message_id IS NOT NULL LIMIT 1),?,?,?)",
                                 (f"session-{key}/{f.name}", key, str(f.resolve()), om.group(1), text, now), f))  # fmt: skip
    for f in sorted((p.data / "context").iterdir()) if (p.data / "context").is_dir() else []:
        if (sm := _STATE.match(f.name)) and f.is_file():
            text = _read(f, result)
            if text is not None:
                rows.append(("INSERT OR IGNORE INTO context_state(session_key, state, updated_at) VALUES (?,?,?)", (sm.group(1), text, now), f))
    for f in sorted((p.data / "note").iterdir()) if (p.data / "note").is_dir() else []:
        if _NOTE.match(f.name) and f.is_file():
            text = _read(f, result)
            try:
                d = json.loads(text) if text is not None else None
            except ValueError as exc:
                result.problems.append(f"{f}: {exc}")
                d = None
            if d is not None:
                saved = ts_to_db(datetime.fromisoformat(d["saved_at"]))
                rows.append(("INSERT OR IGNORE INTO note_versions(version, text, saved_at, restored_from) VALUES (?,?,?,?)",
                             (int(d["version"]), str(d["text"]), saved, d.get("restored_from")), f))  # fmt: skip
    return rows


def migrate_plaintext(store: Any, p: Paths) -> Migrated:
    """Move the old plaintext files into ``store`` and shred them (see the module docstring)."""
    result = Migrated()
    if not any(d.is_dir() for d in (p.archive, p.data / "context", p.data / "note")):
        return result
    rows = _collect(p, result)
    files = list(dict.fromkeys(f for _sql, _params, f in rows))

    def run(c: Any) -> int:
        n = sum(c.execute(sql, params).rowcount for sql, params, _f in rows)
        c.execute("DELETE FROM file_refs WHERE path IN (SELECT value FROM json_each(?))", (json.dumps([str(f.resolve()) for f in files]),))
        return n

    result.rows = store.write(run) if rows else 0
    for f in files:
        try:
            shred(f)
            result.files.append(f)
        except OSError as exc:
            result.problems.append(f"{f}: {exc}")
            log.warning("could not remove the migrated plaintext file %s: %s", f, exc)
    for folder in [*(d for d in sorted(p.archive.glob("session-*")) if d.is_dir()), p.archive, p.data / "context", p.data / "note"]:
        try:
            folder.rmdir()  # only when empty: anything else there is not Keepsake's to remove
        except OSError:
            pass
    if result.files:
        log.info("moved %d plaintext files into the encrypted database (%d rows)", len(result.files), result.rows)
    return result
