"""Check a GGUF file before llama.cpp sees it, so a bad file gives a clear reason.

llama.cpp answers a broken file with a bare "Failed to load model"; this module reads the header
with the ``gguf`` package and reports *why*: not a GGUF at all, truncated, unreadable metadata, or
an architecture that does not fit the role (an encoder offered as the chat model, a decoder
without pooling offered as the embedder).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from assistant.engine.errors import ModelError

Role = Literal["chat", "embedding"]

GGUF_MAGIC = b"GGUF"
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


def _field(reader, key: str):
    f = reader.fields.get(key)
    if f is None:
        return None
    try:
        return f.contents()
    except Exception:  # noqa: BLE001 - odd metadata types are treated as absent
        return None


_cache: dict[tuple[str, int, int], GGUFInfo] = {}


def inspect(path: Path | str) -> GGUFInfo:
    """Read a GGUF header; raise :class:`ModelError` naming the file and the reason.

    Results are cached by (path, size, mtime): parsing the vocabulary arrays costs hundreds of
    milliseconds of GIL time, and a changed file is read again."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(path, "file not found")
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _cache:
        _cache[key] = _read(path, st.st_size)
    return _cache[key]


def _read(path: Path, size: int) -> GGUFInfo:
    with path.open("rb") as fh:
        head = fh.read(24)
    if len(head) < 24 or head[:4] != GGUF_MAGIC:
        raise ModelError(path, "not a GGUF file (missing GGUF magic bytes)")
    version = int.from_bytes(head[4:8], "little")
    if version not in (2, 3):
        raise ModelError(path, f"unsupported GGUF version {version}")
    try:
        from gguf import GGUFReader  # deferred: gguf, numpy

        reader = GGUFReader(path, "r")
    except Exception as exc:  # noqa: BLE001 - any parse failure means a damaged header
        raise ModelError(path, f"damaged or truncated GGUF header ({type(exc).__name__}: {exc})") from None
    try:
        end = max((t.data_offset + int(t.n_bytes) for t in reader.tensors), default=0)
    except Exception as exc:  # noqa: BLE001
        raise ModelError(path, f"damaged tensor table ({exc})") from None
    if end > size:
        raise ModelError(path, f"truncated: tensors need {end} bytes, file has {size}")
    if not reader.tensors:
        raise ModelError(path, "GGUF has no tensors (vocabulary-only file?)")
    arch = _field(reader, "general.architecture")
    if not isinstance(arch, str) or not arch:
        raise ModelError(path, "GGUF metadata has no general.architecture")
    name = _field(reader, "general.name")
    ctx = _field(reader, f"{arch}.context_length")
    emb = _field(reader, f"{arch}.embedding_length")
    return GGUFInfo(
        path=path,
        arch=arch,
        name=name if isinstance(name, str) and name else path.stem,
        size_bytes=size,
        context_length=int(ctx) if isinstance(ctx, int) else None,
        embedding_length=int(emb) if isinstance(emb, int) else None,
        has_pooling=f"{arch}.pooling_type" in reader.fields or arch in ENCODER_ARCHES,
        has_chat_template="tokenizer.chat_template" in reader.fields,
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
