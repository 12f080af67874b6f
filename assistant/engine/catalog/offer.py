"""The first-run offer: which catalog model the first window offers, once, never forced.

Offered when nothing was offered before (a marker in the config folder), the chat runs on the
default model here (not a GGUF the person picked, not a model server), no catalog chat model is
downloaded yet, and one fits this machine (:func:`entries.recommend`).
"""

from __future__ import annotations

import json
from pathlib import Path

from assistant.config import Paths, Settings
from assistant.engine.catalog import download, entries
from assistant.fileio import write_private_atomic


def _marker(p: Paths) -> Path:
    return p.config / "model-offer.json"


def offered(p: Paths) -> bool:
    return _marker(p).is_file()


def mark_offered(p: Paths, answer: str) -> None:
    """Remember the person's answer ("download" | "not now"): the offer is not shown again."""
    p.ensure()
    write_private_atomic(_marker(p), json.dumps({"answer": answer}))


def first_run_offer(p: Paths, settings: Settings, machine: entries.Machine,
                    catalog: tuple[entries.CatalogEntry, ...] | None = None) -> entries.CatalogEntry | None:  # fmt: skip
    """The entry to offer now, or None (module docstring)."""
    if offered(p) or settings.chat_model != "default" or settings.uses_server:
        return None
    catalog = entries.load() if catalog is None else catalog
    if any(download.downloaded(e, p.models) for e in catalog if e.role == "chat"):
        return None
    return entries.recommend(catalog, machine)
