"""`keepsake doctor`: every check a person (or a bug report) needs, each pass/fail.

Storage checks: the database opens with its key and passes ``PRAGMA quick_check``; the disk
has at least :data:`MIN_FREE` free; the data and config folders and the database file can be
written. Each failure says what to do (the same one-line messages the commands give)."""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass
from typing import Callable

from assistant.config import load_settings, paths


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
    from assistant import __version__

    return Check("keepsake", True, f"Keepsake {__version__}", {"version": __version__})


def _python() -> Check:
    ok = sys.version_info >= (3, 11)
    return Check("python", ok, f"Python {platform.python_version()} ({sys.executable})", {"version": platform.python_version()})


def _llama() -> Check:
    import llama_cpp

    return Check("llama.cpp", True, f"llama-cpp-python {llama_cpp.__version__}", {"version": llama_cpp.__version__})


def _sqlite() -> Check:
    from assistant.memory.store.sqlite import db

    v = db.versions()
    detail = f"SQLite {v['sqlite']}, SQLCipher {v.get('sqlcipher') or 'absent'}, sqlite-vec {v['sqlite_vec']}, FTS5 {'yes' if v['fts5'] else 'no'}"
    return Check("sqlite", bool(v["fts5"]) and bool(v["sqlite_vec"]), detail, v)


def _encryption() -> list[Check]:
    from assistant.memory.store.sqlite import db
    from assistant.memory.store.sqlite import keys

    p = paths()
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


def _paths() -> Check:
    p = paths()
    try:
        p.ensure()
        ok, detail = True, f"data in {p.data}"
    except OSError as exc:
        ok, detail = False, f"cannot create folders: {exc}"
    return Check("paths", ok, detail, {"paths": p.as_dict()})


def _models_folder() -> Check:
    p = paths()
    folders = [str(p.models)] + ([str(p.repo_models)] if p.repo_models.is_dir() else [])
    return Check("models folder", True, f"put .gguf files in {' or '.join(folders)}",
                 {"models_folder": str(p.models), "repo_models_folder": str(p.repo_models)})


MIN_FREE = 16 * 2**20  # bytes free under which doctor fails: the WAL, a checkpoint and a delete's rewrite need room


def _database() -> Check:
    """Open the database as the app does and run ``PRAGMA quick_check`` (a damaged file is
    remembered: nothing more is written to it). No file yet is fine: it is made on first use."""
    from assistant.memory.store.sqlite import diagnose
    from assistant.memory.errors import StoreError
    from assistant.memory.store import MemoryStore

    p = paths()
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
        return Check("database", True, f"{path}: quick_check ok; {info.memories} memories, {info.sessions} sessions, "
                     f"schema v{info.schema_version}", {"path": str(path), "memories": info.memories})  # fmt: skip
    except StoreError as exc:
        return Check("database", False, str(exc), {"path": str(path), "kind": getattr(exc, "kind", "store")})
    finally:
        store.close()


def _write_lock_free(store) -> Exception | None:
    """Whether a writer gets the database's write lock within 2 s (taken and released at once,
    nothing written); the locked error otherwise."""
    from assistant.memory.store.sqlite import diagnose
    from assistant.memory.store.sqlite.db import DatabaseError, is_busy

    conn = store.conn
    conn.execute("PRAGMA busy_timeout = 2000")
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    except DatabaseError as exc:
        return diagnose.locked(store.path) if is_busy(exc) else diagnose.classify(exc, store.path) or exc
    return None


def _space() -> Check:
    from assistant.memory.store.sqlite.diagnose import free_bytes

    folder = paths().data
    free = free_bytes(folder)
    if free is None:
        return Check("free space", False, f"cannot tell the free space on {folder}")
    ok = free >= MIN_FREE
    detail = f"{free / 2**20:.0f} MB free on the disk holding {folder}"
    if not ok:
        detail += f" (less than {MIN_FREE // 2**20} MB): free some space, or Keepsake cannot save new memories"
    return Check("free space", ok, detail, {"free_bytes": free})


def _write_access() -> Check:
    """Files can be created in the data and config folders, and the database opened for writing
    (tried for real: permission bits do not tell a read-only mount, and root ignores them)."""
    import os

    from assistant.memory.store.sqlite.diagnose import folder_writable

    p = paths()
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


def _models() -> list[Check]:
    from assistant.engine import registry
    from assistant.engine.names import display_name

    settings = load_settings()
    checks = []
    for role, resolve, choice in (("chat model", registry.resolve_chat, settings.chat_model),
                                  ("embedding model", registry.resolve_embedder, settings.embed_model)):
        try:
            path = resolve(choice)
            size = path.stat().st_size
            checks.append(Check(role, True, f"{display_name(path)} ({size / 1e6:.1f} MB) at {path}",
                                {"model": display_name(path), "path": str(path), "size_bytes": size}))
        except Exception as exc:  # noqa: BLE001 - doctor reports, never crashes
            checks.append(Check(role, False, str(exc)))
    return checks


def engine_checks(settings) -> list[Check]:
    """Which engine runs the chat; with a model server, check it (the only socket doctor opens,
    and only when a server is configured)."""
    if not settings.uses_server:
        idle = f"; a server is configured at {settings.engine_url} but not in use" if settings.engine_url else ""
        return [Check("chat engine", True, f"llama.cpp on this machine (model: {settings.chat_model}){idle}",
                      {"engine": "llama.cpp", "model": settings.chat_model})]  # fmt: skip
    from assistant.engine import api_key
    from assistant.engine.errors import EngineError
    from assistant.engine.remote import OpenAIChatModel, model_name

    url = settings.engine_url
    engine = Check("chat engine", True, f"OpenAI-compatible model server at {url} (model: {settings.engine_model or 'the first it lists'}); "
                   "memory, search and embeddings stay on this machine",
                   {"engine": "openai", "url": url, "model": settings.engine_model or None})  # fmt: skip
    key_from = api_key.location(url)
    try:
        model = OpenAIChatModel(url, model=settings.engine_model or None, api_key=api_key.load(url),
                                read_timeout=min(settings.engine_timeout, 30.0), n_ctx=settings.context_size)  # fmt: skip
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


def run_checks(settings=None) -> dict:
    """Run every check; a failing check is reported, never raised. ``settings`` (default: the
    saved ones) decides which chat engine is checked."""
    settings = settings or load_settings()
    checks: list[Check] = []
    steps: list[Callable[[], Check | list[Check]]] = [_keepsake, _python, _llama, _sqlite, _encryption, _paths,
                                                      _write_access, _space, _database, _models_folder, _models,
                                                      lambda: engine_checks(settings)]  # fmt: skip
    for step in steps:
        try:
            result = step()
        except Exception as exc:  # noqa: BLE001
            result = Check(step.__name__.strip("_<>"), False, f"{type(exc).__name__}: {exc}")
        checks.extend(result if isinstance(result, list) else [result])
    return {"ok": all(c.ok for c in checks), "checks": [c.to_json() for c in checks]}
