"""After a real delete: the context files derived from the deleted messages lose them too.

The store's delete cascade redacts the source messages (content emptied, the row kept as a
tombstone) and rewrites files that contain a deleted text *verbatim*. The per-session compaction
state (``data/context/<session>.json``) holds a *derived* summary - facts extracted by code
(names, numbers, dates, decisions...) and a model narrative - that can keep pieces of a deleted
message ("Rue Garibaldi 17") without its full text, so the scan misses them; and a message under
the scan's minimum length stays in the archived history. :func:`refresh_after_delete` (an
``on_delete`` listener, see :func:`assistant.services.open_store`), for every session that had a
message redacted by the delete:

1. overwrites, in place, the archived history lines of the redacted messages with ``[deleted]``;
2. rebuilds the session's summary from the (now redacted) archive with
   ``Compactor(count_tokens, model=None).refresh``: code facts only, no narrative (a narrative
   could paraphrase the deleted text), within the old summary's size so the window still fits;
   the old state file's blocks are overwritten with zeros.

Deleted sessions need nothing here: the store removes their files. Errors are logged, never
raised: the delete itself has already been committed.
"""

from __future__ import annotations

import json
import logging
import math
import os
from typing import Any, Callable, Iterable, Protocol

from assistant.context import offload
from assistant.context.compaction import Compactor
from assistant.context.facts import REDACTED
from assistant.context.state import history_file, load_state
from assistant.fileio import overwrite_in_place

log = logging.getLogger(__name__)


class MessageLookup(Protocol):
    def get_message(self, message_id: int) -> Any: ...


def approx_tokens(text: str) -> int:
    """~4 characters per token: enough here, the budget is measured with the same counter."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


def sessions_of(store: MessageLookup, message_ids: Iterable[int]) -> dict[str, set[int]]:
    """Session id (as the context files name it) -> the given message ids it holds; messages
    that no longer exist (their session was deleted) are skipped."""
    out: dict[str, set[int]] = {}
    for mid in message_ids:
        try:
            msg = store.get_message(int(mid))
        except Exception:  # NotFound: deleted with its session, whose files are gone
            continue
        out.setdefault(str(msg.session_id), set()).add(int(mid))
    return out


def redact_history(session_id: int | str, message_ids: Iterable[int]) -> bool:
    """Overwrite the archived copies of ``message_ids`` (content and raw) with ``[deleted]``.
    True when the history file changed."""
    path = history_file(session_id)
    if not path.is_file():
        return False
    ids = {int(i) for i in message_ids}
    changed = False
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line) if line.strip() else None
        except ValueError:
            row = None
        if isinstance(row, dict) and row.get("id") in ids and (row.get("content") != REDACTED or row.get("raw") not in (None, REDACTED)):
            row["content"] = REDACTED
            row["raw"] = REDACTED if row.get("raw") is not None else None
            line, changed = offload.dumps_line(row), True
        lines.append(line)
    if changed:
        overwrite_in_place(path, "".join(line + "\n" for line in lines).encode("utf-8"))
    return changed


def refresh_summary(session_id: int | str, message_ids: Iterable[int], count_tokens: Callable[[str], int] | None = None) -> bool:
    """Rebuild the session's summary when it covers (or holds facts of) one of ``message_ids``.
    The new summary is no longer than the old one (measured with ``count_tokens``). True when
    it was rebuilt."""
    path = offload.context_state_path(session_id)
    if not path.is_file():
        return False
    state = load_state(session_id)
    ids = {int(i) for i in message_ids}
    covered = state.covered_up_to is not None and any(i <= state.covered_up_to for i in ids)
    if not state.summary or not (covered or any(f.message_id in ids for f in state.facts)):
        return False
    count = count_tokens or approx_tokens
    compactor = Compactor(count, model=None, summary_tokens=max(1, count(state.summary)))
    with open(path, "r+b") as old:  # the old state's blocks are zeroed once the new file is in place
        compactor.refresh(session_id)
        if os.fstat(old.fileno()).st_ino != os.stat(path).st_ino:
            size = os.fstat(old.fileno()).st_size
            old.seek(0)
            old.write(b"\0" * size)
            old.flush()
            os.fsync(old.fileno())
    return True


def refresh_after_delete(store: MessageLookup, report: Any, *, count_tokens: Callable[[str], int] | None = None) -> list[str]:
    """The ``on_delete`` step for context files (see the module docstring). ``report`` is the
    store's executed :class:`~assistant.memory.delete.DeletePlan`. Returns the sessions whose
    summary was rebuilt. Never raises."""
    refreshed: list[str] = []
    try:
        touched = sessions_of(store, getattr(report, "redacted_message_ids", ()) or ())
    except Exception:
        log.exception("after a delete: could not find the sessions of the redacted messages")
        return refreshed
    for sid, ids in sorted(touched.items()):
        try:
            redact_history(sid, ids)
            if refresh_summary(sid, ids, count_tokens):
                refreshed.append(sid)
        except Exception:
            log.exception("after a delete: could not refresh the context summary of session %s", sid)
    return refreshed
