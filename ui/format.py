"""Small display helpers: dates in local time, labels for enums, sizes. No Qt here."""

from __future__ import annotations

from datetime import datetime, timezone

KIND_LABELS = {"profile": "Profile", "fact": "Fact", "episode": "Episode", "experience": "Experience"}
STATUS_LABELS = {"active": "Active", "resolving": "Resolving", "archived": "Archived", "deleted": "Deleted"}
TRUST_LABELS = {
    "user_stated": "You said",
    "user_confirmed": "You confirmed",
    "assistant_inferred": "Inferred",
    "imported": "Imported",
    "external": "External",
}
UPDATE_LABELS = {
    None: "Created",
    "user_edit": "Your edit",
    "conflict": "Contradiction resolved",
    "duplicate": "Duplicate merged",
    "consolidate": "Consolidated",
    "decay": "Decayed",
    "ttl": "Expired",
    "import": "Imported",
}
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
    "messages_redacted": "source messages (text removed)",
    "messages_deleted": "messages",
    "message_fts": "message-index entries",
    "file_refs": "file references",
    "files": "files (archives/exports) cleaned",
    "sessions": "conversations",
}


def _as_dt(value: datetime | str | None) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value


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


def day(value: datetime | str | None) -> str:
    """``2024-05-01``: the local calendar day (UTC day for midnight-UTC dates, which are dates)."""
    return _date_text(value, "%Y-%m-%d")


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
    """A compact provenance label for the table: "conversation 3 · #17" or the extractor."""
    if not sources:
        return "—"
    s = sources[0]
    extra = f" +{len(sources) - 1}" if len(sources) > 1 else ""
    if s.session_id is not None:
        msg = f", msg {s.message_id}" if s.message_id is not None else ""
        return f"chat {s.session_id}{msg}{extra}"
    return f"{s.extractor}{extra}"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def model_label(path_or_name) -> str:
    """The model's display name, the same as ``keepsake models`` and ``doctor`` print."""
    from assistant.engine.names import display_name

    return display_name(path_or_name)
