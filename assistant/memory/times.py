"""Time for the store: every datetime timezone-aware, stored as fixed-width UTC ISO-8601 strings
(``YYYY-MM-DDTHH:MM:SS.ffffff+00:00``, so string order is time order). No I/O."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

UTC = timezone.utc


def utcnow() -> datetime:
    return datetime.now(UTC)


def to_utc(value: datetime) -> datetime:
    """Convert an aware datetime to UTC. Naive datetimes are refused (ambiguous)."""
    if not isinstance(value, datetime):
        raise TypeError(f"expected a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value.isoformat()} (a timezone is required)")
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError(f"datetime {value!r} is out of range once converted to UTC") from exc


def ts_to_db(value: datetime | None) -> str | None:
    """Fixed-width UTC ISO-8601 (microseconds), so string comparison is time comparison."""
    if value is None:
        return None
    return to_utc(value).isoformat(timespec="microseconds")


def ts_from_db(value: str | None) -> datetime | None:
    if value is None:
        return None
    dt = datetime.fromisoformat(value)
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def iso(value: datetime | None) -> str | None:
    """ISO-8601 for JSON output (UTC)."""
    return ts_to_db(value)


def parse_iso(value: str | None) -> datetime | None:
    """Parse an ISO-8601 string from JSON; a naive value is taken as UTC."""
    if value is None or value == "":
        return None
    dt = datetime.fromisoformat(value)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return to_utc(dt)


def ttl_to_expiry(ttl: timedelta | datetime, now: datetime) -> datetime:
    """A TTL given as a duration (from ``now``) or an absolute time."""
    if isinstance(ttl, timedelta):
        if ttl <= timedelta(0):
            raise ValueError("TTL must be positive")
        return to_utc(now) + ttl
    return to_utc(ttl)
