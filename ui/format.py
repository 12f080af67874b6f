"""Small display helpers: dates in local time, labels for enums, sizes. No Qt here."""

from __future__ import annotations

from datetime import datetime, timezone

from assistant.engine.names import display_name
from assistant.memory.wording import as_datetime as _as_dt
from assistant.memory.wording import day, true_since  # noqa: F401 - the one wording of dates (assistant/memory/wording.py)

KIND_LABELS = {"profile": "About you", "fact": "Fact", "episode": "Your message", "experience": "Lesson"}
KIND_TIPS = {
    "profile": "A detail about you: name, home, work, family...",
    "fact": "Something you told Keepsake",
    "episode": "One of your messages, kept word for word (for provenance and details)",
    "experience": "Something Keepsake learned about how to help you",
}
STATUS_LABELS = {"active": "Active", "resolving": "Awaiting tidy-up", "archived": "Faded", "deleted": "Deleted"}
TRUST_LABELS = {
    "user_stated": "You said it",
    "user_confirmed": "You confirmed it",
    "assistant_inferred": "Keepsake's guess",
    "imported": "Imported",
    "external": "Outside source",
}
ACTOR_LABELS = {"user": "you", "capture": "Keepsake", "consolidator": "tidy-up", "import": "import", "system": "Keepsake"}
#: Why a version exists, when a background process made it (``update_type``).
UPDATE_LABELS = {
    None: "Created",
    "user_edit": "Edited by you",
    "conflict": "Replaced by a newer memory",
    "duplicate": "Merged with a duplicate",
    "consolidate": "Combined by tidy-up",
    "decay": "Faded with time",
    "ttl": "Expired",
    "import": "Imported",
}
#: What a change did (the audit ``action``), in the person's words.
ACTION_LABELS = {
    "add": "Created", "edit": "Edited", "invalidate": "Marked no longer true", "set_ttl": "Expiry set",
    "clear_ttl": "Expiry cleared", "pin": "Pinned", "unpin": "Unpinned", "archive": "Faded",
    "restore": "Brought back", "restore_version": "Earlier version restored", "delete": "Deleted",
    "needs_regeneration": "Needs rebuilding", "add_source": "Another source added", "remove_source": "Source removed",
    "add_entity": "Mention linked", "set_entities": "Mentions updated", "link": "Linked", "unlink": "Unlinked",
    "merge_duplicate": "Merged into another memory", "merge_survivor": "Duplicates merged in", "purge_ttl": "Expired",
    "undo": "Tidy-up undone", "update": "Changed", "append": "Added to", "version": "Changed",
}  # fmt: skip
#: Who made a memory's first version, in the version history.
CREATED_LABELS = {"user": "Added by you", "capture": "Learned from a conversation", "import": "Imported",
                  "consolidator": "Made by tidy-up", "system": "Created by Keepsake"}  # fmt: skip
#: How one memory is linked to another, read from each side: (from the memory that is the link's
#: source, from the memory it points to). ``supersedes``: the source replaced the target.
LINK_LABELS = {
    "supersedes": ("Replaces", "Replaced by"),
    "evolve_to": ("Merged into", "Combines"),
    "derived_from": ("Summarises", "Summarised in"),
    "related": ("Related to", "Related to"),
}
EXTRACTOR_LABELS = {"cli": "added by you", "manual": "added by you", "command.remember": "you asked to remember",
                    "rules": "a conversation", "episode": "your message", "llm": "a conversation"}  # fmt: skip
SECTION_LABELS = {
    "system": "System prompt",
    "note": "About me",
    "summary": "Summary",
    "history": "Conversation",
    "retrieved_memories": "Memories",
    "reminders": "Reminders",
    "current_input": "Your message",
    "output_reserve": "Reply reserve",
}
COUNT_LABELS = {
    "memories": "memories",
    "memory_versions": "earlier versions",
    "memory_sources": "provenance links",
    "memory_entities": "entity links",
    "entities": "entities",
    "memory_links": "links between memories",
    "memory_fts": "keyword-index entries",
    "memory_vec": "search vectors",
    "audit_log_redacted": "audit entries (text removed, the trail stays)",
    "injection_log": "“memories used” log entries",
    "messages_redacted": "your messages (sentences removed)",
    "messages_deleted": "messages",
    "message_fts": "message-index entries",
    "file_refs": "file references",
    "sessions": "conversations",
    "memories_edited": "memories kept without the forgotten sentences",
    "memory_versions_forgotten": "earlier versions (old wording)",
    "replies_redacted": "assistant replies (sentences removed)",
    "archive_rows": "archived turns (as sent)",
    "offloads": "archived long texts",
    "summaries": "conversation summaries",
    "summaries_rebuilt": "conversation summaries rebuilt",
    "note_versions": "earlier versions of your note",
    "session_titles": "conversation titles",
}


