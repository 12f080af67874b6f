"""Offload long content to the archive.

The cheapest, fully reversible step of the compaction ladder (docs/DESIGN.md §7): content over
``OFFLOAD_CHARS`` is kept whole in the store's encrypted archive
(:class:`assistant.memory.store.archive.context.ContextArchive`, ``store.context_archive``) and the context window keeps
a ``PREVIEW_CHARS`` preview plus a pointer (the archive reference). The reference is derived
from the content hash, so offloading the same text again gives the same pointer (the prompt
prefix stays stable). Nothing is written to a file: the archive is a table of the SQLCipher
database, so deleting is SQL (see :mod:`assistant.memory.forget`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from assistant.memory.store.archive.context import OFFLOAD_CHARS, PREVIEW_CHARS, pointer_text

__all__ = ["OFFLOAD_CHARS", "PREVIEW_CHARS", "Offloaded", "offload", "offload_text", "session_key"]

_SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


class OffloadArchive(Protocol):
    def put_offload(self, session_key: str, kind: str, text: str, *, message_id: int | None = None) -> str: ...


@dataclass(frozen=True)
class Offloaded:
    ref: str  # the archive reference: what the window shows
    chars: int
    text: str  # preview + pointer, the replacement shown in the window


def session_key(session_id: int | str) -> str:
    """A session id as the archive keys it (letters, digits, ``_.-``; never ``.``/``..``)."""
    sid = str(session_id)
    if not _SAFE_ID.match(sid) or sid in (".", ".."):
        raise ValueError(f"invalid session id: {sid!r}")
    return sid


def offload(archive: OffloadArchive, text: str, session_id: int | str, *, kind: str = "output",
            message_id: int | None = None) -> Offloaded | None:  # fmt: skip
    """Archive ``text`` when it is over ``OFFLOAD_CHARS``; None when it is short enough to keep."""
    if len(text) <= OFFLOAD_CHARS:
        return None
    ref = archive.put_offload(session_key(session_id), kind, text, message_id=message_id)
    return Offloaded(ref, len(text), pointer_text(text, ref))


def offload_text(archive: OffloadArchive, text: str, session_id: int | str, *, kind: str = "output",
                 message_id: int | None = None) -> str:  # fmt: skip
    """``text`` itself, or its preview + pointer when it is over ``OFFLOAD_CHARS``."""
    done = offload(archive, text, session_id, kind=kind, message_id=message_id)
    return text if done is None else done.text
