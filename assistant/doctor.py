"""`keepsake doctor`: every check a person (or a bug report) needs, each pass/fail.

Storage checks: the database opens with its key and passes ``PRAGMA quick_check``; the disk
has at least :data:`MIN_FREE` free; the data and config folders and the database file can be
written. Each failure says what to do (the same one-line messages the commands give).
Every check reads the :class:`~assistant.profile.Profile` it is given."""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass
from typing import Callable

from assistant import __version__
from assistant.config import Paths
from assistant.engine import registry
from assistant.engine.server import api_key
from assistant.engine.errors import EngineError
from assistant.engine.names import display_name
from assistant.engine.server.model import OpenAIChatModel, model_name
from assistant.memory.store.sqlite import diagnose
from assistant.memory.store.sqlite.diagnose import folder_writable, free_bytes
from assistant.memory.errors import StoreError
from assistant.profile import Profile
from assistant.services import database_key_reader


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    data: dict | None = None

    def to_json(self) -> dict:
        d = {"name": self.name, "ok": self.ok, "detail": self.detail}
        if self.data:
            d.update(self.data)
        return d


def _keepsake() -> Check:
    return Check("keepsake", True, f"Keepsake {__version__}", {"version": __version__})


def _python() -> Check:
    ok = sys.version_info >= (3, 11)
    return Check("python", ok, f"Python {platform.python_version()} ({sys.executable})", {"version": platform.python_version()})


def _llama() -> Check:
    import llama_cpp  # deferred: llama.cpp

    return Check("llama.cpp", True, f"llama-cpp-python {llama_cpp.__version__}", {"version": llama_cpp.__version__})


def _sqlite() -> Check:
    from assistant.memory.store.sqlite import db  # deferred: the store (SQLCipher, numpy)

    v = db.versions()
    detail = f"SQLite {v['sqlite']}, SQLCipher {v.get('sqlcipher') or 'absent'}, sqlite-vec {v['sqlite_vec']}, FTS5 {'yes' if v['fts5'] else 'no'}"
    return Check("sqlite", bool(v["fts5"]) and bool(v["sqlite_vec"]), detail, v)


def _encryption(p: Paths) -> list[Check]:
    from assistant.memory.store.sqlite import db  # deferred: the store (SQLCipher, numpy)
    from assistant.memory.store.sqlite import keys

    encrypted = db.encryption_available()
    detail = "the memory database is encrypted (SQLCipher)" if encrypted else \
        "NOT encrypted: this system has no SQLCipher build (sqlean fallback)"
    key = keys.describe(p.database, p.key_file)
    usable, keyring_name = keys.keyring_status()
    key_ok, key_detail = True, key.description
    if encrypted and key.name == "none" and p.database.exists():
        key_ok, key_detail = False, f"the database {p.database} exists but its key was not found ({key.description}): restore the key"
    return [
        Check("encryption", encrypted, detail, {"encrypted": encrypted}),
        Check("key", key_ok, key_detail,
              {"keyring_backend": key.name, "key_location": key.description, "os_keyring": keys.friendly_backend(keyring_name) if usable else None}),
    ]


def _paths(p: Paths) -> Check:
    try:
        p.ensure()
        ok, detail = True, f"data in {p.data}"
    except OSError as exc:
        ok, detail = False, f"cannot create folders: {exc}"
    return Check("paths", ok, detail, {"paths": p.as_dict()})


def _models_folder(p: Paths) -> Check:
    folders = [str(p.models)] + ([str(p.repo_models)] if p.repo_models.is_dir() else [])
    return Check("models folder", True, f"put .gguf files in {' or '.join(folders)}",
                 {"models_folder": str(p.models), "repo_models_folder": str(p.repo_models)})


def _network(profile: Profile) -> Check:
    """Which host Keepsake contacts, and when (nothing is contacted by doctor for this line)."""
    from assistant.engine.catalog.download import endpoint

    hub = endpoint()
    server = profile.settings.engine_url if profile.settings.uses_server else None
    detail = (f"no connection unless you ask: model downloads (`keepsake models download`, the app's Download) "
              f"contact {hub} (HF_ENDPOINT)" + (f"; the chat uses the model server at {server}" if server else ""))  # fmt: skip
    return Check("network", True, detail, {"download_endpoint": hub, "model_server": server})


MIN_FREE = 16 * 2**20  # bytes free under which doctor fails: the WAL, a checkpoint and a delete's rewrite need room


