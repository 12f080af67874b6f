"""Errors raised by the llama.cpp adapter layer."""

from __future__ import annotations

from pathlib import Path


class ModelError(Exception):
    """A model file (or its source) is missing, broken or unusable.

    ``path`` names the file so the UI and ``doctor`` can tell the person which one to fix;
    ``reason`` is a short human-readable explanation.
    """

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(path, reason)
        self.path = Path(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"cannot use model file {self.path}: {self.reason}"
