"""Benchmarks behind `keepsake bench NAME`. Each module exposes ``add_arguments(parser)`` and
``run(args) -> dict`` (one JSON object, figures included). Ratios are against baselines measured
in the same run; machines are noisy, so absolute times are only context."""

from __future__ import annotations

import contextlib
import os
from typing import Iterator


@contextlib.contextmanager
def keepsake_home(path: str | None) -> Iterator[None]:
    """Run with ``KEEPSAKE_HOME=path`` (a bench's temporary folder: its store, state and archive
    files never touch the person's), restored after. ``None``: unchanged."""
    if path is None:
        yield
        return
    old = os.environ.get("KEEPSAKE_HOME")
    os.environ["KEEPSAKE_HOME"] = path
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("KEEPSAKE_HOME", None)
        else:
            os.environ["KEEPSAKE_HOME"] = old
