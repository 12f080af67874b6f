"""The memory store: one encrypted SQLite file (SQLCipher via ``sqlcipher3``), opened with
:class:`MemoryStore`, a facade over one small service per table or concern.

    from assistant.memory.store.facade import MemoryStore
    store = MemoryStore(profile_db_path, embed=embedder.embed)   # key from the OS keyring
    mid = store.add("Lives in Lisbon", kind=Kind.PROFILE, slot="home_city",
                    source=Source(session_id=s.id, message_id=msg.id, observed_at=msg.observed_at))
    store.list(as_of=datetime(2024, 6, 1, tzinfo=UTC))       # what was true then
    store.list(known_at=datetime(2024, 6, 1, tzinfo=UTC))    # what we believed then
    store.delete(mid)                                        # really gone (see assistant.memory.store.forgetting)

Services (each given the :class:`~.core.StoreCore` and the collaborators it uses, nothing else):
``store.core`` (:mod:`.core`: open, key, migrations, transactions, clock, checkpoints),
``store.reads`` (:mod:`.reads`) / ``store.memories`` (:mod:`.memories`, ADD) / ``store.changes``
(:mod:`.versions`, new versions) over ``memories``; ``store.sessions`` (:mod:`.sessions`, sessions and
messages); ``store.vectors`` (:mod:`.vectors`); ``store.audit_log`` / ``store.injection_log``
(:mod:`.logs`); ``store.context_archive`` (:mod:`.archive.context`); ``store.forgetter`` and
``store.deletes`` (:mod:`.delete`, every delete); ``store.portable`` (:mod:`.portable`, JSON
export/import). The facade's methods (``store.add``, ``store.list``, ``store.create_session``, ...)
are the services' methods, listed once below.

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
- ``schema_migrations(version, name, applied_at)``, ``store_meta(key, value)``
- the context archive (``context_history``, ``context_offloads``, ``context_state``,
  ``note_versions``, ``exports``): :mod:`.archive.context`

Search indexes (for retrieval):

- ``memory_fts``: FTS5, external content over ``memories.text`` (``rowid = memories.id``),
  tokenizer ``unicode61 remove_diacritics 2``, kept in sync by triggers. BM25:
  ``SELECT rowid, bm25(memory_fts) FROM memory_fts WHERE memory_fts MATCH ?`` (sanitize the
  query: user text must be quoted). Every memory row is indexed, whatever its status: join
  ``memories`` to filter.
- ``message_fts``: FTS5, external content over ``messages.content`` (``rowid = messages.id``).
- ``memory_vec``: sqlite-vec ``vec0(embedding float[dim] distance_metric=cosine)``,
  ``rowid = memories.id``: ``SELECT rowid, distance FROM memory_vec WHERE embedding MATCH ?
  AND k = ?`` (k <= 4096). Memories written while no embedder was loaded have no row
  (:meth:`MemoryStore.missing_vectors`, :meth:`MemoryStore.backfill_vectors`).
"""

from __future__ import annotations

from assistant.memory.errors import KeyMissingError, NotFound, StoreError, VersionConflict, WrongKeyError

# The facade lives in :mod:`.facade` and is imported from there
# (``from assistant.memory.store.facade import MemoryStore``), never re-exported here: the facade
# composes the Forgetter, whose holders import this package's modules (``store.sqlite.db``,
# ``store.rows``), so importing it from this ``__init__`` would make a cycle. Nothing is loaded by
# a string (PyInstaller cannot see such imports; see packaging/modules.py).
__all__ = ["StoreError", "KeyMissingError", "WrongKeyError", "NotFound", "VersionConflict"]
