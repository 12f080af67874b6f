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


class EngineError(Exception):
    """The model server (an OpenAI-compatible chat engine) could not answer.

    ``kind`` says what went wrong, so the UI and the CLI can word it and tests can check it:
    ``unreachable`` (refused, DNS, no route), ``timeout`` (no byte for the read timeout, before or
    during the reply), ``auth`` (401/403), ``unknown_model`` (the server does not list the model),
    ``bad_reply`` (not JSON / not an OpenAI-compatible stream / closed mid-reply), ``http`` (any
    other error status), ``config`` (no or a malformed server URL). ``url`` is the server's base
    URL; ``message`` is one sentence.
    """

    KINDS = ("unreachable", "timeout", "auth", "unknown_model", "bad_reply", "http", "config")

    def __init__(self, kind: str, url: str, message: str, *, status: int | None = None) -> None:
        super().__init__(kind, url, message)
        self.kind = kind
        self.url = url
        self.message = message
        self.status = status  # the HTTP status, for ``auth`` and ``http``

    def __str__(self) -> str:
        return self.message
