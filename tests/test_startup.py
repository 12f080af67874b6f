"""Each command imports and loads only what it uses (issue 31). Checked by what a fresh process
has imported after the command, never by how long it took (the figures are `keepsake bench
startup`'s)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from assistant.bench import startup
from assistant.cli import bench

HEAVY = ("numpy", "llama_cpp", "sqlcipher3", "sqlite_vec", "PySide6", "dateparser", "gguf", "keyring")

_PROBE = """
import json, os, sys
loaded = []
if os.environ.get("PROBE_LLAMA"):  # record every model file llama.cpp is asked to load
    import llama_cpp
    real = llama_cpp.Llama.__init__
    def init(self, *a, **kw):
        loaded.append(os.path.basename(kw.get("model_path") or a[0]))
        real(self, *a, **kw)
    llama_cpp.Llama.__init__ = init
from assistant.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules), "loaded": loaded}))
"""


def _after(*argv: str, models: bool = False) -> tuple[int, set[str], list[str]]:
    """Run ``keepsake ARGV`` in a fresh process; its exit code, every module it imported and
    (``models``) the model files it loaded."""
    env = dict(os.environ, **({"PROBE_LLAMA": "1"} if models else {}))
    out = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=300, env=env)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["code"], set(data["modules"]), data["loaded"]


def _top(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_version_and_help_import_nothing_heavy():
    code, modules, _ = _after("--version")
    assert code == 0 and not _top(modules) & set(HEAVY)
    assert "assistant.cli.core" not in modules  # not even the command modules
    code, modules, _ = _after("--help")
    assert code == 0 and not _top(modules) & set(HEAVY)
    assert not any(m.startswith("assistant.bench.") for m in modules)  # no benchmark is imported for --help


def test_memory_list_loads_no_model(converted_embedder_path):
    code, modules, _ = _after("memory", "list", "--json")
    assert code == 0 and "llama_cpp" not in modules


def test_with_the_key_in_the_key_file_a_listing_imports_no_keyring_numpy_or_sqlite_utils(converted_embedder_path, monkeypatch):
    # No OS keyring (as on this machine): the first command finds that out and keeps the key
    # in the key file; the next one reads it there without importing keyring, and a listing
    # needs neither numpy (sqlite-vec's package imports it) nor sqlite_utils.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    assert _after("memory", "list", "--json")[0] == 0
    code, modules, _ = _after("memory", "list", "--json")
    assert code == 0 and not _top(modules) & {"keyring", "numpy", "sqlite_utils", "sqlite_vec", "llama_cpp"}


def test_memory_search_loads_only_the_embedder(converted_embedder_path):
    code, modules, loaded = _after("memory", "search", "kettle broke", models=True)
    assert code == 0
    assert loaded == [converted_embedder_path.name]  # once, and no chat model
    assert "assistant.engine.convert_minilm" not in modules and "gguf" not in modules  # converted once, not re-read


def test_bench_command_line_imports_only_the_named_benchmark():
    assert bench.named_in(["bench", "startup", "--json"]) == "startup"
    assert bench.named_in(["bench", "--json", "ui"]) == "ui"
    assert bench.named_in(["memory", "list"]) == ""
    assert bench.named_in(["bench"]) == ""


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        # chat 1.2 s / floor 0.9 s = 1.33 <= 1.5; search 0.9 / 0.4 = 2.25 > 2; version 0.05 <= 0.3;
        # app 1.1 s after the window <= 1.5; worst 10k/empty 1.25 > 1.2
        ({"chat_once": {"ratio": 1.33, "ratio_10k_vs_empty": 1.05}, "memory_search": {"ratio": 2.25, "ratio_10k_vs_empty": 1.25},
          "version": {"seconds": 0.05, "ratio_10k_vs_empty": 1.0}, "app": {"after_window_seconds": 1.1, "ratio_10k_vs_empty": 1.1}},
         {"chat_once_ratio": True, "memory_search_ratio": False, "version_seconds": True, "app_after_window_seconds": True,
          "ratio_10k_vs_empty": False}),
        ({}, {"chat_once_ratio": None, "memory_search_ratio": None, "version_seconds": None, "app_after_window_seconds": None,
              "ratio_10k_vs_empty": None}),
    ],
)  # fmt: skip
def test_bench_targets_are_judged_from_the_figures(row, expected):
    assert startup._met(row) == expected


def test_chat_once_loads_each_model_once(converted_embedder_path):
    # Both files load on threads while the memory opens; the steps wait for them, none reloads.
    from assistant.engine import registry

    code, _, loaded = _after("chat", "--once", "What is 2+2?", "--max-tokens", "4", models=True)
    assert code == 0
    assert sorted(loaded) == sorted([converted_embedder_path.name, registry.default_chat_path().name])
