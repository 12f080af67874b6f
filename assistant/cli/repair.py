"""``keepsake repair [--dry-run] [--force] [--export FILE] [--json]``: save what can still be read
from a damaged memory database into a new one (:mod:`assistant.memory.store.sqlite.salvage`).

The damaged file is kept next to the new one (``keepsake.db.damaged-<time>``); with
``--dry-run`` nothing is replaced (the counts say what a repair would save). Close the app
first: it must not have the database open while the file is swapped.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from assistant.cli.common import UserError, add_json, emit, open_cli_store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("repair", help="save what can still be read from a damaged memory database into a new one",
                       description="Copies every row that can still be read into a fresh database (same key), keeps "
                       "the damaged file next to it, and rebuilds the search indexes. Close the app first.")  # fmt: skip
    p.add_argument("--dry-run", action="store_true", help="only report what a repair would save; replace nothing")
    p.add_argument("--force", action="store_true", help="rebuild even when the integrity check passes")
    p.add_argument("--export", metavar="FILE", help="also write what was saved as a Keepsake JSON export")
    add_json(p)
    p.set_defaults(func=cmd_repair)


_TABLES = (("memories", "memories"), ("sessions", "sessions"), ("messages", "messages"), ("audit_log", "audit entries"))


def _summary(report, verb: str) -> str:
    saved = ", ".join(f"{report.copied(t)} {label}" for t, label in _TABLES)
    lost = [f"{t.name} {t.unreadable_stretches}" for t in report.tables if t.unreadable_stretches]
    failed = [t.name for t in report.tables if t.error]
    text = f"{verb} {saved}"
    if lost:
        text += f"; damaged stretches that could not be read: {', '.join(lost)}"
    if failed:
        text += f"; unreadable: {', '.join(failed)}"
    if report.pages is not None:
        p = report.pages
        text += (f"; read page by page: {p.pages_read} of {p.pages_total} pages"
                 f"{f' ({p.pages_bad} failed their check)' if p.pages_bad else ''}"
                 f"{f', {p.unplaced} rows that fit no single table left out' if p.unplaced else ''}")  # fmt: skip
    if report.orphans_removed:
        text += f"; {report.orphans_removed} rows whose memory/session was lost were left out"
    return text


def cmd_repair(args: argparse.Namespace) -> int:
    from assistant.memory.store.sqlite import db as dbmod  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.store.sqlite import diagnose
    from assistant.memory.store.sqlite import integrity
    from assistant.memory.store.sqlite import keys
    from assistant.memory.store.sqlite import salvage
    from assistant.memory.store.sqlite import salvage_pages
    from assistant.memory.store.facade import MemoryStore

    p = args.services.profile.paths
    path = p.database
    if not path.exists():
        raise UserError(f"there is no memory database at {path}: nothing to repair")
    key = keys.get_or_create_key(path, p.key_file)[0] if dbmod.encryption_available() else None  # a lost key: KeyMissingError
    src = salvage.open_damaged(path, key)  # for the check; the salvage reads on fresh connections
    tmp = path.with_name(path.name + ".repair")
    try:
        marker = integrity.read_marker(path)
        try:
            problem = integrity.quick_check(src)
        except dbmod.DatabaseError as exc:
            problem = str(exc)
        if marker is not None and problem is None:
            problem = marker.detail
        if problem is None and not args.force:
            emit(args, {"repaired": False, "reason": "quick_check ok"}, f"{path} passes its integrity check: nothing to repair")
            return 0
        free, size = diagnose.free_bytes(path), path.stat().st_size
        if free is not None and free < size + (8 << 20):
            raise UserError(f"repair needs room for a copy of {path} ({size >> 20} MB + 8 MB); only {free >> 20} MB are free. "
                            "Free some space, then run it again.")  # fmt: skip
        for stale in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
        dim = _dim(src)
        src.close()
        dest = MemoryStore(tmp, key=key, encrypted=key is not None, dim=dim)
        try:
            report = salvage.salvage(lambda: salvage.open_damaged(path, key), dest.conn,
                                     scan_pages=lambda conn, tables: salvage_pages.scan(path, key, conn, tables))  # fmt: skip
        finally:
            dest.close()
    finally:
        src.close()
    report.source, report.target = str(path), str(tmp)
    if not report.copied("store_meta") and not report.copied("memories"):
        tmp.unlink(missing_ok=True)
        raise UserError(f"nothing could be read from {path} (its first pages are damaged, or the key is wrong); "
                        "restore a backup of it. Nothing was changed.")  # fmt: skip
    if report.integrity != "ok":
        raise UserError(f"the repaired copy {tmp} failed its own integrity check ({report.integrity.splitlines()[0]}); "
                        f"{path} was left as it is.")  # fmt: skip
    if args.dry_run:
        tmp.unlink(missing_ok=True)
        emit(args, {"repaired": False, "dry_run": True, "problem": problem, **report.to_json()},
             _summary(report, "a repair would save") + ". Nothing was changed (dry run).")  # fmt: skip
        return 0
    report.aside = str(salvage.replace_database(path, tmp))
    extra = _after(args, path)
    emit(args, {"repaired": True, "problem": problem, **report.to_json(), **extra},
         _summary(report, f"repaired {path}: saved") + f". The damaged file is kept as {report.aside}." + extra.get("note", ""))
    return 0


def _dim(src) -> int:
    from assistant.memory.store.vector_index import stored_dim  # deferred: the store (SQLCipher, numpy)

    return stored_dim(src)


def _after(args: argparse.Namespace, path: Path) -> dict:
    """Re-make the vectors that could not be read (when the embedder loads), and export."""

    out: dict = {}
    store = open_cli_store(args.services, with_embedder=True)
    try:
        missing = len(store.missing_vectors())
        made = store.backfill_vectors() if missing and store.vectors.embed is not None else 0
        out.update(vectors_missing=missing, vectors_made=made)
        if missing > made:
            out["note"] = f" {missing - made} memories have no vector yet (search finds them by words until they are embedded)."
        if args.export:
            try:
                data = store.export_json(args.export)
            except OSError as exc:
                raise UserError(f"the repair is done, but {args.export} could not be written: {exc.strerror or exc}") from None
            out["exported"] = {"file": args.export, "memories": len(data["memories"])}
            out["note"] = out.get("note", "") + f" Exported {len(data['memories'])} memories to {args.export}."
    finally:
        store.close()
    return out
