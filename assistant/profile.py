"""The person's profile: where Keepsake keeps their things, how it is configured, where the
database key comes from. Created once at the edge (the ``keepsake`` command, the app, a test's
fixture) and passed down; nothing below the edge looks up paths or settings on its own.

    profile = Profile.load()                 # KEEPSAKE_HOME, else the platform's folders
    services = Services(profile)             # assistant.services: models, stores, queues
    ...
    services.close()
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from assistant.config import Paths, Settings, load_settings, paths, save_settings


@dataclass(frozen=True)
class KeySource:
    """Where the database key comes from: ``key`` (64 hex characters) when the caller supplies
    one (tests, benchmarks), else the OS keyring, or the 0600 ``key_file`` where there is no
    keyring (:mod:`assistant.memory.keys`)."""

    key_file: Path
    key: str | None = None


@dataclass(frozen=True)
class Profile:
    paths: Paths
    settings: Settings
    key: KeySource

    @classmethod
    def load(cls, home: str | Path | None = None, *, key: str | None = None) -> "Profile":
        """The profile at ``home`` (every path under that one root), else the one
        ``KEEPSAKE_HOME`` or the platform's conventions name; its saved settings."""
        p = Paths.under(Path(home)) if home is not None else paths()
        return cls(p, load_settings(p), KeySource(p.key_file, key))

    @property
    def database(self) -> Path:
        return self.paths.database

    def with_settings(self, settings: Settings) -> "Profile":
        """This profile with other settings for this run only (nothing is saved)."""
        return replace(self, settings=settings)

    def save_settings(self, settings: Settings) -> "Profile":
        """Save ``settings`` (atomically, 0600) and return the profile that has them."""
        save_settings(settings, self.paths)
        return replace(self, settings=settings.validated())
