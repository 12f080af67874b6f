"""Check a GGUF file before llama.cpp sees it, so a bad file gives a clear reason.

llama.cpp answers a broken file with a bare "Failed to load model"; this module reads the header
(:mod:`assistant.engine.gguf_header`: the few keys it needs and the tensor table, arrays skipped by
their lengths; milliseconds, where ``gguf.GGUFReader`` took seconds) and reports *why*: not a GGUF
at all, truncated, unreadable metadata, or an architecture that does not fit the role (an encoder
offered as the chat model, a decoder without pooling offered as the embedder).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from assistant.engine import gguf_header
from assistant.engine.errors import ModelError

Role = Literal["chat", "embedding"]

GGUF_MAGIC = b"GGUF"
VERDICTS_VERSION = 1  # bump when GGUFInfo or the checks change: older verdicts are then ignored
#: Encoder-only architectures: they embed, they cannot chat.
ENCODER_ARCHES = frozenset({"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "jina-bert-v3", "t5encoder", "modern-bert", "neo-bert"})


@dataclass(frozen=True)
class GGUFInfo:
    path: Path
    arch: str
    name: str
    size_bytes: int
    context_length: int | None
    embedding_length: int | None
    has_pooling: bool
    has_chat_template: bool

    @property
    def roles(self) -> tuple[Role, ...]:
        if self.arch in ENCODER_ARCHES:
            return ("embedding",)
        return ("chat", "embedding") if self.has_pooling else ("chat",)


_cache: dict[tuple[str, int, int], GGUFInfo] = {}
_verdicts: Path | None = None  # the on-disk cache of good verdicts (see remember_in)
_lock = threading.Lock()


def remember_in(file: Path | None) -> None:
    """Keep good verdicts in ``file`` (JSON, keyed by resolved path, size and mtime), so a new
    process (every CLI command) reads no header of a file already checked; None: memory only.
    Set by the edge that owns the profile (:class:`assistant.services.Services`)."""
    global _verdicts
    _verdicts = Path(file) if file is not None else None


def inspect(path: Path | str) -> GGUFInfo:
    """Read a GGUF header; raise :class:`ModelError` naming the file and the reason.

    Results are cached by (path, size, mtime) in the process and, for good files, on disk
    (:func:`remember_in`): a changed file is read again."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(path, "file not found")
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    with _lock:
        info = _cache.get(key)
        if info is None:
            info = _load_verdict(key, path)
        if info is None:
            info = _read(path, st.st_size)
            _save_verdict(key, info)
        _cache[key] = info
        return info


def _load_verdicts(file: Path) -> dict:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("version") == VERDICTS_VERSION else {}


def _load_verdict(key: tuple[str, int, int], path: Path) -> GGUFInfo | None:
    if _verdicts is None:
        return None
    entry = _load_verdicts(_verdicts).get("files", {}).get(key[0])
    if not isinstance(entry, dict) or [entry.get("size"), entry.get("mtime_ns")] != [key[1], key[2]]:
        return None
    try:
        return GGUFInfo(path=path, **entry["info"])
    except (KeyError, TypeError):
        return None


def _save_verdict(key: tuple[str, int, int], info: GGUFInfo) -> None:
    if _verdicts is None:
        return
    data = _load_verdicts(_verdicts)
    files = {k: v for k, v in data.get("files", {}).items() if Path(k).exists()}  # forget deleted files
    fields = {k: v for k, v in asdict(info).items() if k != "path"}
    files[key[0]] = {"size": key[1], "mtime_ns": key[2], "info": fields}
    try:
        _verdicts.parent.mkdir(parents=True, exist_ok=True)
        tmp = _verdicts.with_name(f"{_verdicts.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"version": VERDICTS_VERSION, "files": files}), encoding="utf-8")
        os.replace(tmp, _verdicts)
    except OSError:  # only a speed-up: a read-only cache folder costs a header read next time
        pass


def _read(path: Path, size: int) -> GGUFInfo:
    try:
        hdr = gguf_header.read_header(path)
    except gguf_header.HeaderError as exc:
        reason = str(exc)
        if not reason.startswith(("not a GGUF", "unsupported GGUF")):
            reason = f"damaged or truncated GGUF header ({reason})"
        raise ModelError(path, reason) from None
    except (OSError, ValueError) as exc:  # unreadable, or mmap of an odd file
        raise ModelError(path, f"cannot read the file ({exc})") from None
    if hdr.data_end > size:
        raise ModelError(path, f"truncated: tensors need {hdr.data_end} bytes, file has {size}")
    if not hdr.tensor_count:
        raise ModelError(path, "GGUF has no tensors (vocabulary-only file?)")
    arch = hdr.values.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise ModelError(path, "GGUF metadata has no general.architecture")
    name = hdr.values.get("general.name")
    ctx = hdr.values.get(f"{arch}.context_length")
    emb = hdr.values.get(f"{arch}.embedding_length")
    return GGUFInfo(
        path=path,
        arch=arch,
        name=name if isinstance(name, str) and name else path.stem,
        size_bytes=size,
        context_length=int(ctx) if isinstance(ctx, int) and not isinstance(ctx, bool) else None,
        embedding_length=int(emb) if isinstance(emb, int) and not isinstance(emb, bool) else None,
        has_pooling=f"{arch}.pooling_type" in hdr.keys or arch in ENCODER_ARCHES,
        has_chat_template="tokenizer.chat_template" in hdr.keys,
    )


def check_role(info: GGUFInfo, role: Role) -> GGUFInfo:
    """Raise :class:`ModelError` when the file's architecture cannot serve ``role``."""
    if role not in info.roles:
        if role == "chat":
            reason = f"architecture '{info.arch}' is an embedding (encoder) model and cannot be used for chat"
        else:
            reason = f"architecture '{info.arch}' has no pooling metadata; it is not an embedding model"
        raise ModelError(info.path, reason)
    return info
