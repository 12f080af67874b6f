"""Packaging recipe (packaging/): fast checks only, the bundle itself is built by `make package`.

Covers the desktop entry, the icon renderer, install.sh / uninstall.sh against a fake bundle in a
temporary HOME, the spec's syntax, the Makefile target, and the registry hook that makes a frozen
bundle use its shipped MiniLM GGUF instead of converting one.
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.engine import registry

REPO = Path(__file__).resolve().parent.parent
PKG = REPO / "packaging"
BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash not available")


def _desktop_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return dict(parser["Desktop Entry"])


def test_desktop_entry_is_complete():
    entry = _desktop_entry(PKG / "keepsake.desktop")
    assert entry["Type"] == "Application" and entry["Name"] == "Keepsake"
    assert entry["Icon"] == "keepsake"  # hicolor name installed by install.sh
    assert entry["Exec"].split()[-1] == "app" and entry["Terminal"] == "false"
    assert entry["StartupWMClass"] == "Keepsake"  # Qt's WM_CLASS class for applicationName "Keepsake"
    assert entry["Categories"].endswith(";")
    validate = shutil.which("desktop-file-validate")
    if validate:
        out = subprocess.run([validate, str(PKG / "keepsake.desktop")], capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr


def test_icons_render_at_every_size(qapp, tmp_path):
    sys.path.insert(0, str(PKG))
    try:
        import make_icons
    finally:
        sys.path.remove(str(PKG))
    from PySide6.QtGui import QImage

    written = make_icons.render(tmp_path)
    assert [p.name for p in written] == ["keepsake-48.png", "keepsake-128.png", "keepsake-256.png"]
    for path, size in zip(written, (48, 128, 256)):
        image = QImage(str(path))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel()
        centre = image.pixelColor(size // 2, size // 2)
        corner = image.pixelColor(0, 0)
        assert centre.alpha() == 255 and corner.alpha() == 0  # drawn, with transparent rounded corners


def test_spec_and_scripts_parse():
    compile((PKG / "keepsake.spec").read_text(encoding="utf-8"), "keepsake.spec", "exec")
    for script in ("smoke.py", "smoke_common.py", "smoke_install.py", "prepare_models.py", "make_icons.py",
                   "keepsake_entry.py", "modules.py"):
        compile((PKG / script).read_text(encoding="utf-8"), script, "exec")
    if BASH:
        for script in ("build.sh", "install.sh", "uninstall.sh", "llama_wheel.sh", "make_deb.sh"):
            out = subprocess.run([BASH, "-n", str(PKG / script)], capture_output=True, text=True)
            assert out.returncode == 0, f"{script}: {out.stderr}"


def test_makefile_has_package_target():
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "\npackage:" in text and "packaging/build.sh" in text


def test_ci_builds_the_bundle_after_the_tests():
    lines = [ln.strip() for ln in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert "make test" in lines and "make package" in lines
    assert lines.index("make test") < lines.index("make package")


# -- every module in the bundle (packaging/modules.py) ---------------------------------------------
def _modules_py():
    sys.path.insert(0, str(PKG))
    try:
        import modules
    finally:
        sys.path.remove(str(PKG))
    return modules


def _planted_repo(root: Path) -> Path:
    """A tiny checkout: assistant/ with a module loaded only by a string, ui/, and a data folder."""
    (root / "assistant" / "memory").mkdir(parents=True)
    (root / "assistant" / "__init__.py").write_text("")
    (root / "assistant" / "memory" / "__init__.py").write_text(
        "import importlib\nFacade = importlib.import_module(__name__ + '.facade').Facade\n")
    (root / "assistant" / "memory" / "facade.py").write_text("class Facade: pass\n")
    (root / "assistant" / "memory" / "broken.py").write_text("import a_runtime_dependency_nobody_declared\n")
    (root / "assistant" / "data").mkdir()  # no __init__.py: not a package
    (root / "assistant" / "data" / "tool.py").write_text("")
    (root / "ui").mkdir()
    (root / "ui" / "__init__.py").write_text("")
    return root


def test_the_bundle_module_list_comes_from_the_files_not_from_imports(tmp_path):
    modules = _modules_py()
    repo = _planted_repo(tmp_path)
    names = modules.source_modules(repo)
    # the string-imported facade and a module that cannot import are listed all the same
    assert names == ["assistant", "assistant.memory", "assistant.memory.broken", "assistant.memory.facade", "ui"]
    real = modules.source_modules(REPO)
    assert "assistant.memory.store.facade" in real and "ui.app" in real and len(real) > 150


def test_build_fails_naming_a_module_missing_from_the_archive(tmp_path):
    repo = _planted_repo(tmp_path)
    toc = tmp_path / "PYZ-00.toc"
    # PyInstaller's TOC: a literal list of (name, path, typecode); the facade is not in it.
    toc.write_text(repr([("assistant", "/x/assistant/__init__.py", "PYMODULE"),
                         ("assistant.memory", "/x/assistant/memory/__init__.py", "PYMODULE"),
                         ("assistant.memory.broken", "/x/b.py", "PYMODULE"), ("ui", "/x/ui/__init__.py", "PYMODULE")]))
    out = subprocess.run([sys.executable, str(PKG / "modules.py"), "--repo", str(repo), "verify", str(toc)],
                         capture_output=True, text=True)
    assert out.returncode == 1
    assert "module assistant.memory.facade is missing from the bundle" in out.stderr
    assert "1 of 5 modules missing" in out.stderr


def test_build_fails_naming_a_module_that_cannot_import_with_its_cause(tmp_path):
    repo = _planted_repo(tmp_path)
    out = subprocess.run([sys.executable, str(PKG / "modules.py"), "--repo", str(repo), "check-imports"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 1
    assert "module assistant.memory.broken cannot be imported" in out.stderr
    assert "a_runtime_dependency_nobody_declared" in out.stderr  # the cause, not just the name
    assert "assistant.memory.facade" not in out.stderr  # the string import itself works


def test_every_module_of_the_checkout_imports():
    """What build.sh checks in the build venv, here in the test venv: no module of assistant/ or
    ui/ fails to import (the bundle would silently lack it)."""
    modules = _modules_py()
    assert modules.import_failures(modules.source_modules(REPO)) == {}


def test_no_module_is_loaded_by_a_string_in_the_store():
    text = (REPO / "assistant" / "memory" / "store" / "__init__.py").read_text(encoding="utf-8")
    assert "import_module" not in text and "__getattr__" not in text


# -- install.sh / uninstall.sh against a fake bundle -----------------------------------------------
def _fake_bundle(root: Path) -> Path:
    bundle = root / "dist" / "keepsake"
    (bundle / "_internal").mkdir(parents=True)
    exe = bundle / "keepsake"
    exe.write_text("#!/bin/sh\necho fake keepsake \"$@\"\n")
    exe.chmod(0o755)
    icons = bundle / "share" / "icons" / "hicolor"
    for size in ("48x48", "128x128", "256x256"):
        (icons / size / "apps").mkdir(parents=True)
        (icons / size / "apps" / "keepsake.png").write_bytes(b"png")
    (icons / "scalable" / "apps").mkdir(parents=True)
    shutil.copy(PKG / "icons" / "keepsake.svg", icons / "scalable" / "apps" / "keepsake.svg")
    (bundle / "share" / "applications").mkdir(parents=True)
    shutil.copy(PKG / "keepsake.desktop", bundle / "share" / "applications" / "keepsake.desktop")
    for script in ("install.sh", "uninstall.sh"):
        shutil.copy(PKG / script, bundle / script)
    return bundle


def _run(script: Path, home: Path, *args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}
    env.update(env_extra or {})
    return subprocess.run([BASH, str(script), *args], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)


def _unquote_exec(value: str) -> list[str]:
    """Undo the desktop-entry escaping of an Exec value (string escapes, then argument quoting)."""
    value = value.replace("\\\\", "\\")
    args, cur, i, quoted = [], "", 0, False
    while i < len(value):
        ch = value[i]
        if quoted and ch == "\\":
            cur += value[i + 1]
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch == " " and not quoted:
            args.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    return args + [cur]


@pytest.mark.skipif(shutil.which("dpkg-deb") is None or BASH is None, reason="dpkg-deb not available")
def test_deb_from_a_fake_bundle_installs_under_opt_with_a_menu_entry(tmp_path):
    bundle = _fake_bundle(tmp_path)
    out = subprocess.run([BASH, str(PKG / "make_deb.sh"), str(bundle), "9.8.7"], capture_output=True, text=True,
                         env={**os.environ, "TMPDIR": str(tmp_path)}, timeout=120)
    assert out.returncode == 0, out.stderr
    deb = bundle.parent / "keepsake_9.8.7_amd64.deb"
    fields = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True).stdout
    assert "Package: keepsake" in fields and "Version: 9.8.7" in fields and "Architecture: amd64" in fields
    assert "libxcb-cursor0" in fields and "libxcb-icccm4" in fields and "libc6 (>=" in fields
    root = tmp_path / "root"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    assert os.readlink(root / "usr" / "bin" / "keepsake") == "/opt/keepsake/keepsake"
    run = subprocess.run([str(root / "opt" / "keepsake" / "keepsake"), "--version"], capture_output=True, text=True)
    assert run.stdout.strip() == "fake keepsake --version"
    assert not (root / "opt" / "keepsake" / "install.sh").exists()  # dpkg owns the install
    entry = _desktop_entry(root / "usr" / "share" / "applications" / "keepsake.desktop")
    assert entry["Exec"] == "keepsake app" and entry["Icon"] == "keepsake"
    assert (root / "usr" / "share" / "icons" / "hicolor" / "256x256" / "apps" / "keepsake.png").is_file()
    # removal scripts only refresh caches: nothing in them touches a home folder
    control = tmp_path / "control"
    subprocess.run(["dpkg-deb", "-e", str(deb), str(control)], check=True)
    assert "HOME" not in (control / "postrm").read_text() and "rm " not in (control / "postrm").read_text()


@needs_bash
def test_install_then_uninstall_keeping_data(tmp_path):
    bundle = _fake_bundle(tmp_path)
    home = tmp_path / "user"
    home.mkdir()
    out = _run(bundle / "install.sh", home)
    assert out.returncode == 0, out.stderr
    share = home / ".local" / "share"
    prefix = share / "keepsake-app"
    assert (prefix / "keepsake").is_file() and (prefix / ".keepsake-install").is_file()
    entry = _desktop_entry(share / "applications" / "keepsake.desktop")
    assert _unquote_exec(entry["Exec"]) == [str(prefix / "keepsake"), "app"]
    assert entry["TryExec"] == str(prefix / "keepsake")
    for size in ("48x48", "128x128", "256x256"):
        assert (share / "icons" / "hicolor" / size / "apps" / "keepsake.png").is_file()
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / "keepsake.svg").is_file()
    link = home / ".local" / "bin" / "keepsake"
    assert os.readlink(link) == str(prefix / "keepsake")

    # Reinstalling over an existing install replaces it.
    assert _run(bundle / "install.sh", home).returncode == 0

    data = share / "Keepsake"
    data.mkdir()
    (data / "keepsake.db").write_bytes(b"memories")
    out = _run(prefix / "uninstall.sh", home)  # no terminal, no flag: data is kept
    assert out.returncode == 0, out.stderr
    assert not prefix.exists() and not link.is_symlink()
    assert not (share / "applications" / "keepsake.desktop").exists()
    assert not (share / "icons" / "hicolor" / "48x48" / "apps" / "keepsake.png").exists()
    assert (data / "keepsake.db").read_bytes() == b"memories"
    assert "Kept" in out.stdout


@needs_bash
def test_uninstall_remove_data_follows_xdg_dirs(tmp_path):
    bundle = _fake_bundle(tmp_path)
    home = tmp_path / "user"
    home.mkdir()
    xdg = {"XDG_DATA_HOME": str(tmp_path / "xd"), "XDG_CONFIG_HOME": str(tmp_path / "xc"),
           "XDG_CACHE_HOME": str(tmp_path / "xk"), "XDG_STATE_HOME": str(tmp_path / "xs")}
    assert _run(bundle / "install.sh", home, env_extra=xdg).returncode == 0
    prefix = tmp_path / "xd" / "keepsake-app"
    assert prefix.is_dir() and (tmp_path / "xd" / "applications" / "keepsake.desktop").is_file()
    dirs = [tmp_path / "xd" / "Keepsake", tmp_path / "xc" / "Keepsake", tmp_path / "xk" / "Keepsake",
            tmp_path / "xs" / "Keepsake" / "log"]
    for d in dirs:
        d.mkdir(parents=True)
        (d / "f").write_text("x")
    unrelated = tmp_path / "xd" / "Other"
    unrelated.mkdir()
    out = _run(prefix / "uninstall.sh", home, "--remove-data", env_extra=xdg)
    assert out.returncode == 0, out.stderr
    assert not prefix.exists()
    assert not any(d.exists() for d in dirs) and not (tmp_path / "xs" / "Keepsake").exists()
    assert unrelated.is_dir()


@needs_bash
def test_install_with_special_characters_in_the_prefix(tmp_path):
    bundle = _fake_bundle(tmp_path)
    home = tmp_path / "user"
    home.mkdir()
    prefix = tmp_path / 'odd dir $HOME "q" 100%'
    out = _run(bundle / "install.sh", home, "--prefix", str(prefix), "--no-cli-link")
    assert out.returncode == 0, out.stderr
    entry = _desktop_entry(home / ".local" / "share" / "applications" / "keepsake.desktop")
    exec_args = _unquote_exec(entry["Exec"].replace("%%", "%"))
    assert exec_args == [str(prefix / "keepsake"), "app"]
    assert not (home / ".local" / "bin" / "keepsake").exists()
    out = _run(prefix / "uninstall.sh", home, "--keep-data")
    assert out.returncode == 0 and not prefix.exists(), out.stdout + out.stderr


@needs_bash
def test_install_and_uninstall_refuse_foreign_folders(tmp_path):
    bundle = _fake_bundle(tmp_path)
    home = tmp_path / "user"
    home.mkdir()
    foreign = tmp_path / "precious"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("x")
    out = _run(bundle / "install.sh", home, "--prefix", str(foreign))
    assert out.returncode != 0 and (foreign / "thesis.tex").exists()
    out = _run(bundle / "uninstall.sh", home, "--prefix", str(foreign), "--remove-data")
    assert out.returncode != 0 and (foreign / "thesis.tex").exists()
    # A ~/.local/bin/keepsake that is not ours is left alone.
    bin_dir = home / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "keepsake").write_text("#!/bin/sh\n")
    assert _run(bundle / "install.sh", home).returncode == 0
    assert not (bin_dir / "keepsake").is_symlink()


# -- registry hook for the frozen bundle -------------------------------------------------------------
def test_frozen_bundle_uses_its_shipped_embedder_without_converting(tmp_path, monkeypatch):
    from assistant.config import paths
    from assistant.engine import convert_minilm

    assert registry.bundled_models_dir() is None  # not frozen here
    # conftest may have linked the session's converted embedder into this home: start without it
    (paths().models / registry.DEFAULT_EMBEDDER_FILE).unlink(missing_ok=True)
    shipped = tmp_path / "models" / registry.DEFAULT_EMBEDDER_FILE
    shipped.parent.mkdir()
    shipped.write_bytes(b"GGUF")  # only its presence matters for the lookup
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)

    def no_conversion(*a, **k):
        raise AssertionError("a frozen bundle must not convert MiniLM")

    monkeypatch.setattr(convert_minilm, "convert", no_conversion)
    assert registry.bundled_models_dir() == tmp_path / "models"
    assert registry.default_embedder_path(paths().models) == shipped
    assert registry.resolve_embedder("default", paths().models) == shipped
    assert not (paths().models / registry.DEFAULT_EMBEDDER_FILE).exists()
    defaults = [e for e in registry.discover(paths()) if e.source == "default"]
    assert shipped in [e.path for e in defaults]


def test_child_process_benchmarks_refuse_clearly_in_a_frozen_bundle(monkeypatch, capsys):
    """In the bundle sys.executable is keepsake itself: `bench ui` must not start it as Python."""
    import json

    from assistant.cli import main

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    for name in ("ui", "retrieval", "consolidate"):
        assert main(["bench", name, "--json"]) == 2
        error = json.loads(capsys.readouterr().out)["error"]
        assert f"keepsake bench {name}" in error and "source checkout" in error
