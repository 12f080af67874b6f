"""Paths and settings.

Every path Keepsake touches comes from a :class:`Paths`, resolved once at the edge by
:func:`paths` (see :class:`assistant.profile.Profile`). By default they follow the platform's
conventions (platformdirs); when ``KEEPSAKE_HOME`` is set, every path lives under that one root
(tests and scripts use it, so nothing leaks into the real profile).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

import platformdirs

from assistant.fileio import write_private_atomic

APP_NAME = "Keepsake"
#: the model picker's choice for "the configured model server" (next to "default" and GGUF paths)
SERVER_CHOICE = "server"
REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Paths:
    data: Path
    config: Path
    cache: Path
    logs: Path
    models: Path  # user models dir: converted embedder, dropped-in GGUFs
    repo_models: Path  # the repository's models/ folder

    @property
    def database(self) -> Path:
        return self.data / "keepsake.db"

    @property
    def archive(self) -> Path:
        """Where an older Keepsake kept plaintext conversation archives (now migrated into the
        database on first start, see :mod:`assistant.memory.store.archive.migrate`)."""
        return self.data / "archive"

    @property
    def exports(self) -> Path:
        return self.data / "exports"

    @property
    def key_file(self) -> Path:
        return self.config / "db.key"

    @property
    def settings_file(self) -> Path:
        return self.config / "settings.json"

    def ensure(self) -> "Paths":
        """Create Keepsake's folders, private (0700)."""
        for p in (self.data, self.config, self.cache, self.logs, self.models):
            p.mkdir(mode=0o700, parents=True, exist_ok=True)
        return self

    @classmethod
    def under(cls, root: Path) -> "Paths":
        """Every path under one root (the ``KEEPSAKE_HOME`` layout)."""
        root = Path(root).expanduser().resolve()
        return cls(data=root / "data", config=root / "config", cache=root / "cache", logs=root / "logs",
                   models=root / "data" / "models", repo_models=REPO_ROOT / "models")  # fmt: skip

    def as_dict(self) -> dict[str, str]:
        d = {f.name: str(getattr(self, f.name)) for f in fields(self)}
        d.update(database=str(self.database), archive=str(self.archive), key_file=str(self.key_file))
        return d


def paths() -> Paths:
    """Resolve all paths; ``KEEPSAKE_HOME`` puts every one of them under one root."""
    home = os.environ.get("KEEPSAKE_HOME")
    if home:
        return Paths.under(Path(home))
    dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
    data = Path(dirs.user_data_dir)
    return Paths(
        data=data,
        config=Path(dirs.user_config_dir),
        cache=Path(dirs.user_cache_dir),
        logs=Path(dirs.user_log_dir),
        models=data / "models",
        repo_models=REPO_ROOT / "models",
    )


@dataclass
class Settings:
    """User settings, stored as JSON in the config dir.

    ``chat_model`` / ``embed_model`` are ``"default"`` or a path to a GGUF file.

    ``engine`` is ``"local"`` (llama.cpp runs ``chat_model`` here) or ``"openai"`` (an
    OpenAI-compatible server at ``engine_url`` runs ``engine_model``, or the first model it
    lists when empty). The server's API key is in the keyring, not here
    (:mod:`assistant.engine.server.api_key`). ``engine_timeout`` is how long a reply may go silent.
    """

    chat_model: str = "default"
    embed_model: str = "default"
    context_size: int = 4096
    memory_enabled: bool = True
    incognito: bool = False
    idle_minutes: int = 10
    nightly_hour: int = 3
    threads: int = field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)))
    engine: str = "local"
    engine_url: str = ""
    engine_model: str = ""
    engine_timeout: float = 120.0

    @property
    def uses_server(self) -> bool:
        """The chat runs on a model server (opt-in: only then does Keepsake open a socket)."""
        return self.engine == "openai" and bool(self.engine_url.strip())

    @property
    def choice(self) -> str:
        """What the model picker shows as chosen: :data:`SERVER_CHOICE` or ``chat_model``."""
        return SERVER_CHOICE if self.uses_server else self.chat_model

    def with_choice(self, choice: str) -> "Settings":
        """These settings after picking ``choice`` in the model picker (the server, or a local
        GGUF - which switches the engine back to llama.cpp and keeps the server configured)."""
        if choice == SERVER_CHOICE:
            return replace(self, engine="openai").validated()
        return replace(self, chat_model=choice or "default", engine="local")

    def with_server(self, url: str | None, model: str | None = None) -> "Settings":
        """These settings with the chat on the server at ``url`` (None/empty: unchanged). Without
        ``model``, the configured model name is kept for the configured server only (another
        server may not have it: its first listed model is used)."""
        if not url or not url.strip():
            return self
        url = url.strip()
        if model is None:
            model = self.engine_model if url == self.engine_url else ""
        return replace(self, engine="openai", engine_url=url, engine_model=model.strip()).validated()

    def validated(self) -> "Settings":
        """Clamp values into sane ranges (a hand-edited file must not crash the app)."""
        url = str(self.engine_url or "").strip()
        engine = self.engine if self.engine in ("local", "openai") and url else "local"
        return replace(
            self,
            engine=engine,
            engine_url=url,
            engine_model=str(self.engine_model or "").strip(),
            engine_timeout=max(0.1, min(3600.0, float(self.engine_timeout))),
            context_size=max(512, min(131072, int(self.context_size))),
            idle_minutes=max(1, min(24 * 60, int(self.idle_minutes))),
            nightly_hour=max(0, min(23, int(self.nightly_hour))),
            threads=max(1, min(64, int(self.threads))),
        )


def load_settings(p: Paths | None = None) -> Settings:
    """The settings saved in ``p``'s config folder (defaults when there are none or the file is
    broken: a broken settings file never stops the app). Outside ``assistant/memory`` (whose
    remaining calls its restructure removes) ``p`` always comes from the caller's profile."""
    p = p or paths()
    try:
        raw = json.loads(p.settings_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Settings()
    except (OSError, ValueError):
        # A broken settings file never stops the app: defaults, and the file is kept for the user.
        return Settings()
    known = {f.name for f in fields(Settings)}
    try:
        return Settings(**{k: v for k, v in raw.items() if k in known}).validated()
    except (TypeError, ValueError):
        return Settings()


def save_settings(settings: Settings, p: Paths) -> None:
    """Write the settings atomically (temp file, fsync, rename), 0600."""
    p.ensure()
    write_private_atomic(p.settings_file, json.dumps(asdict(settings.validated()), indent=2))
