"""Which embedder made the search index, and the index being built beside it.

``store_meta`` keys (all written in the transaction that makes or switches the index):

* ``embedding_dim``: the dimension of ``memory_vec`` (since migration 3);
* ``embedder_fingerprint`` / ``embedder_name``: the model that made every vector
  (:mod:`assistant.engine.embedder_id`); absent in a database made before they were recorded
  (the services adopt the configured embedder then, when the dimensions agree);
* ``embedder_setting``: the settings value that names it (``default`` or a GGUF path);
* ``index_generation``: bumped by every switch, so a process holding the old index (its vector
  cache, its embedder) notices and stops instead of mixing vectors of two models;
* ``embedder_switch_pending``: set by the switching transaction and cleared once the settings
  name the new embedder; found set on open, the settings are brought in line (a crash between the
  two writes);
* ``vectors_missing``: a process still holding the old index stored a memory without its vector;
  the next open with the new embedder embeds it (:func:`backfill_marked`);
* ``reading``: what the embedder was given for each text (:data:`READING`): a database whose
  non-English memories were embedded as written has them embedded again as read in English, once
  (:func:`reread`).

While a re-embedding runs (:mod:`.reindex`) two more tables exist: ``memory_vec_next`` (vec0 with
the new dimension) and ``memory_vec_next_src`` (memory id -> hash of the text embedded). Search and
writes never read them; a forget deletes from them too. The run holds an advisory lock on
``<db>.reindex-lock``; tables left by a run that was killed (no lock held) are dropped by the next
open or the next run (:func:`clear_leftover`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from assistant.engine.names import DEFAULT_EMBEDDER_FILE
from assistant.memory.errors import EmbedderMismatchError
from assistant.memory.store.rows import IN_IDS
from assistant.memory.store.sqlite.db import Connection

if sys.platform == "win32":  # pragma: no cover
    import msvcrt
else:
    import fcntl

NEXT = "memory_vec_next"
NEXT_SRC = "memory_vec_next_src"


@dataclass(frozen=True)
class IndexIdentity:
    fingerprint: str | None  # None: not recorded (a database from before this was kept)
    name: str
    dim: int
    setting: str
    generation: int
    pending: bool = False

    def describe(self) -> str:
        return f"{self.name or 'an unrecorded embedder'} ({self.dim} dimensions)"


def _meta(c: Connection, key: str) -> str | None:
    row = c.execute("SELECT value FROM store_meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def read_identity(c: Connection) -> IndexIdentity:
    return IndexIdentity(fingerprint=_meta(c, "embedder_fingerprint"), name=_meta(c, "embedder_name") or "",
                         dim=int(_meta(c, "embedding_dim") or 0), setting=_meta(c, "embedder_setting") or "",
                         generation=generation(c), pending=_meta(c, "embedder_switch_pending") is not None)  # fmt: skip


def generation(c: Connection) -> int:
    return int(_meta(c, "index_generation") or 0)


def record(c: Connection, *, fingerprint: str, name: str, setting: str, dim: int | None = None, bump: bool = False) -> None:
    """Record the embedder of the index (inside the caller's write transaction)."""
    values = {"embedder_fingerprint": fingerprint, "embedder_name": name, "embedder_setting": setting}
    if dim is not None:
        values["embedding_dim"] = str(int(dim))
    if bump:
        values["index_generation"] = str(generation(c) + 1)
        values["embedder_switch_pending"] = "1"
    c.executemany("INSERT OR REPLACE INTO store_meta(key, value) VALUES (?, ?)", list(values.items()))


def mark_missing(c: Connection) -> None:
    """A memory was stored without its vector (its process held the old index)."""
    c.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES ('vectors_missing', '1')")


def backfill_marked(store: Any) -> int:
    """Embed the memories :func:`mark_missing` left without a vector (``store`` has the
    configured embedder); returns how many."""
    if store.damage is not None or store.vectors.embed is None or _meta(store.conn, "vectors_missing") is None:
        return 0
    n = store.backfill_vectors()
    store.write(lambda c: c.execute("DELETE FROM store_meta WHERE key = 'vectors_missing'"))
    return n


READING = "english-gloss-1"  # assistant.memory.language.reading: bump when what the embedder reads changes


def reread(store: Any) -> int:
    """Embed again, once per :data:`READING`, the memories whose reading differs from their text
    (:func:`assistant.memory.language.reading.reading`: another language, read as its English
    gloss), so a database from before glossing answers across languages too. Their vectors are
    dropped and ``vectors_missing`` set in one transaction, then :func:`backfill_marked` embeds
    them (a stop in between: the next open does). Returns how many were embedded."""
    if store.damage is not None or store.vectors.embed is None or _meta(store.conn, "reading") == READING:
        return 0
    from assistant.memory.language.reading import reading  # deferred: the lexicons

    ids = [int(mid) for mid, text in store.conn.execute("SELECT id, text FROM memories WHERE status != 'deleted'")
           if reading(text) != text]  # fmt: skip

    def drop(c: Connection) -> None:
        for mid in ids:
            c.execute("DELETE FROM memory_vec WHERE rowid = ?", (mid,))
        if ids:
            mark_missing(c)
        c.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES ('reading', ?)", (READING,))

    store.write(drop)
    return backfill_marked(store)


def clear_pending(c: Connection) -> None:
    c.execute("DELETE FROM store_meta WHERE key = 'embedder_switch_pending'")


def check(store: Any, fingerprint: str, name: str, dim: int, setting: str) -> IndexIdentity:
    """On open with an embedder: the index must have been made by it. A database from before
    the embedder was recorded adopts it when the dimensions agree. Otherwise
    :class:`EmbedderMismatchError`, saying what made the index and how to fix it."""
    index = store.read(read_identity)
    if index.fingerprint == fingerprint and index.dim == dim:
        return index
    if index.fingerprint is None and index.dim == dim:
        if store.damage is None:  # a damaged file is never written
            store.write(lambda c: record(c, fingerprint=fingerprint, name=name, setting=setting))
        return store.read(read_identity)
    made_by = index.describe() if index.fingerprint else f"an unrecorded embedder ({index.dim} dimensions)"
    back = f" or go back to it with `keepsake models use {cli_name(index.setting)} --embedder`" if index.setting else ""
    raise EmbedderMismatchError(
        f"the memory search index was made by {made_by}, but the configured embedder is {name} ({dim} dimensions); "
        f"their vectors do not compare, so the index is not used with it. Re-embed the memories with "
        f"`keepsake models use {cli_name(setting)} --embedder`{back}")  # fmt: skip


def check_embedder(store: Any, embedder: Any) -> None:
    """:func:`check` for the embedder object a search will use (a ``LlamaEmbedder``: its file's
    identity). Other embedders (test fakes, plain functions) carry no identity: not checked."""
    try:
        ident = embedder.identity
    except AttributeError:
        return
    except Exception:  # noqa: BLE001 - a missing or broken file: the search raises its own ModelError
        return
    check(store, ident.fingerprint, ident.name, ident.dim, str(embedder.path))


def cli_name(setting: str) -> str:
    """How ``keepsake models use`` names the embedder of a setting value (``minilm``: the default)."""
    if not setting or setting == "default" or Path(setting).name == DEFAULT_EMBEDDER_FILE:
        return "minilm"
    return setting


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def vector_count(c: Connection) -> int:
    """Vectors in the index."""
    return int(c.execute("SELECT count(*) FROM memory_vec").fetchone()[0])


def stored_dim(c: Any, default: int = 384) -> int:
    """The vector size a database was written with (``store_meta`` ``embedding_dim``); ``default``
    when it is not recorded or cannot be read (a damaged file being salvaged)."""
    try:
        row = c.execute("SELECT value FROM store_meta WHERE key = 'embedding_dim'").fetchone()
        return int(row[0]) if row else default
    except Exception:  # noqa: BLE001 - unreadable: the default embedder's size
        return default


def has_partial(c: Connection) -> bool:
    return c.execute("SELECT count(*) FROM sqlite_master WHERE name IN (?, ?)", (NEXT, NEXT_SRC)).fetchone()[0] > 0


def create_partial(c: Connection, dim: int) -> None:
    drop_partial(c)
    c.execute(f"CREATE VIRTUAL TABLE {NEXT} USING vec0(embedding float[{int(dim)}] distance_metric=cosine)")
    c.execute(f"CREATE TABLE {NEXT_SRC} (memory_id INTEGER PRIMARY KEY, text_hash TEXT NOT NULL)")


def drop_partial(c: Connection) -> None:
    c.execute(f"DROP TABLE IF EXISTS {NEXT}")
    c.execute(f"DROP TABLE IF EXISTS {NEXT_SRC}")


def forget_partial(c: Connection, ids_json: str) -> None:
    """A forget: the memories' vectors leave the index being built too."""
    if has_partial(c):
        c.execute(f"DELETE FROM {NEXT} WHERE rowid IN {IN_IDS}", (ids_json,))
        c.execute(f"DELETE FROM {NEXT_SRC} WHERE memory_id IN {IN_IDS}", (ids_json,))


def lock_path(db_path: Path | str) -> Path:
    p = Path(db_path)
    return p.with_name(p.name + ".reindex-lock")


@contextlib.contextmanager
def rebuild_lock(db_path: Path | str) -> Iterator[bool]:
    """Hold ``<db>.reindex-lock`` (advisory, released by the OS when the process dies); yields
    False at once when another process or thread holds it."""
    fd = os.open(lock_path(db_path), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            if sys.platform == "win32":  # pragma: no cover
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            else:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            if sys.platform == "win32":  # pragma: no cover
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
            else:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def clear_leftover(store: Any) -> bool:
    """Drop the tables of a re-embedding that was killed (none running now); True when some were
    dropped. The old index was never touched: it stays in use."""
    if store.damage is not None or not store.read(has_partial):
        return False
    with rebuild_lock(store.path) as held:
        if not held:
            return False  # a re-embedding is running right now: its tables are not leftovers
        store.write(drop_partial)
    return True
