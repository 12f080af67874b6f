"""What each cell of the inspector's table shows: the columns, and for a memory and a column its
text, sort key and tooltip. No Qt here."""

from __future__ import annotations

from typing import Any

from assistant.memory.wording import TRUE_SINCE, true_since
from ui.format import KIND_LABELS, KIND_TIPS, TRUST_LABELS, day, short_date, source_label, status_label

COLUMNS: tuple[tuple[str, str], ...] = (
    ("text", "Memory"),
    ("kind", "Kind"),
    ("valid_from", TRUE_SINCE),
    ("valid_to", "True until"),
    ("learned", "Learned"),
    ("trust", "Known from"),
    ("source", "Source"),
    ("status", "Status"),
    ("uses", "Uses"),
)
COLUMN = {key: i for i, (key, _) in enumerate(COLUMNS)}


#: After the text of a search result that matches the words asked only loosely (the count line says how many).
LOOSE_TAG = "   · loosely related"


def display(m: Any, key: str) -> str:
    """The cell's text."""
    if key == "text":
        text = " ".join(m.text.split())
        return ("★ " if m.pinned else "") + text
    if key == "kind":
        return KIND_LABELS.get(m.kind.value, m.kind.value)
    if key == "valid_from":
        return day(m.valid_at) or "—"
    if key == "valid_to":
        return day(m.invalid_at) or "now"
    if key == "learned":
        return day(m.created_at)
    if key == "trust":
        return TRUST_LABELS.get(m.trust.value, m.trust.value)
    if key == "source":
        return source_label(m.sources)
    if key == "status":
        return status_label(m)
    if key == "uses":
        return str(m.use_count)
    return ""


def sort_key(m: Any, key: str, row: int) -> Any:
    """The cell's sort key (rows sort by it once, not by their text)."""
    if key == "text":
        return m.text.casefold()
    if key == "kind":
        return m.kind.value
    if key == "valid_from":
        return m.valid_at.isoformat() if m.valid_at else ""
    if key == "valid_to":
        return m.invalid_at.isoformat() if m.invalid_at else "9999"
    if key == "learned":
        return m.created_at.isoformat()
    if key == "trust":
        return m.trust.rank
    if key == "source":
        s = m.sources[0] if m.sources else None
        return (s.session_id or 0) * 1_000_000 + (s.message_id or 0) if s else -1
    if key == "status":
        return m.status.value
    if key == "uses":
        return m.use_count
    return row


def tooltip(m: Any, key: str, score: float | None = None, strong: set[int] | None = None) -> str:
    """The cell's tooltip; ``score`` and ``strong`` (the close matches) when the rows are search results."""
    if key == "text":
        extra = f"\n\nRelevance {score:.2f}" if score is not None else ""
        if strong is not None:
            extra += "\nClose match" if m.id in strong else "\nOnly loosely related to the search"
        return f"#{m.id} · version {m.version}\n\n{m.text}{extra}"
    if key == "source" and m.sources:
        return "\n".join(source_label([s]) + f" · {s.speaker} · {s.extractor}" for s in m.sources)
    if key == "kind":
        return KIND_TIPS.get(m.kind.value, display(m, key))
    if key == "status" and m.expires_at is not None:
        return f"{status_label(m)} · forgotten automatically on {short_date(m.expires_at)}"
    if key == "valid_from":
        return f"{TRUE_SINCE}: {true_since(m.valid_at, getattr(m, 'start_kind', None))}"
    if key in ("valid_to", "learned"):
        value = {"valid_to": m.invalid_at, "learned": m.created_at}[key]
        return short_date(value) or display(m, key)
    return display(m, key)


HEADER_TIPS = {
    "text": "What Keepsake remembers (★ pinned: never fades)",
    "kind": "About you, a fact, one of your messages kept word for word, or a lesson about how to help you",
    "valid_from": "When it became true",
    "valid_to": "When it stopped being true (“now”: still true)",
    "learned": "When Keepsake learned it",
    "trust": "How Keepsake knows it: you said it, you confirmed it, or it is Keepsake's guess",
    "source": "The conversation it came from",
    "status": "Active; no longer true; replaced by a newer memory; expires on a date; awaiting tidy-up; faded",
    "uses": "How many replies used it",
}
