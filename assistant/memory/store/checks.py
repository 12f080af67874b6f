"""Checks and conversions for memory writes (no I/O): what a text, interval, confidence or slot
must be, the ADD dedup key, and field values as stored. Used by :mod:`.memories` and :mod:`.versions`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from assistant.memory.records import Kind, NewMemory, Scope, Status, Trust, content_hash, normalize_text, to_utc, ts_to_db


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()

def check_text(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError("memory text must be a string")
    if not normalize_text(text):
        raise ValueError("memory text is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("memory text is not valid Unicode (lone surrogate)") from exc
    return text


def check_interval(valid_at: datetime | None, invalid_at: datetime | None) -> None:
    if valid_at is not None and invalid_at is not None and to_utc(invalid_at) < to_utc(valid_at):
        raise ValueError("invalid_at is before valid_at")


def check_confidence(confidence: float) -> float:
    c = float(confidence)
    if not 0.0 <= c <= 1.0:
        raise ValueError("confidence must be within [0, 1]")
    return c


def norm_slot(slot: str | None) -> str | None:
    if slot is None:
        return None
    s = slot.strip()
    return s or None


DUP_SQL = (
    "SELECT id FROM memories WHERE scope = ? AND kind = ? AND content_hash = ? "
    "AND status != 'deleted' AND invalid_at IS NULL AND expired_at IS NULL ORDER BY id LIMIT 1"
)


def dup_key(spec: NewMemory) -> tuple[str, str, str]:
    return (spec.scope.key, Kind(spec.kind).value, content_hash(spec.text))


def checked(spec: NewMemory) -> NewMemory:
    """Validate a write spec; enums given as strings are converted."""
    check_text(spec.text)
    if not isinstance(spec.scope, Scope):
        raise TypeError("scope must be built with Scope(...)")
    check_confidence(spec.confidence)
    check_interval(spec.valid_at, spec.invalid_at)
    if isinstance(spec.ttl, timedelta) and spec.ttl <= timedelta(0):
        raise ValueError("TTL must be positive")
    return replace(
        spec, kind=Kind(spec.kind), trust=Trust(spec.trust), status=Status(spec.status),
        sources=tuple(spec.sources), entities=tuple(spec.entities),
    )  # fmt: skip


def db_value(field: str, value: Any) -> Any:
    if field in ("valid_at", "invalid_at", "expired_at", "expires_at"):
        return ts_to_db(value)
    if field == "kind":
        return Kind(value).value
    if field == "status":
        return Status(value).value
    if field == "trust":
        return Trust(value).value
    if field == "pinned":
        return int(bool(value))
    if field == "confidence":
        return check_confidence(value)
    if field == "text":
        return check_text(value)
    if field == "slot":
        return norm_slot(value)
    return value
