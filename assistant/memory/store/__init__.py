"""The memory store: one encrypted SQLite file (SQLCipher via ``sqlcipher3``), opened with
:class:`MemoryStore`.

    store = MemoryStore(paths().database, embed=embedder.embed)   # key from the OS keyring
    mid = store.add("Lives in Lisbon", kind=Kind.PROFILE, slot="home_city",
                    source=Source(session_id=s.id, message_id=msg.id, observed_at=msg.observed_at))
    store.list(as_of=datetime(2024, 6, 1, tzinfo=UTC))       # what was true then
    store.list(known_at=datetime(2024, 6, 1, tzinfo=UTC))    # what we believed then
    store.delete(mid)                                        # really gone (see delete.py)

Threads: every thread gets its own connection (``store.conn`` / ``store.db`` are per thread);
``store.write(fn)`` runs ``fn(conn)`` in a ``BEGIN IMMEDIATE`` transaction retried on busy.

Tables (schema in :mod:`assistant.memory.store.sqlite.migrations`):

- ``sessions(id, title, created_at, updated_at, incognito, external_id)``
- ``messages(id AUTOINCREMENT = sequence, session_id, role, content, created_at, observed_at,
  redacted_at, external_id)`` -- order by ``id``, never by timestamp
- ``memories(id AUTOINCREMENT, text, kind, scope, valid_at, invalid_at, created_at, expired_at,
  trust, confidence, content_hash, status, version, expires_at, pinned, slot, use_count,
  last_used_at, updated_at, update_type, actor, reason)`` -- the current version of each record
- ``memory_versions(memory_id, version, ..., recorded_at, superseded_at, update_type, actor)``
  -- every prior version, with the system-time span it was current
- ``memory_sources(memory_id, session_id, message_id, speaker, extractor, extractor_version,
  observed_at, added_at)`` -- provenance, many to many
- ``entities(id, name, normalized UNIQUE)``, ``memory_entities(memory_id, entity_id)``
- ``memory_links(src_id, dst_id, type)`` -- ``evolve_to`` (src merged into dst),
  ``derived_from``, ``supersedes``, ``related``
- ``audit_log(id, at, actor, action, memory_id, session_id, message_id, update_type,
  from_version, to_version, details JSON, run_id)`` -- every change
- ``injection_log(id, turn_id, at, session_id, message_id, memory_id, rank, score, signals JSON,
  source_message_ids JSON)``
- ``file_refs(path, memory_id, message_id, session_id)`` -- app files holding a record's text
- ``schema_migrations(version, name, applied_at)``, ``store_meta(key, value)``

Search indexes (for retrieval):

- ``memory_fts``: FTS5, external content over ``memories.text`` (``rowid = memories.id``),
  tokenizer ``unicode61 remove_diacritics 2``, kept in sync by triggers. BM25:
  ``SELECT rowid, bm25(memory_fts) FROM memory_fts WHERE memory_fts MATCH ?`` (sanitize the
  query: user text must be quoted). Every memory row is indexed, whatever its status: join
  ``memories`` to filter.
- ``message_fts``: FTS5, external content over ``messages.content`` (``rowid = messages.id``).
- ``memory_vec``: sqlite-vec ``vec0(embedding float[dim] distance_metric=cosine)``,
  ``rowid = memories.id``: ``SELECT rowid, distance FROM memory_vec WHERE embedding MATCH ?
  AND k = ?`` (k <= 4096; pack the query with ``struct.pack(f"{dim}f", *vec)`` or
  ``sqlite_vec.serialize_float32``). Memories written while no embedder was loaded have no row
  (:meth:`MemoryStore.missing_vectors`, :meth:`MemoryStore.backfill_vectors`).
"""

from __future__ import annotations

from assistant.memory.store.delete import DeleteMixin, DeletePlan
from assistant.memory.errors import KeyMissingError, NotFound, StoreError, VersionConflict, WrongKeyError
from assistant.memory.store.memories import UNSET, MemoriesMixin
from assistant.memory.store.portable import ImportReport, PortableMixin
from assistant.memory.store.sessions import SessionsMixin

__all__ = [
    "MemoryStore",
    "DeletePlan",
    "ImportReport",
    "StoreError",
    "KeyMissingError",
    "WrongKeyError",
    "NotFound",
    "VersionConflict",
    "UNSET",
]


class MemoryStore(MemoriesMixin, SessionsMixin, DeleteMixin, PortableMixin):
    """``MemoryStore(path=None, *, key=None, encrypted=True, embed=None, dim=384,
    busy_timeout=30.0, clock=None)``

    - ``path``: database file (default ``paths().database``).
    - ``key``: 32 bytes / 64 hex chars; default: the key in the OS keyring (or the 0600 key
      file where there is no keyring), created on first use. A wrong or missing key for an
      existing file raises :class:`WrongKeyError` / :class:`KeyMissingError`.
    - ``encrypted=False``: plain SQLite (tests of raw file bytes only).
    - ``embed``: ``list[str] -> list[list[float]]`` of ``dim`` floats; optional.
    - ``clock``: returns the current aware datetime (tests).
    - ``context_archive``: the context archive in the same encrypted file (:mod:`.archive`);
      ``forgetter``: every delete (:mod:`assistant.memory.forget`).
    """

    # ``list``/``count`` are defined last so the names do not shadow builtins in annotations.
    list = MemoriesMixin.list_memories
    count = MemoriesMixin.count_memories
