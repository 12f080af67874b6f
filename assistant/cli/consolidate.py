"""``keepsake consolidate [--dry-run] [--llm] [--json]``, ``keepsake consolidate undo RUN_ID``,
``keepsake consolidate runs``, ``keepsake jobs status``, ``keepsake jobs extract``.

``consolidate`` lists every change with its reason; without ``--dry-run`` it applies them and
prints the run id (undo it with ``keepsake consolidate undo RUN_ID``).
"""

from __future__ import annotations

import argparse
import sys

from assistant.cli import argtypes
from assistant.cli.common import UserError, add_json, emit, opened_store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("consolidate", help="dedup, resolve contradictions, decay and expire memories now")
    p.add_argument("--dry-run", action="store_true", help="list the proposed changes and their reasons; change nothing")
    p.add_argument("--llm", action="store_true", help="also let the chat model confirm paraphrases and propose conflicts")
    add_json(p)
    p.set_defaults(func=_run)
    csub = p.add_subparsers(dest="consolidate_command", metavar="{undo,runs}")
    u = csub.add_parser("undo", help="revert everything a consolidation run changed")
    u.add_argument("run_id")
    u.add_argument("--cascade", action="store_true",
                   help="first undo the later runs that changed the same memories (newest first), then this one")
    add_json(u)
    u.set_defaults(func=_undo)
    r = csub.add_parser("runs", help="list recorded consolidation runs, newest first")
    r.add_argument("--limit", type=argtypes.limit, default=20)
    add_json(r)
    r.set_defaults(func=_runs)

    j = sub.add_parser("jobs", help="background jobs")
    jsub = j.add_subparsers(dest="jobs_command", metavar="{status,extract}")
    s = jsub.add_parser("status", help="last consolidation run, whether one is running, next run times")
    add_json(s)
    s.set_defaults(func=_jobs_status)
    x = jsub.add_parser("extract", help="let the chat model read the imported messages waiting for it, now")
    x.add_argument("--limit", type=argtypes.limit, metavar="N", help="at most N messages (default: all; Ctrl+C stops, resumable)")
    add_json(x)
    x.set_defaults(func=_jobs_extract)
    j.set_defaults(func=_jobs_status, json=False)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "nothing"


def _run(args: argparse.Namespace) -> int:
    from assistant.memory.consolidation.consolidator import ConsolidationConfig, Consolidator  # deferred: the store (SQLCipher, numpy)

    chat_model = None
    if args.llm:
        chat_model = args.services.chat_model()
    # the embedder is loaded to apply: the facts a run creates get their vector in the run
    with opened_store(args.services, with_embedder=bool(args.llm) or not args.dry_run) as store:
        consolidator = Consolidator(store, chat_model=chat_model, config=ConsolidationConfig(use_llm=bool(args.llm)))
        report = consolidator.run(dry_run=args.dry_run, trigger="cli")
    data = report.to_json()
    lines = [_rolled_back(r.run_id, r.report) for r in report.recovered]
    for ch in report.changes:
        lines.append(ch.describe())
    if args.dry_run:
        undecided = [c for c in report.candidates if c.kind == "conflict"]
        if undecided:
            lines.append(f"{len(undecided)} possible conflict(s) left undecided (see --json 'candidates')")
        lines.append(f"dry run {report.run_id}: would change {_counts(report.proposed)}; nothing was changed")
    else:
        lines.append(f"run {report.run_id}: changed {_counts(report.applied)}")
        if report.conflicts or report.skipped:
            lines.append(f"  {report.conflicts} version conflict(s) with concurrent writes; {report.skipped} change(s) left for the next run")
        if report.errors:
            lines.append(f"  {len(report.errors)} change(s) failed: " + "; ".join(report.errors[:3]))
        if report.changes:
            lines.append(f"  undo with: keepsake consolidate undo {report.run_id}")
    emit(args, data, "\n".join(lines))
    return 0


def _taken_back(report) -> str:
    return (f"{report.versions} memories restored, {report.unlinked} links removed, "
            f"{report.sources_removed} sources and {report.entities_removed} entity links taken back, "
            f"{report.facts_removed} consolidated facts removed")  # fmt: skip


