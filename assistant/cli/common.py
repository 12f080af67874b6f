"""Helpers shared by the CLI modules: JSON output and user-facing errors."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any, Iterator


class UserError(Exception):
    """An error the person can act on; printed without a traceback (exit code 2)."""


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


def emit(args: argparse.Namespace, data: Any, text: str | None = None) -> None:
    """Print ``data`` as JSON with --json, else ``text`` (or a JSON rendering)."""
    if getattr(args, "json", False) or text is None:
        print(dumps(data))
    else:
        print(text)


def fail(args: argparse.Namespace, message: str, code: int = 2) -> int:
    if getattr(args, "json", False):
        print(dumps({"error": message}))
    else:
        print(f"keepsake: error: {message}", file=sys.stderr)
    return code


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


@contextlib.contextmanager
def opened_store(with_embedder: bool = False) -> Iterator[Any]:
    """Open the store for one command and close it after. A store error becomes a
    :class:`UserError`; an embedder that cannot load only means new memories get their vector
    later (the command still works)."""
    from assistant.memory.errors import StoreError
    from assistant.services import open_store

    store = None
    try:
        if with_embedder:
            try:
                store = open_store(with_embedder=True)
            except StoreError:
                raise
            except Exception as exc:  # noqa: BLE001 - no embedder: store without vector, embed later
                print(f"keepsake: note: embedder unavailable ({exc}); the vector is added later", file=sys.stderr)
        if store is None:
            store = open_store(with_embedder=False)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    try:
        yield store
    finally:
        store.close()
