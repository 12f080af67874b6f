"""``keepsake models use <embedder>``: switch the embedding model, re-embedding every memory
(:mod:`assistant.reembed`) with progress on stderr; Ctrl-C cancels between batches and keeps the
old index and embedder. ``--json`` prints the summary (memories re-embedded, seconds)."""

from __future__ import annotations

import sys
import threading
import time

from assistant.cli.common import UserError, emit
from assistant.engine import gguf_check
from assistant.engine.catalog import entries as catalog
from assistant.engine.errors import ModelError
from assistant.engine.names import DEFAULT_EMBEDDER_NAME
from assistant.memory.errors import StoreError

#: names of the default embedder on the command line (``default`` alone means the chat model)
DEFAULT_NAMES = ("minilm", DEFAULT_EMBEDDER_NAME.lower(), "all-minilm-l6-v2-f16.gguf")


def is_embedder(name: str) -> bool:
    """``name`` is an embedding model: a catalog embedder, the default MiniLM, or a GGUF file
    that can only embed (an encoder)."""
    key = name.strip().lower()
    if key in DEFAULT_NAMES:
        return True
    try:
        return catalog.find(key).role == "embedding"
    except catalog.CatalogError:
        pass
    try:
        return gguf_check.inspect(name).roles == ("embedding",)
    except ModelError:
        return False


class _Progress:
    """"Re-embedding memories with X: 640/1,000 (64%), 9 s, about 5 s left" on stderr."""

    def __init__(self, name: str, enabled: bool) -> None:
        self.name, self.enabled, self.tty = name, enabled, sys.stderr.isatty()
        self.t0, self.last = time.monotonic(), -1

    def __call__(self, p) -> None:  # a ReindexProgress
        if not self.enabled:
            return
        spent = time.monotonic() - self.t0
        left = f", about {spent / p.done * (p.total - p.done):.0f} s left" if 0 < p.done < p.total else ""
        line = f"Re-embedding memories with {self.name}: {p.done:,}/{p.total:,} ({p.fraction:.0%}), {spent:.0f} s{left}"
        if self.tty:
            print("\r" + line.ljust(79), end="", file=sys.stderr, flush=True)
        elif int(p.fraction * 10) != self.last:  # a log: one line per 10%
            self.last = int(p.fraction * 10)
            print(line, file=sys.stderr, flush=True)

    def end(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)


def cmd_use_embedder(args) -> int:
    from assistant import reembed  # deferred: the store (SQLCipher, numpy); `--help` imports this module

    services = args.services
    name = "default" if args.name.strip().lower() in (*DEFAULT_NAMES, "default") else args.name
    try:
        plan = reembed.plan_switch(services, name)
    except reembed.SwitchError as exc:
        raise UserError(str(exc)) from None
    show = _Progress(plan.identity.name, not args.quiet)
    cancel = threading.Event()
    outcome: dict = {}
    ended = threading.Event()

    def run() -> None:
        try:
            outcome["result"] = reembed.switch_embedder(services, plan, progress=show, cancel=cancel, force=args.reembed)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            outcome["error"] = exc
        finally:
            ended.set()

    threading.Thread(target=run, name="keepsake-reembed", daemon=True).start()
    # Wait on an Event, not Thread.join: a join interrupted by Ctrl-C may return at once the next
    # time (the thread looks finished while it still runs).
    while not ended.is_set():
        try:
            ended.wait(0.2)
        except KeyboardInterrupt:  # Ctrl-C: stop between two batches, the old index stays
            cancel.set()
    show.end()
    error = outcome.get("error")
    if isinstance(error, reembed.ReindexCancelled) or (cancel.is_set() and "result" not in outcome):
        print(f"keepsake: cancelled; the memories are still searched with {reembed.current(services)} "
              "(the old index is kept, nothing was switched)", file=sys.stderr)  # fmt: skip
        return 130
    if isinstance(error, (StoreError, ModelError, reembed.SwitchError)):
        raise UserError(f"{error}; the old index and embedder are still in use") from None
    if error is not None:
        raise error
    r = outcome["result"]
    if r.reembedded:
        text = (f"Memory search uses {r.name} ({r.dim} dimensions) from now on: "
                f"{r.memories:,} memories re-embedded in {r.seconds:.1f} s.")  # fmt: skip
    else:
        text = f"Memory search uses {r.name} ({r.dim} dimensions): the index was already made by it, nothing to re-embed."
    emit(args, r.to_json(), text)
    return 0
