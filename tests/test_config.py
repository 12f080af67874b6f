from __future__ import annotations

import json

from assistant.config import Paths, Settings, load_settings, paths, save_settings
from assistant.profile import Profile


def test_keepsake_home_puts_every_path_under_one_root(keepsake_home):
    p = paths()
    for name in ("data", "config", "cache", "logs", "models"):
        assert getattr(p, name).is_relative_to(keepsake_home), name
    assert p.database.is_relative_to(keepsake_home)
    assert Profile.load().paths == p == Paths.under(keepsake_home)


def test_a_profile_at_another_home_reads_and_writes_only_there(keepsake_home, tmp_path):
    other = Profile.load(tmp_path / "other")
    assert other.database.is_relative_to(tmp_path / "other") and not other.database.is_relative_to(keepsake_home)
    saved = other.save_settings(Settings(context_size=8192))
    assert saved.settings.context_size == 8192 and Profile.load(tmp_path / "other").settings.context_size == 8192
    assert Profile.load().settings == Settings()  # the default profile was not touched
    assert not paths().settings_file.exists()


def test_settings_round_trip(keepsake_home):
    s = Settings(context_size=8192, memory_enabled=False, idle_minutes=5, nightly_hour=2)
    save_settings(s, paths())
    assert load_settings(paths()) == s


def test_broken_or_out_of_range_settings_fall_back(keepsake_home):
    p = paths().ensure()
    p.settings_file.write_text("{not json")
    assert load_settings(p) == Settings()
    p.settings_file.write_text(json.dumps({"nightly_hour": 99, "context_size": 10, "unknown": 1}))
    s = load_settings(p)
    assert s.nightly_hour == 23 and s.context_size == 512
