"""The :class:`MemoryStore` facade: one small service per table or concern, composed here, and the
store's public methods, each the method of one service (see :mod:`assistant.memory.store`)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Concatenate, Generic, ParamSpec, TypeVar, overload

from assistant.memory.store.forgetting.forgetter import Forgetter
from assistant.memory.store.archive.context import ContextArchive
from assistant.memory.store.core import StoreCore
from assistant.memory.store.delete import Deletes
from assistant.memory.store.logs import AuditLog, InjectionLog
from assistant.memory.store.memories import Memories
from assistant.memory.store.portable import Portable
from assistant.memory.store.reads import MemoryReads
from assistant.memory.store.sessions import Sessions
from assistant.memory.store.sqlite.db import RETRY_DEADLINE
from assistant.memory.store.sqlite.integrity import Damage
from assistant.memory.store.sqlite.keys import KeyInfo
from assistant.memory.store.sqlite import notify
from assistant.memory.store.vectors import Embed, Vectors
from assistant.memory.store.versions import MemoryChanges


P = ParamSpec("P")
R = TypeVar("R")


class _Via(Generic[P, R]):
    """``store.name(...)`` is ``store.<service>.<method>(...)`` (same signature and docstring)."""

    def __init__(self, service: str, fn: Callable[Concatenate[Any, P], R]) -> None:
        self.service, self.method, self.__doc__ = service, fn.__name__, fn.__doc__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> "_Via[P, R]": ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Callable[P, R]: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(getattr(obj, self.service), self.method)


class MemoryStore:
    """``MemoryStore(path, *, key=None, key_file=None, encrypted=True, embed=None, dim=384,
    busy_timeout=30.0, clock=None, retry_deadline=RETRY_DEADLINE)``

    - ``path``: the database file (the caller's profile says where).
    - ``key``: 32 bytes / 64 hex chars; default: the key in the OS keyring, or in ``key_file``
      (0600, a JSON map of database path -> key) where there is no keyring; created on first
      use. A wrong or missing key for an existing file raises :class:`WrongKeyError` /
      :class:`KeyMissingError`.
    - ``encrypted=False``: plain SQLite (tests of raw file bytes only).
    - ``embed``: ``list[str] -> list[list[float]]`` of ``dim`` floats; optional.
    - ``dim``: the vector size of a new database; with ``embed`` an existing one must have it
      (``check_dim=False``: the caller checks, e.g. the services compare embedder identities).
    - ``clock``: returns the current aware datetime (tests).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        key: str | bytes | None = None,
        key_file: Path | None = None,
        encrypted: bool = True,
        embed: Embed | None = None,
        dim: int = 384,
        busy_timeout: float = 30.0,
        clock: Callable[[], datetime] | None = None,
        retry_deadline: float = RETRY_DEADLINE,
        check_dim: bool | None = None,
    ) -> None:
        self.core = core = StoreCore(path, key=key, key_file=key_file, encrypted=encrypted, dim=dim,
                                     check_dim=embed is not None if check_dim is None else check_dim, busy_timeout=busy_timeout, clock=clock,
                                     retry_deadline=retry_deadline)  # fmt: skip
        self.vectors = Vectors(core, embed)
        self.audit_log = AuditLog(core)
        self.injection_log = InjectionLog(core)
        self.reads = MemoryReads(core)
        self.memories = Memories(core, self.reads, self.vectors, self.audit_log)
        self.changes = MemoryChanges(core, self.reads, self.vectors, self.audit_log)
        self.sessions = Sessions(core, self.audit_log)
        self.forgetter = Forgetter(core, self.audit_log, self.vectors)
        self.context_archive = ContextArchive(core, self.forgetter)
        self.deletes = Deletes(core, self.forgetter)
        self.portable = Portable(core, self.reads, self.memories, self.sessions, self.vectors, self.context_archive)

    # ------------------------------------------------------------------ the file (store.core)
    conn = property(lambda self: self.core.conn, doc="This thread's connection (autocommit; use write() for changes).")
    db = property(lambda self: self.core.db, doc="This thread's sqlite_utils.Database over the same connection.")
    schema_version = property(lambda self: self.core.schema_version)

    @property
    def path(self) -> Path:
        return self.core.path

    @property
    def dim(self) -> int:
        return self.core.dim

    @property
    def key_info(self) -> KeyInfo:
        return self.core.key_info

    @property
    def encrypted(self) -> bool:
        return self.core.encrypted

    @property
    def store_id(self) -> str:
        return self.core.store_id

    @property
    def damage(self) -> Damage | None:
        return self.core.damage

    now = _Via("core", StoreCore.now)
    write = _Via("core", StoreCore.write)
    read = _Via("core", StoreCore.read)
    verify = _Via("core", StoreCore.verify)
    verify_once = _Via("core", StoreCore.verify_once)
    verify_soon = _Via("core", StoreCore.verify_soon)
    damage_error = _Via("core", StoreCore.damage_error)
    integrity_check = _Via("core", StoreCore.integrity_check)
    checkpoint = _Via("core", StoreCore.checkpoint)
    forget_generation = _Via("core", StoreCore.forget_generation)
    info = _Via("core", StoreCore.info)
    close = _Via("core", StoreCore.close)

    def watch_changes(self) -> notify.ExternalWatch:
        """A watch over changes other processes commit, starting now (poll it with
        :meth:`poll_changes` on a store thread, apply a poll with ``watch.take``)."""
        return notify.ExternalWatch(self.path, notify.marks(self.conn))

    def poll_changes(self, watch: notify.ExternalWatch):
        """What is new for ``watch`` since its marks (this thread's connection)."""
        return watch.poll(self.conn)

    def __enter__(self) -> "MemoryStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ memories
    get = _Via("reads", MemoryReads.get)
    get_many = _Via("reads", MemoryReads.get_many)
    kept_from = _Via("reads", MemoryReads.kept_from)
    list_memories = _Via("reads", MemoryReads.list)
    count_memories = _Via("reads", MemoryReads.count)
    history = _Via("reads", MemoryReads.history)
    add = _Via("memories", Memories.add)
    add_ex = _Via("memories", Memories.add_ex)
    add_many = _Via("memories", Memories.add_many)
    add_source = _Via("memories", Memories.add_source)
    set_entities = _Via("memories", Memories.set_entities)
    link = _Via("memories", Memories.link)
    unlink = _Via("memories", Memories.unlink)
    find_duplicate = _Via("memories", Memories.find_duplicate)
    update = _Via("changes", MemoryChanges.update)
    edit = _Via("changes", MemoryChanges.edit)
    invalidate = _Via("changes", MemoryChanges.invalidate)
    set_ttl = _Via("changes", MemoryChanges.set_ttl)
    clear_ttl = _Via("changes", MemoryChanges.clear_ttl)
    pin = _Via("changes", MemoryChanges.pin)
    unpin = _Via("changes", MemoryChanges.unpin)
    archive = _Via("changes", MemoryChanges.archive)
    restore = _Via("changes", MemoryChanges.restore)
    restore_version = _Via("changes", MemoryChanges.restore_version)
    record_use = _Via("changes", MemoryChanges.record_use)

    # ------------------------------------------------------------------ vectors, logs
    set_vector = _Via("vectors", Vectors.set)
    missing_vectors = _Via("vectors", Vectors.missing)
    backfill_vectors = _Via("vectors", Vectors.backfill)
    rebuild_vectors = _Via("vectors", Vectors.rebuild)
    audit = _Via("audit_log", AuditLog.entries)
    record_injection = _Via("injection_log", InjectionLog.record)
    injections = _Via("injection_log", InjectionLog.entries)

    # ------------------------------------------------------------------ sessions and messages
    create_session = _Via("sessions", Sessions.create_session)
    get_session = _Via("sessions", Sessions.get_session)
    find_session = _Via("sessions", Sessions.find_session)
    list_sessions = _Via("sessions", Sessions.list_sessions)
    count_sessions = _Via("sessions", Sessions.count_sessions)
    rename_session = _Via("sessions", Sessions.rename_session)
    set_session_incognito = _Via("sessions", Sessions.set_session_incognito)
    add_message = _Via("sessions", Sessions.add_message)
    add_messages = _Via("sessions", Sessions.add_messages)
    get_message = _Via("sessions", Sessions.get_message)
    search_messages = _Via("sessions", Sessions.search_messages)
    messages = _Via("sessions", Sessions.messages)

    # ------------------------------------------------------------------ deletes, export/import
    delete_preview = _Via("deletes", Deletes.delete_preview)
    delete = _Via("deletes", Deletes.delete)
    forget_preview = _Via("deletes", Deletes.forget_preview)
    forget = _Via("deletes", Deletes.forget)
    delete_session_preview = _Via("deletes", Deletes.delete_session_preview)
    delete_session = _Via("deletes", Deletes.delete_session)
    purge_expired = _Via("deletes", Deletes.purge_expired)
    purge_versions = _Via("deletes", Deletes.purge_versions)
    purge_versions_preview = _Via("deletes", Deletes.purge_versions_preview)
    on_delete = _Via("forgetter", Forgetter.on_delete)
    export_json = _Via("portable", Portable.export_json)
    import_json = _Via("portable", Portable.import_json)

    # last, so that the names do not shadow the builtins in the annotations above
    list = _Via("reads", MemoryReads.list)
    count = _Via("reads", MemoryReads.count)