def _rolled_back(run_id: str, report) -> str:
    return f"run {run_id} had been interrupted; rolled back: {_taken_back(report)}"


def _undo(args: argparse.Namespace) -> int:
    from assistant.memory.consolidation.consolidator import undo  # deferred: the store (SQLCipher, numpy)

    from assistant.memory.consolidation.undo import LaterRunFirst

    with opened_store(args.services, with_embedder=True) as store:
        try:
            report = undo(store, args.run_id, cascade=args.cascade)
        except LaterRunFirst as exc:
            raise UserError(str(exc)) from None
    text = "".join(f"undid later run {r.run_id} first: {_taken_back(r)}\n" for r in report.cascaded)
    if report.undo_run_id.startswith("rollback:"):
        text += _rolled_back(report.run_id, report)
    else:
        text += f"undid run {report.run_id}: {_taken_back(report)}"
    for s in report.skipped:
        text += f"\n  kept #{s.memory_id} ({s.action}): {s.why}" if s.memory_id is not None else f"\n  {s.why}"
    emit(args, report.to_json(), text)
    return 0


def _runs(args: argparse.Namespace) -> int:
    from assistant.memory.consolidation.consolidator import list_runs  # deferred: the store (SQLCipher, numpy)

    with opened_store(args.services) as store:
        rows = list_runs(store, limit=args.limit)
        now = store.now()
    states = [r.state(now) for r in rows]
    lines = [
        f"{r.run_id}  {r.started_at:%Y-%m-%d %H:%M}  {r.trigger:<10} {'dry-run ' if r.dry_run else ''}{state}"
        f"{' (the next start of Keepsake rolls it back)' if state == 'interrupted' else ''}: {_counts(r.counts)}"
        for r, state in zip(rows, states)
    ] or ["no consolidation runs yet"]
    emit(args, [dict(r.to_json(), state=state) for r, state in zip(rows, states)], "\n".join(lines))
    return 0


def _jobs_extract(args: argparse.Namespace) -> int:
    from assistant.memory.capture.importing import model_extraction  # deferred: the store (SQLCipher, numpy)

    with opened_store(args.services, with_embedder=True) as store:
        todo = min(model_extraction.status(store).left, args.limit or 10**9)
        report = model_extraction.ExtractionReport()
        if todo:
            print(f"the chat model reads {todo} imported message(s)...", file=sys.stderr)

            def show(r: model_extraction.ExtractionReport) -> None:
                print(f"  {r.processed}/{todo} read, {r.memories_added} new memories", file=sys.stderr)

            try:
                report = model_extraction.run(store, args.services.chat_model(), limit=args.limit, settings=args.services.settings, progress=show)
            except KeyboardInterrupt:  # the queue only moves past finished messages: resumable
                raise UserError("stopped; run it again to go on") from None
        else:
            report.left = model_extraction.status(store).left
    emit(args, report.to_json(), f"read {report.processed} message(s): {report.memories_added} new memories, "
                                 f"{report.left} left" + (f", {report.failed} failed (see the log)" if report.failed else ""))
    return 0


def _jobs_status(args: argparse.Namespace) -> int:
    with opened_store(args.services) as store:
        from assistant.jobs import status_from_store  # deferred: the scheduler, only for this command

        st = status_from_store(store, args.services.settings)
    last = st.last_run
    lines = [
        "consolidation: " + (f"running ({st.running_trigger})" if st.running else "not running")
        + (f"; {st.interrupted} interrupted run(s), rolled back when the next run starts" if st.interrupted else ""),
        "last run: " + (f"{last['run_id']} {last['trigger']} {last['status']} at {last['finished_at'] or last['started_at']}: "
                        f"{_counts(last['counts'])}" if last else "none"),
        f"next nightly run: {st.next_nightly:%Y-%m-%d %H:%M %Z}" if st.next_nightly else "nightly run: off",
        f"idle trigger: after {st.idle_seconds / 60:g} minutes without input (while the app is open)",
        "model extraction: " + (f"{st.model_extraction_left} imported message(s) left for the chat model to read "
                                "(while idle, or now: keepsake jobs extract)" if st.model_extraction_left else "nothing waiting"),
    ]  # fmt: skip
    emit(args, st.to_json(), "\n".join(lines))
    return 0
