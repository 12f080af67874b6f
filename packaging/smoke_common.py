"""Shared pieces of the bundle smoke test (packaging/smoke.py, packaging/smoke_install.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path


class SmokeFailure(AssertionError):
    pass


def check(cond: bool, message: str) -> None:
    if not cond:
        raise SmokeFailure(message)


def json_or_none(text: str, default=None):
    try:
        return json.loads(text)
    except ValueError:
        return default


def mapped_files(maps: Path) -> set[str]:
    try:
        text = maps.read_text()
    except OSError:
        return set()
    files = set()
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].startswith("/"):
            files.add(parts[5].replace(" (deleted)", ""))
    return files


def du(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            p = os.path.join(root, name)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total