def _database(p: Paths) -> Check:
    """Open the database as the app does and run ``PRAGMA quick_check`` (a damaged file is
    remembered: nothing more is written to it). No file yet is fine: it is made on first use."""
    from assistant.memory.store.facade import MemoryStore  # deferred: the store (SQLCipher, numpy)

    path = p.database
    if not path.exists():
        return Check("database", True, f"no database yet at {path} (it is created on first use)", {"path": str(path)})
    try:
        store = MemoryStore(path, key_file=p.key_file, retry_deadline=10.0, busy_timeout=5.0)
    except StoreError as exc:
        return Check("database", False, str(exc), {"path": str(path), "kind": getattr(exc, "kind", "store")})
    except OSError as exc:
        known = diagnose.classify(exc, path)
        return Check("database", False, str(known or exc), {"path": str(path)})
    try:
        try:
            problem = store.verify() if store.damage is None else store.damage.detail
        except StoreError as exc:
            problem = str(exc)
        if store.damage is not None or problem is not None:
            return Check("database", False, str(diagnose.damaged(path, problem or "damaged")), {"path": str(path), "kind": "damaged"})
        locked = _write_lock_free(store)
        if locked is not None:
            return Check("database", False, str(locked), {"path": str(path), "kind": "locked"})
        info = store.info()
        runs_note, runs_data = _interrupted_runs(store)
        return Check("database", True, f"{path}: quick_check ok; {info.memories} memories, {info.sessions} sessions, "
                     f"schema v{info.schema_version}{runs_note}", {"path": str(path), "memories": info.memories, **runs_data})  # fmt: skip
    except StoreError as exc:
        return Check("database", False, str(exc), {"path": str(path), "kind": getattr(exc, "kind", "store")})
    finally:
        store.close()


def _search_index(profile: Profile) -> Check:
    """Which embedder made the search index, and whether it is the configured one (vectors of
    two models do not compare: the app refuses to mix them, see :mod:`assistant.reembed`)."""
    from assistant.engine import embedder_id
    from assistant.memory.store import vector_index
    from assistant.memory.store.facade import MemoryStore  # deferred: the store (SQLCipher, numpy)

    p = profile.paths
    if not p.database.exists():
        return Check("search index", True, "no database yet (the index is made with the configured embedder)")
    store = MemoryStore(p.database, key_file=p.key_file, retry_deadline=10.0, busy_timeout=5.0)
    try:
        index = store.read(vector_index.read_identity)
        partial = store.read(vector_index.has_partial)
    finally:
        store.close()
    ident = embedder_id.identify(registry.resolve_embedder(profile.settings.embed_model, p.models))
    data = {"made_by": index.name or None, "dim": index.dim, "fingerprint": index.fingerprint, "generation": index.generation,
            "configured": ident.name, "configured_fingerprint": ident.fingerprint, "partial_rebuild": partial}  # fmt: skip
    extra = "; a re-embedding is running or was stopped (the next open drops its partial index)" if partial else ""
    if index.fingerprint is None:
        ok = index.dim == ident.dim
        return Check("search index", ok, f"{index.dim} dimensions, embedder not recorded yet (recorded on the next open"
                     f"{'' if ok else f'; the configured {ident.describe()} does not fit: keepsake models use NAME --embedder'}){extra}", data)  # fmt: skip
    if index.fingerprint != ident.fingerprint or index.dim != ident.dim:
        return Check("search index", False, f"made by {index.describe()}, but the configured embedder is {ident.describe()}: "
                     f"re-embed with `keepsake models use {vector_index.cli_name(profile.settings.embed_model)} --embedder` "
                     f"or go back with `keepsake models use {vector_index.cli_name(index.setting)} --embedder`{extra}", data)  # fmt: skip
    return Check("search index", True, f"made by {index.describe()}, the configured embedder{extra}", data)


def _interrupted_runs(store) -> tuple[str, dict]:
    """Tidy-up runs a killed process left half-applied: still waiting (the next open rolls them
    back) and the last one rolled back, with when and what it restored."""
    from assistant.memory.store.tidying import runs  # deferred: the store (SQLCipher, numpy)

    stale = runs.stale_runs(store, store.now())
    last = next((r for r in runs.list_runs(store, limit=50, include_dry_runs=False) if r.interrupted), None)
    note, data = "", {}
    if stale:
        note += f"; {len(stale)} interrupted tidy-up run(s) not rolled back yet (the next start of Keepsake does it)"
        data["interrupted_runs"] = [r.run_id for r in stale]
    if last is not None:
        back = last.details.get("rolled_back") or {}
        note += (f"; last interrupted tidy-up run {last.run_id} was rolled back on {last.details.get('recovered_on', 'the next run')} "
                 f"({back.get('versions', 0)} versions restored, {back.get('facts_removed', 0)} facts removed)")  # fmt: skip
        data["rolled_back_run"] = {"run_id": last.run_id, "on": last.details.get("recovered_on"), **back}
    return note, data


def _write_lock_free(store) -> Exception | None:
    """Whether a writer gets the database's write lock within 2 s (the store's diagnostics)."""
    from assistant.memory.store.diagnostics import write_lock_free  # deferred: the store (SQLCipher, numpy)

    return write_lock_free(store)


def _space(p: Paths) -> Check:
    folder = p.data
    free = free_bytes(folder)
    if free is None:
        return Check("free space", False, f"cannot tell the free space on {folder}")
    ok = free >= MIN_FREE
    detail = f"{free / 2**20:.0f} MB free on the disk holding {folder}"
    if not ok:
        detail += f" (less than {MIN_FREE // 2**20} MB): free some space, or Keepsake cannot save new memories"
    return Check("free space", ok, detail, {"free_bytes": free})


