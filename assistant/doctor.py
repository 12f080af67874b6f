"""`keepsake doctor`: every check a person (or a bug report) needs, each pass/fail."""

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
    from assistant.memory import db

    v = db.versions()
    detail = f"SQLite {v['sqlite']}, SQLCipher {v.get('sqlcipher') or 'absent'}, sqlite-vec {v['sqlite_vec']}, FTS5 {'yes' if v['fts5'] else 'no'}"
    return Check("sqlite", bool(v["fts5"]) and bool(v["sqlite_vec"]), detail, v)


def _encryption() -> list[Check]:
    from assistant.memory import db, keys

    encrypted = db.encryption_available()
    detail = "the memory database is encrypted (SQLCipher)" if encrypted else \
        "NOT encrypted: this system has no SQLCipher build (sqlean fallback)"
    key = keys.backend_info(paths())
    usable, keyring_name = keys.keyring_status()
    return [
        Check("encryption", encrypted, detail, {"encrypted": encrypted}),
        Check("key", True, key.description,
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


def run_checks() -> dict:
    """Run every check; a failing check is reported, never raised."""
    checks: list[Check] = []
    steps: list[Callable[[], Check | list[Check]]] = [_keepsake, _python, _llama, _sqlite, _encryption,
                                                               _paths, _models_folder, _models]
    for step in steps:
        try:
            result = step()
        except Exception as exc:  # noqa: BLE001
            result = Check(step.__name__.strip("_"), False, f"{type(exc).__name__}: {exc}")
        checks.extend(result if isinstance(result, list) else [result])
    return {"ok": all(c.ok for c in checks), "checks": [c.to_json() for c in checks]}
