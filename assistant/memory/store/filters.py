"""Which memories a read sees: :class:`MemoryFilter` (one value object for every list, count and
search) and the bitemporal SQL it becomes (:func:`select_sql`).

Two axes:

- **world time** (``as_of``): a memory is valid at D when ``valid_at <= D < invalid_at`` (open
  ends allowed). "What was true on D" uses today's knowledge, including memories learned later
  and memories since superseded (``expired_at`` is not applied to an ``as_of`` question).
- **system time** (``known_at``): "what did we believe at T" reads, for each memory created by T,
  the version that was current at T (``memory_versions.recorded_at <= T < superseded_at``, else
  the current row if it was recorded by T), with sources added by T. World validity then defaults
  to T as well.

Default (neither given): currently valid (world time now), not superseded (``expired_at`` empty
or in the future), TTL not passed, status active/resolving. ``include_archived``,
``include_expired`` (superseded and TTL-passed) and ``include_invalid`` (no world filter) widen
it; ``include_all`` sets all three.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Literal, TypedDict, Unpack

from assistant.memory.records import Kind, Scope, Status, Trust
from assistant.memory.times import to_utc, ts_to_db
from assistant.memory.store.rows import MEMORY_COLUMNS

Order = Literal["newest", "oldest", "updated"]


def _tuple(value: Any, cls: Any) -> tuple[Any, ...] | None:
    if value is None:
        return None
    if isinstance(value, (str, cls)):
        return (cls(value),)
    return tuple(cls(v) for v in value)


class FilterArgs(TypedDict, total=False):
    """The filter keywords of ``store.list``/``store.count`` (declared once, here).

    ``kind``/``status``/``trust`` take one value or several; ``min_trust`` keeps trusts at or
    above it; ``text`` is a case-insensitive substring (LIKE, escaped); ``as_of``/``known_at``
    are the two time axes above; ``include_all`` sets the three ``include_*`` flags."""

    kind: Kind | str | Iterable[Kind | str] | None
    status: Status | str | Iterable[Status | str] | None
    trust: Trust | str | Iterable[Trust | str] | None
    min_trust: Trust | str | None
    text: str | None
    scope: Scope | None
    slot: str | None
    pinned: bool | None
    as_of: datetime | None
    known_at: datetime | None
    include_archived: bool
    include_expired: bool
    include_invalid: bool
    include_all: bool


@dataclass(frozen=True)
class MemoryFilter:
    """Which memories a list, count or search reads: normalized, hashable (retrieval caches by it)."""

    kinds: tuple[Kind, ...] | None = None
    statuses: tuple[Status, ...] | None = None
    trusts: tuple[Trust, ...] | None = None
    min_trust: Trust | None = None
    text: str | None = None
    scope: Scope | None = None
    slot: str | None = None
    pinned: bool | None = None
    as_of: datetime | None = None
    known_at: datetime | None = None
    include_archived: bool = False
    include_expired: bool = False
    include_invalid: bool = False

    @classmethod
    def build(cls, **args: Unpack[FilterArgs]) -> "MemoryFilter":
        """From the loose keywords of :class:`FilterArgs` (an unknown keyword is a TypeError)."""
        unknown = set(args) - set(FilterArgs.__annotations__)
        if unknown:
            raise TypeError(f"unknown memory filter: {', '.join(sorted(unknown))}")
        every = bool(args.get("include_all", False))
        min_trust, as_of, known_at = args.get("min_trust"), args.get("as_of"), args.get("known_at")
        return cls(
            kinds=_tuple(args.get("kind"), Kind),
            statuses=_tuple(args.get("status"), Status),
            trusts=_tuple(args.get("trust"), Trust),
            min_trust=Trust(min_trust) if min_trust is not None else None,
            text=args.get("text") or None,
            scope=args.get("scope"),
            slot=args.get("slot"),
            pinned=args.get("pinned"),
            as_of=to_utc(as_of) if as_of is not None else None,
            known_at=to_utc(known_at) if known_at is not None else None,
            include_archived=bool(args.get("include_archived", False)) or every,
            include_expired=bool(args.get("include_expired", False)) or every,
            include_invalid=bool(args.get("include_invalid", False)) or every,
        )

    @classmethod
    def of(cls, where: "MemoryFilter | None", args: FilterArgs) -> "MemoryFilter":
        """``where`` if given (then no keywords), else the filter the keywords describe."""
        if where is None:
            return cls.build(**args)
        if args:
            raise TypeError("pass either a MemoryFilter or filter keywords, not both")
        return where


_SNAPSHOT = f"""
    SELECT {", ".join(MEMORY_COLUMNS)} FROM memories WHERE updated_at <= :t AND created_at <= :t
    UNION ALL
    SELECT v.memory_id, v.text, v.kind, m.scope, v.valid_at, v.invalid_at, m.created_at,
           v.expired_at, v.trust, v.confidence, v.content_hash, v.status, v.version, v.expires_at,
           v.pinned, v.slot, m.use_count, m.last_used_at, v.recorded_at, v.update_type, v.actor,
           v.reason, m.start_kind
    FROM memory_versions v JOIN memories m ON m.id = v.memory_id
    WHERE v.recorded_at <= :t AND v.superseded_at > :t AND m.created_at <= :t