def local_time(value: datetime | str | None) -> str:
    """``2024-05-01 14:30`` in local time ("" for None)."""
    dt = _as_dt(value)
    return dt.astimezone().strftime("%Y-%m-%d %H:%M") if dt else ""


def _date_text(value: datetime | str | None, local_format: str) -> str:
    """A midnight-UTC value is a date: its UTC day. Anything else: local time in ``local_format``."""
    dt = _as_dt(value)
    if dt is None:
        return ""
    utc = dt.astimezone(timezone.utc)
    if (utc.hour, utc.minute, utc.second) == (0, 0, 0):
        return utc.strftime("%Y-%m-%d")
    return dt.astimezone().strftime(local_format)


def short_date(value: datetime | str | None) -> str:
    """``2024-05-01`` (local) or ``2024-05-01 14:30`` when the time is not midnight UTC."""
    return _date_text(value, "%Y-%m-%d %H:%M")


def relative(value: datetime | str | None, now: datetime | None = None) -> str:
    """"just now", "5 min ago", "yesterday", else the date."""
    dt = _as_dt(value)
    if dt is None:
        return ""
    now = now or datetime.now(timezone.utc)
    secs = (now - dt).total_seconds()
    if secs < 0:
        return short_date(dt)
    if secs < 60:
        return "just now"
    if secs < 3600:
        return f"{int(secs // 60)} min ago"
    local, today = dt.astimezone(), now.astimezone()
    if local.date() == today.date():
        return local.strftime("%H:%M")
    if (today.date() - local.date()).days == 1:
        return "yesterday"
    if (today.date() - local.date()).days < 7:
        return local.strftime("%A")
    return local.strftime("%Y-%m-%d")


def source_label(sources) -> str:
    """A compact provenance label for the table: "conversation 3" (+ how many more sources), or
    how it was added."""
    if not sources:
        return "added by you"
    s = sources[0]
    extra = f" +{len(sources) - 1}" if len(sources) > 1 else ""
    if s.session_id is not None:
        return f"conversation {s.session_id}{extra}"
    return f"{EXTRACTOR_LABELS.get(s.extractor, s.extractor)}{extra}"


def status_label(memory, now: datetime | None = None) -> str:
    """The status a person reads: deleted/faded/awaiting tidy-up first, then "No longer true"
    (its world time ended), "Replaced" (a newer memory took over), "Expires <date>", "Active"."""
    now = now or datetime.now(timezone.utc)
    if memory.status.value != "active":
        return STATUS_LABELS.get(memory.status.value, memory.status.value)
    if memory.invalid_at is not None and _as_dt(memory.invalid_at) <= now:
        return "No longer true"
    if memory.expired_at is not None and _as_dt(memory.expired_at) <= now:
        return "Replaced"
    if memory.expires_at is not None:
        return f"Expires {day(memory.expires_at)}"
    return "Active"


def version_label(version, action: str | None) -> str:
    """What made this version, in the person's words: who created it ("Learned from a
    conversation"), else its update type (background changes: "Replaced by a newer memory"), else
    the audited action, said as done by the person when they did it ("invalidate" by you ->
    "Marked no longer true by you", not "Edited by you")."""
    kind = version.update_type.value if version.update_type else None
    actor = version.actor.value if getattr(version, "actor", None) is not None else None
    if kind is None:
        return CREATED_LABELS.get(actor or "", UPDATE_LABELS[None])
    if kind == "user_edit" or kind not in UPDATE_LABELS:
        what = ACTION_LABELS.get(action or "", UPDATE_LABELS.get(kind, "Changed"))
        return f"{what} by you" if actor == "user" and not what.endswith(" by you") else what
    return UPDATE_LABELS[kind]


def link_label(link, memory_id: int) -> tuple[str, int]:
    """A link as read from memory ``memory_id``: (words, the other memory's id). On #12, which
    replaced #10 (``12 supersedes 10``): ("Replaces", 10); on #10: ("Replaced by", 12)."""
    outgoing = link.src_id == memory_id
    words = LINK_LABELS.get(link.type.value, (link.type.value.replace("_", " "),) * 2)[0 if outgoing else 1]
    return words, link.dst_id if outgoing else link.src_id


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def model_label(path_or_name) -> str:
    """The model's display name, the same as ``keepsake models`` and ``doctor`` print."""

    return display_name(path_or_name)
