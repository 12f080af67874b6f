"""Start-up without a library Qt's platform plugin needs: Keepsake must say what to install and
offer the terminal chat instead of letting Qt abort (exit 134).

The missing library is simulated without touching the system: a copy of PySide6's xcb plugin
(and of libQt6XcbQpa, which the plugin loads) whose DT_NEEDED entry ``libxcb-cursor.so.0`` is
renamed to a library that exists nowhere. The real dynamic loader then fails on it exactly as on
a machine without libxcb-cursor0, and ``QT_QPA_PLATFORM_PLUGIN_PATH`` makes Qt load that copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ui import platform_check as pc

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("ldd") is None,
                                reason="the check reads ELF plugins with ldd (Linux)")  # fmt: skip

REAL = b"libxcb-cursor.so.0"
GONE = b"libxcb-cursoQ.so.0"  # same length, so the ELF string table stays valid


@pytest.fixture(scope="module")
def broken_plugin_dir(tmp_path_factory) -> Path:
    """``<tmp>/plugins/platforms/libqxcb.so`` + ``<tmp>/lib`` (the plugin's RUNPATH is
    ``$ORIGIN/../../lib``), with every ``libxcb-cursor.so.0`` need renamed to ``GONE``."""
    import PySide6

    qt = Path(PySide6.__file__).parent / "Qt"
    root = tmp_path_factory.mktemp("qt-broken")
    lib = root / "lib"
    lib.mkdir()
    for f in (qt / "lib").iterdir():
        (lib / f.name).symlink_to(f)
    platforms = root / "plugins" / "platforms"
    platforms.mkdir(parents=True)
    for src, dst in ((qt / "plugins" / "platforms" / "libqxcb.so", platforms / "libqxcb.so"),
                     (qt / "lib" / "libQt6XcbQpa.so.6", lib / "libQt6XcbQpa.so.6")):  # fmt: skip
        data = src.read_bytes()
        assert REAL in data, f"{src.name} no longer needs {REAL.decode()}: update this test"
        dst.unlink(missing_ok=True)
        dst.write_bytes(data.replace(REAL, GONE))
    return platforms


def _env(plugin_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")}
    env.update(QT_QPA_PLATFORM_PLUGIN_PATH=str(plugin_dir), DISPLAY=":97", **extra)
    return env


def test_the_simulated_missing_library_really_makes_qt_abort(broken_plugin_dir):
    # Without Keepsake's check, Qt itself aborts on this plugin (SIGABRT: exit 134 from a shell).
    code = "from PySide6.QtWidgets import QApplication; QApplication([])"
    proc = subprocess.run([sys.executable, "-c", code], env=_env(broken_plugin_dir), capture_output=True, text=True, timeout=120)
    assert proc.returncode in (-6, 134), proc.stderr
    assert "xcb" in proc.stderr


def test_check_finds_the_missing_library_with_the_real_loader(broken_plugin_dir):
    problem = pc.find_problem(_env(broken_plugin_dir))
    assert problem is not None
    assert problem.platform == "xcb"
    assert problem.plugin == broken_plugin_dir / "libqxcb.so"
    assert GONE.decode() in problem.missing
    assert "apt-get install" in problem.message() and "libxcb-cursoq0" in problem.packages


def test_keepsake_explains_and_offers_the_terminal_chat_instead_of_aborting(broken_plugin_dir):
    proc = subprocess.run([sys.executable, "-m", "assistant.cli"], env=_env(broken_plugin_dir), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # a clear refusal, not 134
    assert GONE.decode() in proc.stderr
    assert "apt-get install" in proc.stderr
    assert "keepsake chat" in proc.stderr


@pytest.mark.parametrize("soname, package", [
    ("libxcb-cursor.so.0", "libxcb-cursor0"),      # plain rule: name + major version
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),  # name ends in a digit: hyphen before the version
    ("libEGL.so.1", "libegl1"),                       # lowercase
    ("libdbus-1.so.3", "libdbus-1-3"),
    ("libglib-2.0.so.0", "libglib2.0-0"),             # an exception from the table
])  # fmt: skip
def test_debian_package_names(soname, package):
    assert pc.debian_package(soname) == package


def test_platform_candidates_follow_qt_rules():
    assert pc.candidate_platforms({"DISPLAY": ":0"}) == ["xcb"]
    assert pc.candidate_platforms({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}) == ["wayland", "xcb"]
    assert pc.candidate_platforms({"QT_QPA_PLATFORM": "offscreen"}) == ["offscreen"]
    assert pc.candidate_platforms({"QT_QPA_PLATFORM": "wayland;xcb"}) == ["wayland", "xcb"]


@pytest.mark.parametrize("command", [[], ["app"]])  # `keepsake app` crashed with a TypeError (trial finding)
def test_no_display_is_a_clear_refusal_too(command):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run([sys.executable, "-m", "assistant.cli", *command], env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "no display" in proc.stderr and "keepsake chat" in proc.stderr