"""


def like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def select_sql(f: MemoryFilter, now: datetime) -> tuple[str, dict[str, Any]]:
    """``(sql, params)`` selecting MEMORY_COLUMNS from ``src`` (a table or the T snapshot)
    with WHERE applied; the caller adds ORDER/LIMIT."""
    params: dict[str, Any] = {"now": ts_to_db(now)}
    if f.known_at is not None:
        params["t"] = ts_to_db(f.known_at)
        source = f"({_SNAPSHOT}) AS src"
        ref = ":t"
    else:
        source = "memories AS src"
        ref = ":now"
    where: list[str] = []
    if f.statuses is not None:
        where.append("+src.status IN (" + ",".join(f"'{s.value}'" for s in f.statuses) + ")")
    else:
        allowed = [Status.ACTIVE, Status.RESOLVING] + ([Status.ARCHIVED] if f.include_archived else [])
        # unary "+": scan by id (newest first, LIMIT stops early) instead of index + sort
        where.append("+src.status IN (" + ",".join(f"'{s.value}'" for s in allowed) + ")")
    if f.kinds is not None:
        where.append("+src.kind IN (" + ",".join(f"'{k.value}'" for k in f.kinds) + ")")
    trusts = set(f.trusts) if f.trusts is not None else set(Trust)
    if f.min_trust is not None:
        trusts = {t for t in trusts if t >= f.min_trust}
    if not trusts:
        where.append("0")
    elif len(trusts) < len(Trust):
        where.append("src.trust IN (" + ",".join(f"'{t.value}'" for t in trusts) + ")")
    if f.scope is not None:
        where.append("src.scope = :scope")
        params["scope"] = f.scope.key
    if f.slot is not None:
        where.append("src.slot = :slot")
        params["slot"] = f.slot
    if f.pinned is not None:
        where.append("src.pinned = :pinned")
        params["pinned"] = int(f.pinned)
    if f.text:
        where.append("src.text LIKE :text ESCAPE '\\'")
        params["text"] = f"%{like_escape(f.text)}%"
    if not f.include_invalid:
        world = ref
        if f.as_of is not None:
            params["world"] = ts_to_db(f.as_of)
            world = ":world"
        where.append(f"(src.valid_at IS NULL OR src.valid_at <= {world})")
        where.append(f"(src.invalid_at IS NULL OR src.invalid_at > {world})")
    if not f.include_expired:
        if f.as_of is None:  # superseded records answer historical (as_of) questions only
            where.append(f"(src.expired_at IS NULL OR src.expired_at > {ref})")
        where.append(f"(src.expires_at IS NULL OR src.expires_at > {ref})")
    sql = f"SELECT {', '.join('src.' + c for c in MEMORY_COLUMNS)} FROM {source}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return sql, params


ORDER_SQL = {"newest": "src.id DESC", "oldest": "src.id ASC", "updated": "src.updated_at DESC, src.id DESC"}
