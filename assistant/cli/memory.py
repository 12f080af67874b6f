"""Memory commands: ``keepsake memory ...`` (export and import-memories:
:mod:`assistant.cli.transfer`; the conversations: :mod:`assistant.cli.sessions`).

Dates accept ISO-8601 (``2024-05-01``, ``2024-05-01T14:30+02:00``, ``...Z``) and common other
forms ("May 1 2024", "2024/05/01", "yesterday"); a date without a timezone is local time.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from assistant.cli import argtypes
from assistant.cli import forget as forget_cli
from assistant.cli.common import UserError, add_json, emit, opened_store
from assistant.engine.errors import ModelError
from assistant.memory.errors import EndsBeforeStart, StoreError
from assistant.memory.wording import TRUE_SINCE, true_since, true_since_phrase

_DATE_HELP = "ISO-8601 (2024-05-01, 2024-05-01T14:30+02:00) or e.g. 'May 1 2024'"


# -- helpers -----------------------------------------------------------------------------------
def parse_when(text: str) -> datetime:
    """A timezone-aware datetime from ISO-8601 or a common human format; UserError if not."""
    raw = (text or "").strip()
    if not raw:
        raise UserError("empty date")
    iso = raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw
    try:
        dt = datetime.fromisoformat(iso)
    except ValueError:
        dt = None
    # a bare number ("10", "-1", "+3", "1.5", "12345") is not a date (dateparser reads "-1" as 2026-01-03); a year is
    if dt is None and not (re.fullmatch(r"[+-]?\d+(?:[.,]\d+)?", raw) and not re.fullmatch(r"\d{4}", raw)):
        import dateparser  # deferred: dateparser

        now = datetime.now().astimezone()
        dt = dateparser.parse(
            raw,
            settings={"RELATIVE_BASE": now.replace(tzinfo=None), "RETURN_AS_TIMEZONE_AWARE": True, "PREFER_DATES_FROM": "past"},
        )
    if dt is None:
        raise UserError(f"cannot understand the date {text!r}; use {_DATE_HELP}")
    try:
        if dt.tzinfo is None:
            dt = dt.astimezone()  # local time
        dt.astimezone(timezone.utc)  # representable everywhere it is stored and compared
    except (OverflowError, ValueError, OSError):
        raise UserError(f"the date {text!r} is out of range; use {_DATE_HELP}") from None
    return dt


def fmt_date(dt: datetime | None) -> str:
    if dt is None:
        return "…"
    return dt.astimezone().strftime("%Y-%m-%d %H:%M") if (dt.hour, dt.minute, dt.second) != (0, 0, 0) else dt.strftime("%Y-%m-%d")




def store_command(fn: Callable[[argparse.Namespace], int | None]) -> Callable[[argparse.Namespace], int]:
    """Turn store errors into messages the person can act on."""

    @functools.wraps(fn)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return int(fn(args) or 0)
        except StoreError as exc:  # NotFound, VersionConflict, key errors ...
            raise UserError(str(exc)) from None
        except ValueError as exc:
            raise UserError(str(exc)) from None

    return wrapper


def _line(m: Any) -> str:
    from assistant.memory.language.tense import tensed  # deferred, as the rules and records: their patterns
    flags = []
    if m.status.value != "active":
        flags.append(m.status.value)
    if m.invalid_at is not None:
        flags.append(f"until {fmt_date(m.invalid_at)}")
    if m.expires_at is not None:
        flags.append(f"ttl {fmt_date(m.expires_at)}")
    if m.pinned:
        flags.append("pinned")
    since = f" {phrase}" if (phrase := true_since_phrase(m.valid_at, getattr(m, "start_kind", None))) else ""
    extra = f" [{', '.join(flags)}]" if flags else ""
    said = min((x.observed_at for x in m.sources if x.observed_at), default=None)
    text = tensed(m.text, said, datetime.now(timezone.utc))  # a plan whose day passed reads "was on ..."
    return f"#{m.id:<5} {m.kind.value:<10} {text}{since}{extra}  ({m.trust.value}, v{m.version})"


# -- registration ------------------------------------------------------------------------------
def register(sub: argparse._SubParsersAction) -> None:
    mem = sub.add_parser("memory", help="see, add, edit and delete memories")
    msub = mem.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    p = msub.add_parser("add", help="add a memory (ADD-only: the same text again adds a source)")
    p.add_argument("text")
    p.add_argument("--kind", choices=["profile", "fact", "episode", "experience"], default="fact")
    p.add_argument("--valid-at", metavar="D", help=f"when it became true ({_DATE_HELP})")
    p.add_argument("--invalid-at", metavar="D", help="when it stopped being true")
    p.add_argument("--observed-at", metavar="D", help="when it was said (default now)")
    p.add_argument("--ttl-days", type=argtypes.days, metavar="N", help="forget after N days (at most 100 years)")
    p.add_argument("--slot", help="profile slot name (home_city, employer, ...)")
    p.add_argument("--entity", action="append", default=[], help="an entity it is about (repeatable)")
    add_json(p)
    p.set_defaults(func=cmd_add)

    p = msub.add_parser("list", help="list memories (default: currently valid)")
    p.add_argument("--all", action="store_true", help="include archived, superseded, expired and no longer valid")
    p.add_argument("--as-of", metavar="D", help="what was true on date D (world time)")
    p.add_argument("--known-at", metavar="T", help="what Keepsake believed at time T (system time)")
    p.add_argument("--kind", choices=["profile", "fact", "episode", "experience"],
                   help="only this kind (default: profile, fact and experience, as the Memory tab lists them; "
                        "'episode' lists your messages' kept copies)")  # fmt: skip
    p.add_argument("--text", help="only memories containing this text")
    p.add_argument("--limit", type=argtypes.limit)
    p.add_argument("--offset", type=argtypes.offset, default=0)
    add_json(p)
    p.set_defaults(func=cmd_list)

    p = msub.add_parser("show", help="a memory with its versions, sources and audit trail")
    p.add_argument("id", type=argtypes.record_id)
    add_json(p)
    p.set_defaults(func=cmd_show)

    p = msub.add_parser("edit", help="change the text (a new version; the old one is kept unless --forget-old)")
    p.add_argument("id", type=argtypes.record_id)
    p.add_argument("text")
    p.add_argument("--expected-version", type=argtypes.version, help="fail if the memory changed since that version")
    p.add_argument("--forget-old", action="store_true", help="also forget the old wording (earlier versions go for real)")
    p.add_argument("--valid-at", metavar="D", help="when it became true (as in add; 'unknown' clears it), in the same new version")
    add_json(p)
    p.set_defaults(func=cmd_edit)

    p = msub.add_parser("invalidate", help="mark it as no longer true (from --at, default now)")
    p.add_argument("id", type=argtypes.record_id)
    p.add_argument("--at", metavar="D")
    add_json(p)
    p.set_defaults(func=cmd_invalidate)

    p = msub.add_parser("delete", help="delete for real (row, versions, indexes, vectors, what the conversation copied)")
    p.add_argument("ids", type=argtypes.record_id, nargs="+", metavar="ID")
    p.add_argument("--dry-run", action="store_true", help="only show what would be removed")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.add_argument("--keep-sources", action="store_true", help="do not redact the source messages")
    p.add_argument("--with-copies", action="store_true",
                   help="also take the other memories that hold the same text (listed as proposed copies; never taken otherwise)")
    add_json(p)
    p.set_defaults(func=cmd_delete)

    p = msub.add_parser("history", help="every version of a memory")
    p.add_argument("id", type=argtypes.record_id)
    add_json(p)
    p.set_defaults(func=cmd_history)

    for name, help_text in (("pin", "exempt from decay"), ("unpin", "no longer pinned"),
                            ("archive", "hide from default views"), ("restore", "make active again")):  # fmt: skip
        p = msub.add_parser(name, help=help_text)
        p.add_argument("id", type=argtypes.record_id)
        add_json(p)
        p.set_defaults(func=cmd_simple, action=name)

    p = msub.add_parser("ttl", help="forget after N days (or --clear)")
    p.add_argument("id", type=argtypes.record_id)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--days", type=argtypes.days)
    g.add_argument("--clear", action="store_true")
    add_json(p)
    p.set_defaults(func=cmd_ttl)

    register_search(msub)
    forget_cli.register(msub)


# -- memory commands ---------------------------------------------------------------------------
@store_command
def cmd_add(args: argparse.Namespace) -> int:
    from assistant.memory.records import Actor, Kind, Source, Trust
    valid_at = parse_when(args.valid_at) if args.valid_at else None
    invalid_at = parse_when(args.invalid_at) if args.invalid_at else None
    observed = parse_when(args.observed_at) if args.observed_at else datetime.now().astimezone()
    if args.ttl_days is not None and args.ttl_days <= 0:
        raise UserError("--ttl-days must be positive")
    with opened_store(args.services, with_embedder=True) as store:
        res = store.add_ex(
            args.text, kind=Kind(args.kind), valid_at=valid_at, invalid_at=invalid_at, trust=Trust.USER_STATED,
            source=Source(speaker="user", extractor="cli", observed_at=observed), slot=args.slot,
            entities=args.entity, ttl=timedelta(days=args.ttl_days) if args.ttl_days else None, actor=Actor.USER,
        )  # fmt: skip
        m = store.get(res.id)
    emit(args, {**m.to_json(), "created": res.created},
         f"{'added' if res.created else 'already known, source added to'} #{m.id}: {m.text}")  # fmt: skip
    return 0


@store_command
def cmd_list(args: argparse.Namespace) -> int:
    as_of = parse_when(args.as_of) if args.as_of else None
    known_at = parse_when(args.known_at) if args.known_at else None
    with opened_store(args.services) as store:
        from assistant.memory.records import FACT_KINDS  # deferred, as the records elsewhere here

        items = store.list(kind=args.kind or FACT_KINDS, as_of=as_of, known_at=known_at, include_all=args.all, text=args.text,
                           limit=args.limit, offset=args.offset)  # fmt: skip
        # the person's own messages, kept as said, are listed apart: a reply's memory line may cite one ("memory #7")
        said = store.count(kind="episode", as_of=as_of, known_at=known_at, include_all=args.all, text=args.text) if not args.kind else 0
    more = f"\n+ {said} of your own messages, kept as said (a reply may cite one): keepsake memory list --kind episode" if said else ""
    emit(args, [m.to_json() for m in items], lambda: ("\n".join(_line(m) for m in items) or "no memories") + more)
    return 0


@store_command
def cmd_show(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        m = store.get(args.id)
        versions = store.history(args.id)
        audit = store.audit(args.id)
        injections = store.injections(memory_id=args.id, limit=50)
    data = {
        **m.to_json(),
        "versions": [v.to_json() for v in versions],
        "audit": [a.to_json() for a in audit],
        "injections": [{"turn_id": i.turn_id, "at": i.at.isoformat(), "score": i.score} for i in injections],
    }
    said = min((x.observed_at for x in m.sources if x.observed_at), default=None)
    lines = [_line(m), f"  {TRUE_SINCE.lower()}: {true_since(m.valid_at, m.start_kind, said)} → until {fmt_date(m.invalid_at)}"
             f"   known since {fmt_date(m.created_at)}"
             + (f", superseded {fmt_date(m.expired_at)}" if m.expired_at else "")]  # fmt: skip
    lines.append("  sources:" if m.sources else "  sources: none")
    for s in m.sources:
        where = f"session {s.session_id} message {s.message_id}" if s.session_id is not None else "direct entry"
        lines.append(f"    {s.speaker} via {s.extractor} {s.extractor_version}, {where}, observed {fmt_date(s.observed_at)}")
    lines.append("  versions:")
    kept = {v.version for v in versions[:-1] if v.text != m.text}
    for v in versions:
        mark = "  [text kept]" if v.version in kept else ""
        lines.append(f"    v{v.version} {fmt_date(v.recorded_at)} {v.update_type.value if v.update_type else 'added'} by {v.actor.value}: {v.text}{mark}")
    if kept:
        lines.append(f"  the earlier wording is kept in the database; forget it with: keepsake memory forget-versions {m.id}")
    lines.append("  audit:")
    for a in audit:
        lines.append(f"    {fmt_date(a.at)} {a.actor.value} {a.action}")
    emit(args, data, "\n".join(lines))
    return 0


@store_command
def cmd_edit(args: argparse.Namespace) -> int:
    from assistant.memory.language.rules import relink_entities
    extra = {}  # "true since": the UI's edit dialog sets it with the text, so does this
    if args.valid_at is not None:
        extra["valid_at"] = None if args.valid_at.strip().lower() in ("unknown", "none", "") else parse_when(args.valid_at)
    with opened_store(args.services, with_embedder=True) as store:
        m = relink_entities(store, store.update(args.id, text=args.text, expected_version=args.expected_version, action="edit", **extra))
        report = store.purge_versions(args.id) if args.forget_old else None
    if report is not None:
        return forget_cli.finish(args, report, f"#{m.id} is now v{m.version}: {m.text}; the old wording was forgotten")
    emit(args, m.to_json(), f"#{m.id} is now v{m.version}: {m.text}")
    return 0


@store_command
def cmd_invalidate(args: argparse.Namespace) -> int:
    at = parse_when(args.at) if args.at else None
    with opened_store(args.services) as store:
        try:
            m = store.invalidate(args.id, at)
        except EndsBeforeStart as exc:  # "true since at least" the day it was said
            raise UserError(f"#{args.id} is true since {fmt_date(exc.valid_at)}, after {fmt_date(exc.invalid_at)}; if it began earlier, "
                            f"say when first: keepsake memory edit {args.id} TEXT --valid-at D") from None
    emit(args, m.to_json(), f"#{m.id} no longer true from {fmt_date(m.invalid_at)}")
    return 0


@store_command
def cmd_delete(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        plan = store.delete_preview(args.ids, redact_sources=not args.keep_sources)
        copies = [p.memory_id for p in plan.proposed] if args.with_copies else []
        if copies:  # exactly the copies shown, whatever is added meanwhile
            plan = store.delete_preview(args.ids, redact_sources=not args.keep_sources, copies=copies)
        if args.dry_run:
            emit(args, plan.to_json(), "would delete:\n" + forget_cli.render(plan))
            return 0
        if not args.yes:
            print(forget_cli.render(plan), file=sys.stderr)
        if not forget_cli.ask(f"Delete {len(plan.memory_ids)} memories for good?", args):
            emit(args, {"deleted": False}, "nothing deleted")
            return 1
        report = store.delete(args.ids, redact_sources=not args.keep_sources, copies=copies)
    return forget_cli.finish(args, report, "deleted")


@store_command
def cmd_history(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        versions = store.history(args.id)
    emit(args, [v.to_json() for v in versions],
         "\n".join(f"v{v.version} {fmt_date(v.recorded_at)} {v.update_type.value if v.update_type else 'added'} "
                   f"by {v.actor.value} [{v.status.value}]: {v.text}" for v in versions))  # fmt: skip
    return 0


@store_command
def cmd_simple(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        m = getattr(store, args.action)(args.id)
    emit(args, m.to_json(), _line(m))
    return 0


@store_command
def cmd_ttl(args: argparse.Namespace) -> int:
    if args.days is not None and args.days <= 0:
        raise UserError("--days must be positive")
    with opened_store(args.services) as store:
        m = store.clear_ttl(args.id) if args.clear else store.set_ttl(args.id, timedelta(days=args.days))
    emit(args, m.to_json(), _line(m))
    return 0


# -- search (retrieval, issue 4) -----------------------------------------------------------------
def register_search(msub: argparse._SubParsersAction) -> None:
    p = msub.add_parser("search", help="hybrid memory search (what a chat turn would retrieve)")
    p.add_argument("query")
    p.add_argument("--k", type=argtypes.whole(1, 4096, "--k"), default=5, metavar="N", help="how many memories (default 5, at most 4096)")
    p.add_argument("--as-of", metavar="D", help="what was true on date D (world time)")
    p.add_argument("--known-at", metavar="T", help="what Keepsake believed at time T (system time)")
    p.add_argument("--explain", action="store_true", help="show each signal's raw and normalized score")
    add_json(p)
    p.set_defaults(func=cmd_search)


@store_command
def cmd_search(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise UserError("--k must be at least 1")
    as_of = parse_when(args.as_of) if args.as_of else None
    known_at = parse_when(args.known_at) if args.known_at else None
    closest = []
    args.services.load_in_background(lambda: args.services.embedder().dim)  # the model file loads while the store opens
    with opened_store(args.services, warm=True) as store:  # the vectors are read while retrieval is imported and the query embedded
        from assistant.memory.retrieval.retriever import Retriever  # deferred: numpy, rapidfuzz, the gates
        try:
            retriever = Retriever(store, args.services.embedder())
            hits = retriever.search(args.query, k=args.k, as_of=as_of, known_at=known_at)
            if not hits and args.explain and not args.json:  # why nothing: the closest candidates and what stopped them
                closest = retriever.search(args.query, k=3, as_of=as_of, known_at=known_at, include_rejected=True)
        except ModelError as exc:
            raise UserError(f"search needs the embedding model: {exc}") from None
    lines = []
    for h in hits:
        lines.append(f"{h.score:.3f}  {_line(h.memory)}")
        if args.explain:
            lines += [f"         {s.name}: raw {s.raw:.4f}, normalized {s.normalized:.4f}, weight {s.weight:g}" for s in h.signals]
    if closest:
        lines.append("no memory answers this; the closest ones and why they do not:")
        lines += [f"  {_line(h.memory)}\n         {h.why_not}" for h in closest]
    emit(args, [h.to_json(explain=args.explain) for h in hits], "\n".join(lines) or "no memory answers this (none passed the relevance threshold and the checks)")
    return 0
