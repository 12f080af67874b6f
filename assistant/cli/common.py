"""Helpers shared by the CLI modules: JSON output, user-facing errors, the command's store.

Every command gets ``args.services``: the :class:`assistant.services.Services` of the profile
:func:`assistant.cli.main` loaded (the CLI's edge); nothing here looks up paths or settings."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import json
import logging
import logging.handlers
import math
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

from assistant.memory.store.sqlite import diagnose

from assistant.memory.store.sqlite import integrity
from assistant.memory.errors import DamagedError, StoreError


class UserError(Exception):
    """An error the person can act on; printed without a traceback (exit code 2). ``data``
    (optional) is added to the ``--json`` error object."""

    data: dict[str, Any] | None = None


def _default(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, (dt.datetime, dt.date)):
        return obj.isoformat()
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")


def dumps(obj: Any) -> str:
    return json.dumps(obj, default=_default, ensure_ascii=False, indent=2)


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str] | None = None) -> None:
    """Print ``data`` as JSON with --json, else ``text`` (or a JSON rendering). ``text`` may be
    a function, called only when the text is printed (a listing's lines, with their date
    phrasing, are not built for --json)."""
    if getattr(args, "json", False) or text is None:
        print(dumps(data))
    else:
        print(text() if callable(text) else text)


def fail(args: argparse.Namespace, message: str, code: int = 2, data: dict[str, Any] | None = None) -> int:
    """One line for the person (``{"error": ...}`` with --json, plus ``data``); exit code 2."""
    message = " ".join(str(message).split())  # one line, whatever the message held
    try:
        if getattr(args, "json", False):
            print(dumps({"error": message, **(data or {})}))
        else:
            print(f"keepsake: error: {message}", file=sys.stderr)
    except BrokenPipeError:
        return output_closed()
    return code


def setup_logging(folder: Path) -> None:
    """Log records (a warning with its traceback included) go to ``<folder>/keepsake-cli.log``
    (the profile's logs), never to the terminal: the person sees the one-line messages. Nothing
    is set up when the host already logs somewhere (tests, the app). A log that cannot be
    written (a full disk, a read-only home) is dropped silently."""
    root = logging.getLogger()
    if root.handlers:
        return
    logging.raiseExceptions = False  # a failed log write must not print a traceback
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            folder / "keepsake-cli.log", maxBytes=1_000_000, backupCount=2, encoding="utf-8", delay=True)
        handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    except OSError:
        handler = logging.NullHandler()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def output_closed() -> int:
    """stdout was closed by its reader (``keepsake ... | head -1``): not an error. The rest of
    the output goes to /dev/null, so the interpreter's final flush does not complain; exit 0."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    with contextlib.suppress(OSError):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout at exit
    return 0


def storage_fault(exc: BaseException, path: Path, key: Callable[[], str | None] | None = None):
    """The one-line storage error an escaped driver/OS error means for the database at
    ``path``, or None when it is not a storage fault. A "corrupt" driver error is damage only
    when the integrity check on a fresh connection agrees (``key()``: the database key) - then
    it is remembered; else it was a read that met another process's change ("try again")."""
    known = diagnose.classify(exc, path)
    if isinstance(known, DamagedError) and not isinstance(exc, StoreError):
        try:
            key_hex = key() if key is not None else None
        except Exception:  # noqa: BLE001 - no key: the check below cannot open it either
            key_hex = None
        problem = integrity.confirm_damage(path, key_hex)
        if problem is None:
            return diagnose.interrupted(path, str(exc))
        integrity.write_marker(path, problem)
    return known


def database_key(services: Any) -> Callable[[], str | None]:
    """The profile's database key, looked up (never created) when called."""

    def key() -> str | None:
        from assistant.memory.store.sqlite import keys  # deferred: keyring

        k = services.profile.key
        return keys.normalize_key(k.key) if k.key is not None else keys.load_key(services.profile.database, k.key_file)[0]

    return key


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def lock_wait() -> float:
    """Seconds a command waits for a database another program keeps locked before it says so
    (``KEEPSAKE_LOCK_WAIT``, default 30; the app waits longer)."""
    try:
        value = float(os.environ.get("KEEPSAKE_LOCK_WAIT", "30"))
    except ValueError:
        return 30.0
    return min(max(value, 0.1), 3600.0) if math.isfinite(value) else 30.0


def open_cli_store(services: Any, with_embedder: bool = False, warm: bool = False) -> Any:
    """The store of ``services``' profile for one command (it waits :func:`lock_wait` for a
    locked database; ``warm``: its vectors are read in the background from the start). A store
    error becomes a :class:`UserError`; an embedder that cannot load only means new memories get
    their vector later (the command still works)."""
    database = services.profile.database
    wait = lock_wait()
    store = None
    try:
        if with_embedder:
            try:
                store = services.open_store(with_embedder=True, lock_wait=wait, warm=warm)
            except StoreError:
                raise
            except Exception as exc:  # noqa: BLE001 - no embedder: store without vector, embed later
                known = storage_fault(exc, database, database_key(services))
                if known is not None:
                    raise known from None
                print(f"keepsake: note: embedder unavailable ({exc}); the vector is added later", file=sys.stderr)
        if store is None:
            store = services.open_store(with_embedder=False, lock_wait=wait, warm=warm)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        known = storage_fault(exc, database, database_key(services))
        if known is None:
            raise
        raise UserError(str(known)) from None
    return store


@contextlib.contextmanager
def opened_store(services: Any, with_embedder: bool = False, warm: bool = False) -> Iterator[Any]:
    """:func:`open_cli_store` for the block, closed after."""
    store = open_cli_store(services, with_embedder, warm)
    try:
        yield store
    finally:
        store.close()
