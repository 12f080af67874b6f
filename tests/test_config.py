from __future__ import annotations

import json

from assistant.config import Settings, load_settings, paths, save_settings


def test_keepsake_home_puts_every_path_under_one_root(keepsake_home):
    p = paths()
    for name in ("data", "config", "cache", "logs", "models"):
        assert getattr(p, name).is_relative_to(keepsake_home), name
    assert p.database.is_relative_to(keepsake_home)


def test_settings_round_trip(keepsake_home):
    s = Settings(context_size=8192, memory_enabled=False, idle_minutes=5, nightly_hour=2)
    save_settings(s)
    assert load_settings() == s


def test_broken_or_out_of_range_settings_fall_back(keepsake_home):
    p = paths().ensure()
    p.settings_file.write_text("{not json")
    assert load_settings() == Settings()
    p.settings_file.write_text(json.dumps({"nightly_hour": 99, "context_size": 10, "unknown": 1}))
    s = load_settings()
    assert s.nightly_hour == 23 and s.context_size == 512
