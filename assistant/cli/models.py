"""``keepsake models catalog|download|use``: the curated catalog, its verified download, and
switching the chat model to a downloaded entry (an embedder: :mod:`assistant.cli.embedder_use`). (``keepsake models`` alone lists the local files.)

Only ``download`` touches the network, and only the hub named by ``HF_ENDPOINT`` (default
https://huggingface.co); progress goes to stderr, the result to stdout.
"""

from __future__ import annotations

import argparse
import sys
import threading

from assistant.cli import embedder_use
from assistant.cli.common import UserError, add_json, emit
from assistant.engine.catalog import download as dl
from assistant.engine.catalog import entries as catalog
from assistant.engine.catalog import machine


def register_actions(models: argparse.ArgumentParser) -> None:
    """Add the catalog actions under the ``models`` command."""
    actions = models.add_subparsers(dest="action", metavar="ACTION")
    p = actions.add_parser("catalog", help="the curated models you can download, sized to this computer")
    add_json(p)
    p.set_defaults(func=cmd_catalog)
    p = actions.add_parser("download", help="download a catalog model (resumable, SHA-256 verified)")
    p.add_argument("name", help="its catalog name, e.g. qwen2.5-3b-instruct")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_json(p)
    p.set_defaults(func=cmd_download)
    p = actions.add_parser("use", help="use a downloaded catalog model from now on: a chat model ('default': SmolLM2 "
                                       "again), or an embedder (re-embeds every memory; 'minilm': the default)")
    p.add_argument("name", help="a catalog name, or a GGUF path")
    p.add_argument("--embedder", action="store_true", help="NAME is an embedding model (needed only for a GGUF "
                                                            "that could also chat, and for 'default')")
    p.add_argument("--reembed", action="store_true", help="re-embed even when the index was made by that embedder")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_json(p)
    p.set_defaults(func=cmd_use)


def _find(name: str) -> catalog.CatalogEntry:
    try:
        return catalog.find(name)
    except catalog.CatalogError as exc:
        raise UserError(str(exc)) from None


def catalog_report(models_dir) -> dict:
    """The catalog as ``--json`` shows it: entries with their local state, the machine, the
    recommended entry."""
    try:
        entries = catalog.load()
    except catalog.CatalogError as exc:
        raise UserError(str(exc)) from None
    here = machine.probe(models_dir)
    best = catalog.recommend(entries, here)
    rows = []
    for e in entries:
        path = dl.downloaded(e, models_dir)
        rows.append({**e.to_json(), "fits": catalog.fits(e, here), "recommended": best is not None and e.id == best.id,
                     "downloaded": path is not None, "path": str(path) if path else None,
                     "partial_bytes": dl.partial_bytes(e, models_dir)})  # fmt: skip
    return {"models": rows, "recommended": best.id if best else None, "endpoint": dl.endpoint(),
            "machine": {"total_ram_gb": round(here.total_ram / 1e9, 1), "available_ram_gb": round(here.available_ram / 1e9, 1),
                        "free_disk_gb": round(here.free_disk / 1e9, 1)}}  # fmt: skip


def cmd_catalog(args) -> int:
    report = catalog_report(args.services.profile.paths.models)
    m = report["machine"]
    lines = [f"This computer: {m['total_ram_gb']} GB RAM ({m['available_ram_gb']} GB available), "
             f"{m['free_disk_gb']} GB free disk"]  # fmt: skip
    for r in report["models"]:
        state = "downloaded" if r["downloaded"] else ("partial" if r["partial_bytes"] else "")
        mark = "*" if r["recommended"] else " "
        lines.append(f"{mark} {r['id']:<24} {r['role']:<9} {r['size_gb']:>5} GB  needs {r['ram_gb']:>4g} GB RAM  "
                     f"ctx {r['context_length']:>6}  {r['license']:<28} {state}")  # fmt: skip
    if report["recommended"]:
        lines.append(f"* recommended here. Download: keepsake models download {report['recommended']}")
    lines.append(f"Downloads come from {report['endpoint']} (set HF_ENDPOINT for a mirror); nothing is fetched until you run it.")
    emit(args, report, "\n".join(lines))
    return 0


class _StderrProgress:
    def __init__(self, entry: catalog.CatalogEntry, enabled: bool) -> None:
        self.entry, self.enabled, self.tty = entry, enabled, sys.stderr.isatty()
        self.last = None

    def __call__(self, p: dl.DownloadProgress) -> None:
        if not self.enabled or p.phase == "done":
            return
        line = f"{self.entry.name}: {dl.progress_text(p)}"
        if self.tty:
            print("\r" + line.ljust(79), end="", file=sys.stderr, flush=True)
        elif (p.phase, int(p.fraction * 10)) != self.last:  # a log: one line per 10%
            self.last = (p.phase, int(p.fraction * 10))
            print(line, file=sys.stderr, flush=True)

    def end(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)


def cmd_download(args) -> int:
    entry = _find(args.name)
    models = args.services.profile.paths.ensure().models
    show = _StderrProgress(entry, not args.quiet)
    if not args.quiet and dl.downloaded(entry, models) is None:
        print(f"keepsake: downloading {entry.repo}/{entry.file} from {dl.endpoint()}", file=sys.stderr)
    try:
        result = dl.download(entry, models, progress=show, cancel=threading.Event())
    except dl.DownloadError as exc:
        show.end()
        raise UserError(str(exc)) from None
    except KeyboardInterrupt:  # Ctrl-C: the partial file stays, the same command resumes
        show.end()
        print(f"keepsake: download interrupted; run `keepsake models download {entry.id}` again to resume",
              file=sys.stderr)  # fmt: skip
        return 130
    show.end()
    data = {"id": entry.id, "name": entry.name, "path": str(result.path), "sha256": result.sha256,
            "size_bytes": result.size, "fetched_bytes": result.fetched, "resumed_from": result.resumed_from,
            "seconds": round(result.seconds, 2)}  # fmt: skip
    how = "already downloaded" if result.fetched == 0 and result.seconds == 0 else (
        f"verified (SHA-256 {result.sha256[:12]}...), {result.fetched / 1e6:.1f} MB fetched"
        + (f", resumed at {result.resumed_from / 1e6:.1f} MB" if result.resumed_from else ""))
    emit(args, data, f"{entry.name}: {how}\n{result.path}\nUse it: keepsake models use {entry.id}")
    return 0


def cmd_use(args) -> int:
    if args.embedder or embedder_use.is_embedder(args.name):
        return embedder_use.cmd_use_embedder(args)
    services = args.services
    if args.name.strip().lower() == "default":
        services.save_settings(services.settings.with_choice("default"))
        emit(args, {"chat_model": "default"}, "Chatting with the default model (SmolLM2-135M-Instruct) again.")
        return 0
    entry = _find(args.name)
    path = dl.downloaded(entry, services.profile.paths.models)
    if path is None:
        raise UserError(f"{entry.name} is not downloaded yet: keepsake models download {entry.id}")
    services.save_settings(services.settings.with_choice(str(path)))
    emit(args, {"chat_model": str(path), "id": entry.id}, f"Chatting with {entry.name} from now on ({path}).")
    return 0

