"""Switch the embedder: re-embed every memory with the new model, then use it. The service behind
``keepsake models use <embedder>`` and Settings → Models → Use (the app runs it on a worker).

    plan = plan_switch(services, "embeddinggemma-300m")       # resolves; raises SwitchError
    result = switch_embedder(services, plan, progress=cb, cancel=event)

What carries vectors: only ``memory_vec`` (one per memory). The vector cache of retrieval is a
copy of it (reloaded when the index generation changes); question forms and old versions are
embedded on the fly by the embedder in use; entities have none.

Order of the writes, so that every stop leaves a consistent state:

1. the new index is built beside the old one (:mod:`assistant.memory.store.reindex`): cancel, an
   error or a kill leaves the old index and the old settings in use (a kill leaves partial tables,
   dropped by the next open or run);
2. one transaction switches the index and records the new embedder with a "switch pending" mark;
3. the settings are saved (``embed_model``), then the mark is cleared. A stop between 2 and 3 is
   finished by the next open (:meth:`assistant.services.Services.open_store`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from assistant.engine import embedder_id, gguf_check, registry
from assistant.engine.catalog import download as dl
from assistant.engine.catalog import entries as catalog
from assistant.engine.errors import ModelError
from assistant.engine.names import display_name
from assistant.memory.store import reindex, vector_index
from assistant.memory.store.reindex import ReindexCancelled, ReindexProgress  # noqa: F401 - the callers' names
from assistant.services import Services


class SwitchError(ValueError):
    """The embedder cannot be switched to (not downloaded, not an embedding model...)."""


@dataclass(frozen=True)
class SwitchPlan:
    setting: str  # what settings.embed_model becomes: "default" or the GGUF's path
    path: Path
    identity: embedder_id.EmbedderIdentity
    entry_id: str | None  # the catalog entry, when it is one


@dataclass(frozen=True)
class SwitchResult:
    name: str
    setting: str
    dim: int
    memories: int  # vectors in the new index
    embedded: int  # texts embedded
    seconds: float
    reembedded: bool  # False: the index was already made by this embedder (only the settings changed)

    def to_json(self) -> dict:
        return {"embed_model": self.setting, "name": self.name, "dim": self.dim, "memories": self.memories,
                "embedded": self.embedded, "seconds": round(self.seconds, 2), "reembedded": self.reembedded}  # fmt: skip


def plan_switch(services: Services, choice: str) -> SwitchPlan:
    """Resolve ``choice`` (``default``, a catalog name or a GGUF path) to a local embedding model."""
    models = services.profile.paths.models
    key = choice.strip()
    entry_id = None
    if key.lower() == "default":
        setting, path = "default", registry.default_embedder_path(models)
    elif key.lower().endswith(".gguf") or "/" in key or "\\" in key:
        path = Path(key).expanduser()
        if not path.is_file():
            raise SwitchError(f"no model file at {path}")
        path = path.resolve()
        setting = str(path)
    else:
        try:
            entry = catalog.find(key)
        except catalog.CatalogError as exc:
            raise SwitchError(f"{exc}, and no file called {key!r}") from None
        if entry.role != "embedding":
            raise SwitchError(f"{entry.name} is a chat model, not an embedder")
        found = dl.downloaded(entry, models)
        if found is None:
            raise SwitchError(f"{entry.name} is not downloaded yet: keepsake models download {entry.id}")
        path, setting, entry_id = found, str(found), entry.id
    try:
        gguf_check.check_role(gguf_check.inspect(path), "embedding")
        ident = embedder_id.identify(path)
    except ModelError as exc:
        raise SwitchError(str(exc)) from None
    return SwitchPlan(setting, Path(path), ident, entry_id)


def switch_embedder(services: Services, plan: SwitchPlan, *, progress: Callable[[ReindexProgress], None] | None = None,
                    cancel: threading.Event | None = None, batch: int = reindex.BATCH,
                    embed: Callable[[list[str]], list[list[float]]] | None = None, force: bool = False) -> SwitchResult:  # fmt: skip
    """Re-embed every memory with ``plan``'s model and make it the embedder (module docstring).
    When the index was already made by that model only the settings change, unless ``force``
    (re-embed anyway: e.g. to rebuild an index). ``embed``: the new model's function (default:
    the model in ``plan.path``, loaded here).
    Raises :class:`ReindexCancelled` when ``cancel`` is set (nothing changed)."""
    ident = plan.identity
    store = services.open_store(with_embedder=False)
    try:
        index = store.read(vector_index.read_identity)
        same = index.fingerprint == ident.fingerprint and index.dim == ident.dim
        if same and not force and not store.read(vector_index.has_partial):
            store.write(lambda c: vector_index.record(c, fingerprint=ident.fingerprint, name=ident.name, setting=plan.setting))
            _save(services, plan, store)
            n = store.read(vector_index.vector_count)
            return SwitchResult(ident.name, plan.setting, ident.dim, n, 0, 0.0, reembedded=False)
        if embed is None:
            model = services.embedder(plan.path)
            if model.dim != ident.dim:
                raise SwitchError(f"{plan.path} gives {model.dim}-dimensional vectors, its header says {ident.dim}")
            embed = model.embed
        target = reindex.NewIndex(ident.fingerprint, ident.name, plan.setting, ident.dim)
        result = reindex.rebuild(store, embed, target, progress=progress, cancel=cancel, batch=batch)
        _save(services, plan, store)
        return SwitchResult(ident.name, plan.setting, ident.dim, result.memories, result.embedded, result.seconds, reembedded=True)
    finally:
        store.close()


def _save(services: Services, plan: SwitchPlan, store) -> None:
    """Step 3: the settings name the new embedder, then the pending mark goes."""
    services.save_settings(replace(services.settings, embed_model=plan.setting))
    store.write(vector_index.clear_pending)


def current(services: Services) -> str:
    """The configured embedder's display name."""
    setting = services.settings.embed_model
    return display_name(services.embedder_path()) if setting == "default" else display_name(setting)