def _write_access(p: Paths) -> Check:
    """Files can be created in the data and config folders, and the database opened for writing
    (tried for real: permission bits do not tell a read-only mount, and root ignores them)."""

    problems = [f"{folder} is read-only or not yours" for folder in (p.data, p.config) if folder.exists() and not folder_writable(folder)]
    for f in (p.database, p.key_file):
        if f.exists():
            try:
                os.close(os.open(f, os.O_RDWR))
            except OSError as exc:
                problems.append(f"{f} cannot be written ({exc.strerror})")
    if problems:
        return Check("write access", False, "; ".join(problems) + ": make it writable, or set KEEPSAKE_HOME to a writable folder")
    return Check("write access", True, f"can write to {p.data} and {p.config}")


def _models(profile: Profile) -> list[Check]:
    settings = profile.settings
    checks = []
    for role, resolve in (("chat model", lambda: registry.resolve_chat(settings.chat_model)),
                          ("embedding model", lambda: registry.resolve_embedder(settings.embed_model, profile.paths.models))):
        try:
            path = resolve()
            size = path.stat().st_size
            checks.append(Check(role, True, f"{display_name(path)} ({size / 1e6:.1f} MB) at {path}",
                                {"model": display_name(path), "path": str(path), "size_bytes": size}))
        except Exception as exc:  # noqa: BLE001 - doctor reports, never crashes
            checks.append(Check(role, False, str(exc)))
    return checks


def engine_checks(profile: Profile) -> list[Check]:
    """Which engine runs the chat (``profile.settings``); with a model server, check it (the
    only socket doctor opens, and only when a server is configured)."""
    settings = profile.settings
    if not settings.uses_server:
        idle = f"; a server is configured at {settings.engine_url} but not in use" if settings.engine_url else ""
        return [Check("chat engine", True, f"llama.cpp on this machine (model: {settings.chat_model}){idle}",
                      {"engine": "llama.cpp", "model": settings.chat_model})]  # fmt: skip
    url = settings.engine_url
    engine = Check("chat engine", True, f"OpenAI-compatible model server at {url} (model: {settings.engine_model or 'the first it lists'}); "
                   "memory, search and embeddings stay on this machine",
                   {"engine": "openai", "url": url, "model": settings.engine_model or None})  # fmt: skip
    p = profile.paths
    key_from = api_key.location(url, p)
    try:
        model = OpenAIChatModel(url, model=settings.engine_model or None, api_key=api_key.load(url, p, secret=database_key_reader(profile)),
                                read_timeout=min(settings.engine_timeout, 30.0), n_ctx=settings.context_size,
                                local_models=lambda: registry.local_chat_models(p))  # fmt: skip
        try:
            info = model.connect()
        finally:
            model.close()
    except (EngineError, ValueError) as exc:
        return [engine, Check("model server", False, str(exc), {"url": url, "reachable": getattr(exc, "kind", "") not in
                                                                  ("unreachable", "config"), "api_key": key_from,
                                                                  "error_kind": getattr(exc, "kind", "config")})]  # fmt: skip
    listed = ", ".join(model_name(m) for m in info.models[:5]) + (" …" if len(info.models) > 5 else "")
    ctx = f"; server context {info.n_ctx} tokens" if info.n_ctx else ""
    warn = info.n_ctx is not None and info.n_ctx < settings.context_size
    detail = (f"reachable in {info.latency_ms:.0f} ms; {len(info.models)} model(s): {listed}; using {model_name(info.model)}; "
              f"tokens counted with {info.tokens.detail}{ctx}; API key: {key_from}")  # fmt: skip
    if warn:
        detail += f" (smaller than Keepsake's context size {settings.context_size}: the window is cut to fit)"
    return [engine, Check("model server", True, detail, {**info.to_json(), "reachable": True, "api_key": key_from})]


def run_checks(profile: Profile) -> dict:
    """Run every check on ``profile``; a failing check is reported, never raised. Its settings
    decide which chat engine is checked."""
    p = profile.paths
    checks: list[Check] = []
    steps: list[tuple[str, Callable[[], Check | list[Check]]]] = [
        ("keepsake", _keepsake), ("python", _python), ("llama", _llama), ("sqlite", _sqlite),
        ("encryption", lambda: _encryption(p)), ("paths", lambda: _paths(p)), ("write_access", lambda: _write_access(p)),
        ("space", lambda: _space(p)), ("database", lambda: _database(p)), ("models_folder", lambda: _models_folder(p)),
        ("network", lambda: _network(profile)),
        ("models", lambda: _models(profile)), ("search_index", lambda: _search_index(profile)),
        ("engine_checks", lambda: engine_checks(profile))]  # fmt: skip
    for name, step in steps:
        try:
            result = step()
        except Exception as exc:  # noqa: BLE001
            result = Check(name, False, f"{type(exc).__name__}: {exc}")
        checks.extend(result if isinstance(result, list) else [result])
    return {"ok": all(c.ok for c in checks), "checks": [c.to_json() for c in checks]}
