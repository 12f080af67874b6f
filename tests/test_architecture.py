"""Layering contract (the import-linter rule, as a test): nothing under assistant/ imports Qt,
and widgets never import SQL drivers or llama_cpp directly."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


#: The CLI is the program's entry point: bare `keepsake` launches the desktop app, lazily.
UI_LAUNCHER = "assistant/cli/core.py"


def test_core_never_imports_qt():
    offenders = {}
    for p in (ROOT / "assistant").rglob("*.py"):
        rel = str(p.relative_to(ROOT))
        names = _imports(p)
        bad = sorted(n for n in names if n.startswith(("PySide6", "PyQt", "shiboken")))
        if "ui" in names and rel != UI_LAUNCHER:
            bad.append("ui")
        if bad:
            offenders[rel] = bad
    assert offenders == {}


def test_ui_never_touches_sql_or_llama():
    forbidden = {"sqlite3", "sqlcipher3", "sqlite_utils", "sqlite_vec", "llama_cpp", "sqlean"}
    offenders = {
        str(p.relative_to(ROOT)): sorted(_imports(p) & forbidden) for p in (ROOT / "ui").rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_a_qt_import_would_be_caught(tmp_path):
    # The checker itself must fail on a real violation.
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtCore import QObject\nimport llama_cpp\n")
    assert {"PySide6", "llama_cpp"} <= _imports(bad)


#: SQL outside assistant/memory/store/ (issue 27: SQL belongs in the store's services): none. The
#: deletes and what "forget X" reads (store/forgetting), tidy-up (store/tidying), the search's reads
#: (store/search_reads, store/vecscan), capture's (store/capture_reads) and the doctor's lock probe
#: (store/diagnostics) moved in; benchmarks build their synthetic stores directly and are left out.
#: A new file with SQL outside the store fails here.
SQL_OUTSIDE_STORE: set[str] = set()


def _runs_sql(path: Path) -> bool:
    """A call of ``.execute``/``.executemany``/``.executescript`` on anything (a connection, a cursor)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr in ("execute", "executemany", "executescript") for n in ast.walk(tree))  # fmt: skip


def test_sql_stays_in_the_store():
    found = {str(p.relative_to(ROOT)) for top in ("assistant", "ui") for p in (ROOT / top).rglob("*.py")
             if "assistant/memory/store" not in p.as_posix() and "assistant/bench" not in p.as_posix() and _runs_sql(p)}  # fmt: skip
    assert found == SQL_OUTSIDE_STORE
