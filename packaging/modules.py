"""Every module of ``assistant/`` and ``ui/`` in the bundle, found without importing anything.

    python packaging/modules.py list                  # the dotted names, from the source tree
    python packaging/modules.py check-imports         # import each one (in this Python); name failures
    python packaging/modules.py verify PYZ-00.toc     # each one is in PyInstaller's archive

Why: PyInstaller's ``collect_submodules`` imports a package to walk it and silently skips any
submodule whose import fails, and its static analysis cannot see a module loaded by a string
(``importlib.import_module(f"...{name}")``). Both lost 23 modules of the bundle once, noticed
only when the installed app could not open its memory. So the spec takes its hidden imports from
the files on disk (:func:`source_modules`), ``build.sh`` imports each of them in the build venv
first (a module that cannot import there -- a runtime dependency missing from pyproject.toml, a
syntax error -- fails the build with its cause), and after PyInstaller it checks the archive's
table of contents holds every one of them (:func:`missing_from_toc`).

Standard library only: it runs in the build venv and in tests.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import re
import sys
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("assistant", "ui")


def source_modules(repo: Path = REPO, packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """Dotted names of every ``.py`` file under the packages (``pkg/__init__.py`` -> ``pkg``).

    A folder without ``__init__.py`` is not a package and is skipped with its contents, as Python
    would (a stray ``__pycache__`` or data folder)."""
    names: list[str] = []
    for top in packages:
        root = repo / top
        if not (root / "__init__.py").is_file():
            raise SystemExit(f"modules.py: {root} is not a package")
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(repo)
            parts = list(rel.with_suffix("").parts)
            if any(not (repo.joinpath(*parts[:i]) / "__init__.py").is_file() for i in range(1, len(parts))):
                continue
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


def import_failures(names: list[str]) -> dict[str, str]:
    """Import each module; return ``{name: "ExcType: message (file:line)"}`` for those that fail.

    A ``__main__`` module runs its program when imported: its dependencies are imported instead
    (its parent package), and its own text is compiled."""
    failures: dict[str, str] = {}
    for name in names:
        try:
            if name.endswith(".__main__"):
                spec = importlib.util.find_spec(name)
                compile(Path(spec.origin).read_text(encoding="utf-8"), spec.origin, "exec")
                importlib.import_module(name.rpartition(".")[0])
                continue
            importlib.import_module(name)
        except BaseException as exc:  # noqa: BLE001 - SystemExit at import time is a failure too
            tb = traceback.extract_tb(exc.__traceback__)
            where = f" ({tb[-1].filename}:{tb[-1].lineno})" if tb else ""
            failures[name] = f"{type(exc).__name__}: {exc}{where}"
    return failures


def toc_modules(toc_text: str) -> set[str]:
    """Module names in a PyInstaller ``PYZ-00.toc`` (a Python literal of (name, path, typecode)
    tuples; parsed with ``ast``, falling back to a regex for other layouts)."""
    try:
        data = ast.literal_eval(toc_text)
    except (ValueError, SyntaxError):
        return set(re.findall(r"\(\s*'([\w.]+)'\s*,", toc_text))
    found: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, (list, tuple)):
            if len(node) == 3 and all(isinstance(x, str) for x in node) and node[2] in ("PYMODULE", "PYSOURCE"):
                found.add(node[0])
            else:
                for item in node:
                    walk(item)

    walk(data)
    return found


def missing_from_toc(toc_text: str, names: list[str]) -> list[str]:
    have = toc_modules(toc_text)
    return [n for n in names if n not in have]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=REPO)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    sub.add_parser("check-imports")
    v = sub.add_parser("verify")
    v.add_argument("toc", type=Path)
    args = ap.parse_args(argv)
    names = source_modules(args.repo)
    if args.cmd == "list":
        print("\n".join(names))
        return 0
    if args.cmd == "check-imports":
        sys.path.insert(0, str(args.repo))
        failures = import_failures(names)
        for name, why in failures.items():
            print(f"packaging: module {name} cannot be imported in the build venv: {why}", file=sys.stderr)
        if failures:
            print(f"packaging: {len(failures)} of {len(names)} modules of {', '.join(PACKAGES)} fail to import; "
                  "the bundle would lack them (a runtime dependency missing from pyproject.toml?)", file=sys.stderr)
            return 1
        print(f"packaging: all {len(names)} modules of {', '.join(PACKAGES)} import in the build venv")
        return 0
    missing = missing_from_toc(args.toc.read_text(), names)
    for name in missing:
        print(f"packaging: module {name} is missing from the bundle ({args.toc.name})", file=sys.stderr)
    if missing:
        print(f"packaging: {len(missing)} of {len(names)} modules missing from the bundle", file=sys.stderr)
        return 1
    print(f"packaging: all {len(names)} modules of {', '.join(PACKAGES)} are in the bundle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
