"""Which embedding model made a vector: a file identity that survives a rename or a move.

Vectors of two models are not comparable (not even two models of the same dimension), so the
memory store records the identity of the model that made its index (``store_meta``) and the
services compare it with the configured embedder on every open (:mod:`assistant.reembed`).

    fingerprint = sha256( "gguf-embedder-v1" | size | first 1 MiB | last 1 MiB )[:32 hex]

The first MiB of a GGUF holds its whole header (architecture, name, tokenizer, sizes) and the
start of its tensors, the last MiB the end of its weights, the size the rest: two different
models (or quantisations) never share all three, and a file that was copied, renamed or
converted again byte for byte keeps its fingerprint. Reading 2 MiB costs about a millisecond;
results are cached by (path, size, mtime). ``dim`` comes from the header
(``<arch>.embedding_length``, the pooled vector's size for every embedder llama.cpp runs).
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path

from assistant.engine import gguf_check
from assistant.engine.errors import ModelError
from assistant.engine.names import display_name

CHUNK = 1 << 20  # bytes hashed at each end of the file
_cache: dict[tuple[str, int, int], "EmbedderIdentity"] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class EmbedderIdentity:
    name: str  # "all-MiniLM-L6-v2"
    fingerprint: str  # 32 hex digits (module docstring)
    dim: int

    def describe(self) -> str:
        """"all-MiniLM-L6-v2 (384 dimensions)"."""
        return f"{self.name} ({self.dim} dimensions)"


def fingerprint(path: Path | str) -> str:
    """The file's fingerprint (module docstring)."""
    path = Path(path)
    size = path.stat().st_size
    h = hashlib.sha256(b"gguf-embedder-v1|%d|" % size)
    with open(path, "rb") as fh:
        h.update(fh.read(CHUNK))
        if size > CHUNK:
            fh.seek(max(CHUNK, size - CHUNK))
            h.update(fh.read(CHUNK))
    return h.hexdigest()[:32]


def identify(path: Path | str) -> EmbedderIdentity:
    """The identity of the embedding model in ``path``; :class:`ModelError` when it is missing,
    not a GGUF, or declares no embedding size."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(path, "file not found")
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    with _lock:
        if key in _cache:
            return _cache[key]
    info = gguf_check.check_role(gguf_check.inspect(path), "embedding")
    if not info.embedding_length:
        raise ModelError(path, "the model declares no embedding size")
    ident = EmbedderIdentity(display_name(path), fingerprint(path), int(info.embedding_length))
    with _lock:
        _cache[key] = ident
    return ident
