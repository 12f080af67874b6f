"""The layer rules (pyproject's [tool.importlinter] contracts, run by `make test`) catch a
deliberate violation: each case copies the source tree, adds one forbidden import to the copy
and expects `lint-imports` to fail naming the broken contract; the untouched copy passes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).parent / "lint-imports"


def _lint(tree: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT), str(ROOT / "pyproject.toml"), "--no-cache"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("src")
    for pkg in ("assistant", "ui"):
        shutil.copytree(ROOT / pkg, root / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _with_line(tree: Path, module: str, line: str, tmp_path: Path) -> Path:
    copy = tmp_path / "src"
    shutil.copytree(tree, copy)
    path = copy / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text() + f"\n{line}\n")
    return copy


def test_the_real_tree_keeps_every_contract(tree):
    done = _lint(tree)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize("module, line, contract", [
    ("assistant.engine.chat", "import assistant.memory.errors", "Core layers"),
    ("assistant.memory.errors", "import assistant.context.state", "Core layers"),
    ("assistant.session", "import ui.format", "The core never imports the UI"),
    ("ui.chat.chat_view", "import llama_cpp", "Widgets never touch SQL or llama.cpp"),
])  # fmt: skip
def test_a_deliberate_violation_fails_lint_imports(tree, tmp_path, module, line, contract):
    done = _lint(_with_line(tree, module, line, tmp_path))
    assert done.returncode != 0
    assert f"{contract}" in done.stdout and "BROKEN" in done.stdout
