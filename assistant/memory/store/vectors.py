"""The ``memory_vec`` table (sqlite-vec ``vec0``, cosine): one embedding per memory, written with
the memory when an embedder is loaded, backfilled later otherwise. ``store.vectors``."""

from __future__ import annotations

import json

import struct
from typing import Callable, Sequence

import logging

from assistant.memory.errors import StoreError
from assistant.memory.language.reading import english_embed
from assistant.memory.store import vector_index
from assistant.memory.store.core import Repository, StoreCore
from assistant.memory.store.rows import IN_IDS, ids_json
from assistant.memory.store.sqlite.db import Connection

Embed = Callable[[list[str]], list[list[float]]]
log = logging.getLogger(__name__)


class Vectors(Repository):
    """``embed``: ``list[str] -> list[list[float]]`` of ``core.dim`` floats, or None (no embedder).

    ``generation``: the index generation this store was opened on (:mod:`.vector_index`). When
    another process switched the embedder since, :meth:`put` stores no vector (it would come from
    the old model): the memory is written and found by its words until it is embedded again."""

    def __init__(self, core: StoreCore, embed: Embed | None) -> None:
        super().__init__(core)
        self.embed = embed  # read in English (a property: see below)
        self.generation = core.read(vector_index.generation)

    @property
    def embed(self) -> Embed | None:
        """The embedder of memory texts, each read in English (:mod:`assistant.memory.language.reading`)."""
        return self._embed

    @embed.setter
    def embed(self, embed: Embed | None) -> None:
        self._embed = english_embed(embed)

    def pack(self, vec: Sequence[float]) -> bytes:
        if len(vec) != self.core.dim:
            raise StoreError(f"embedding has {len(vec)} dimensions, the store expects {self.core.dim}")
        return struct.pack(f"{self.core.dim}f", *vec)

    def embed_one(self, text: str) -> bytes | None:
        if self.embed is None:
            return None
        vecs = self.embed([text])
        return self.pack(vecs[0])

    def put(self, c: Connection, memory_id: int, blob: bytes | None) -> None:
        c.execute("DELETE FROM memory_vec WHERE rowid = ?", (memory_id,))
        if blob is not None and vector_index.generation(c) != self.generation:
            log.warning("the embedder was switched by another process: memory %d is stored without a vector", memory_id)
            vector_index.mark_missing(c)  # the next open with the new embedder embeds it
            blob = None
        if blob is not None:
            c.execute("INSERT INTO memory_vec(rowid, embedding) VALUES (?, ?)", (memory_id, blob))

    def set(self, memory_id: int, vector: Sequence[float]) -> None:
        blob = self.pack(vector)
        self.write(lambda c: self.put(c, memory_id, blob))

    def missing(self, limit: int | None = None) -> list[tuple[int, str]]:
        """(id, text) of memories without a vector (written while no embedder was loaded)."""
        sql = "SELECT id, text FROM memories WHERE id NOT IN (SELECT rowid FROM memory_vec) ORDER BY id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [(r[0], r[1]) for r in self.conn.execute(sql)]

    def having(self, ids: Sequence[int]) -> set[int]:
        """Which of ``ids`` have a vector."""
        rows = self.conn.execute("SELECT rowid FROM memory_vec WHERE rowid IN (SELECT value FROM json_each(?))",
                                 (json.dumps([int(i) for i in ids]),))  # fmt: skip
        return {int(r[0]) for r in rows}

    def backfill(self, batch: int = 64, ids: Sequence[int] | None = None) -> int:
        """Embed memories that have no vector; returns how many were embedded."""
        if self.embed is None:
            return 0
        done = 0
        while True:
            if ids is not None:
                rows = [
                    (r[0], r[1])
                    for r in self.conn.execute(
                        f"SELECT id, text FROM memories WHERE id IN {IN_IDS} AND id NOT IN (SELECT rowid FROM memory_vec) LIMIT {int(batch)}",
                        (ids_json(ids),),
                    )
                ]
            else:
                rows = self.missing(limit=batch)
            if not rows:
                return done
            blobs = [self.pack(v) for v in self.embed([t for _, t in rows])]

            def put(c: Connection) -> None:
                for (mid, text), blob in zip(rows, blobs):
                    cur = c.execute("SELECT text FROM memories WHERE id = ?", (mid,)).fetchone()
                    if cur is not None and cur[0] == text:  # unchanged while we embedded
                        self.put(c, mid, blob)

            self.write(put)
            done += len(rows)

    def rebuild(self, embed: Embed, dim: int, batch: int = 64) -> int:
        """Recreate ``memory_vec`` with ``dim`` and re-embed everything, in place (tests, tools):
        the app and the CLI switch models with :mod:`.reindex`, which keeps the old index until
        the new one is complete."""
        if not 1 <= dim <= 8192:
            raise StoreError(f"invalid embedding dimension {dim}")

        def recreate(c: Connection) -> None:
            c.execute("DROP TABLE IF EXISTS memory_vec")
            c.execute(f"CREATE VIRTUAL TABLE memory_vec USING vec0(embedding float[{int(dim)}] distance_metric=cosine)")
            c.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES ('embedding_dim', ?)", (str(dim),))
            c.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES ('index_generation', ?)",
                      (str(vector_index.generation(c) + 1),))  # fmt: skip

        self.write(recreate)
        self.core.dim, self.embed = dim, embed
        self.generation = self.read(vector_index.generation)
        return self.backfill(batch=batch)
