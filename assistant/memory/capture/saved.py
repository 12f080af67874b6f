"""What capture kept from one message, said back to the person ("Saved: ..."), so they can see it
and take any of it back (``keepsake memory delete ID`` / one click in the app).

    saved = saved_from(store, message_id)   # the facts and profile slots sourced from it
    saved_notice(saved)                     # "Saved: User's partner is Joost. (#12); ..." or None

Only facts and profile memories count (the episode is the message's own copy, its provenance); a
message that stored nothing gives no notice.
"""

from __future__ import annotations

from typing import Any

from assistant.memory.records import Memory

SAVED_PREFIX = "Saved: "
UNDO_HINT = "take one back with: keepsake memory delete ID"


def saved_from(store: Any, message_id: int) -> list[Memory]:
    """Active fact/profile memories with ``message_id`` among their sources, oldest first."""
    return store.kept_from(message_id)


def saved_notice(memories: list[Memory], *, hint: bool = True) -> str | None:
    if not memories:
        return None
    listed = "; ".join(f"{m.text} (#{m.id})" for m in memories)
    return f"{SAVED_PREFIX}{listed}" + (f" - {UNDO_HINT}" if hint else "")


def note(store: Any, capture: Any, turn: Any, *, timeout: float = 120, hint: bool = True) -> list[dict[str, Any]]:
    """After a chat turn: wait for ``capture`` (the queue) to finish, then set ``turn.saved`` and
    append the "Saved: ..." notice to ``turn.notices`` (none when nothing was kept)."""
    if not turn.captured:
        return []
    if capture is not None:
        capture.flush(timeout=timeout)
    kept = saved_from(store, turn.user_message_id)
    turn.saved = [{"id": m.id, "text": m.text, "kind": m.kind.value} for m in kept]
    # "remember that ..." already said "Saved to memory: ..." for what it stored: one notice each
    announced = set(getattr(turn, "remembered", ()) or ())
    listed = [m for m in kept if m.id not in announced]
    notice = saved_notice(listed, hint=hint)
    if notice and notice not in turn.notices:
        turn.notices.append(notice)
        turn.notice_ids[notice] = [m.id for m in listed]
    return turn.saved
