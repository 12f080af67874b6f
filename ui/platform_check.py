"""Can the desktop app open here? Checked *before* Qt starts, because Qt aborts the process
(exit 134, "Could not load the Qt platform plugin") when its platform plugin cannot load.

No Qt import here: the check reads the plugin files and asks the system's dynamic loader
(``ldd``) which of their libraries are missing, then names the Debian/Ubuntu packages to install.

    problem = find_problem(os.environ)
    if problem: print(problem.message())
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

#: Platform key (QT_QPA_PLATFORM) -> plugin file in ``Qt/plugins/platforms``.
PLUGIN_FILES = {
    "xcb": "libqxcb.so", "wayland": "libqwayland.so", "wayland-egl": "libqwayland.so",
    "offscreen": "libqoffscreen.so", "minimal": "libqminimal.so", "vnc": "libqvnc.so",
    "eglfs": "libqeglfs.so", "linuxfb": "libqlinuxfb.so",
}  # fmt: skip

#: Sonames whose Debian package does not follow the library-packaging rule below.
PACKAGE_EXCEPTIONS = {"libglib-2.0.so.0": "libglib2.0-0", "libgthread-2.0.so.0": "libglib2.0-0",
                      "libgobject-2.0.so.0": "libglib2.0-0", "libGLX.so.0": "libglx0", "libOpenGL.so.0": "libopengl0"}  # fmt: skip

_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)


def has_display(env: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether a window can be shown at all: Windows/macOS, an X11 or Wayland display, or a
    Qt platform that needs none (offscreen, minimal, vnc)."""
    if platform in ("win32", "darwin"):
        return True
    if env.get("QT_QPA_PLATFORM", "").split(":")[0] in ("offscreen", "minimal", "vnc"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def candidate_platforms(env: Mapping[str, str]) -> list[str]:
    """The platform plugins Qt will try, in order (``QT_QPA_PLATFORM`` may list several,
    separated by ``;``; a Wayland session tries Wayland first, then X11)."""
    explicit = env.get("QT_QPA_PLATFORM", "").strip()
    if explicit:
        return [p.split(":")[0].strip() for p in explicit.split(";") if p.strip()]
    if env.get("XDG_SESSION_TYPE") == "wayland" or (env.get("WAYLAND_DISPLAY") and not env.get("DISPLAY")):
        return ["wayland", "xcb"]
    return ["xcb"]


def plugin_dirs(env: Mapping[str, str]) -> list[Path]:
    """Where Qt looks for platform plugins: ``QT_QPA_PLATFORM_PLUGIN_PATH``, then each
    ``QT_PLUGIN_PATH`` entry's ``platforms``, then PySide6's own."""
    dirs: list[Path] = []
    if env.get("QT_QPA_PLATFORM_PLUGIN_PATH"):
        dirs.append(Path(env["QT_QPA_PLATFORM_PLUGIN_PATH"]))
    for entry in filter(None, env.get("QT_PLUGIN_PATH", "").split(os.pathsep)):
        dirs.append(Path(entry) / "platforms")
    try:
        import PySide6  # the package only: no Qt library is loaded by this

        dirs.append(Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms")
    except ImportError:
        pass
    return dirs


def ldd_missing(path: Path, ldd: str = "ldd") -> list[str] | None:
    """Libraries ``path`` needs (directly or through its dependencies) that the dynamic loader
    cannot find; None when that cannot be determined (no ``ldd``)."""
    exe = shutil.which(ldd)
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, str(path)], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return list(dict.fromkeys(_NOT_FOUND.findall(proc.stdout)))


def debian_package(soname: str) -> str:
    """The Debian/Ubuntu package that ships a library, by Debian's library-packaging rule:
    ``libxcb-cursor.so.0`` -> ``libxcb-cursor0``; a name ending in a digit gets a hyphen before
    the version (``libxkbcommon-x11.so.0`` -> ``libxkbcommon-x11-0``); lowercase
    (``libEGL.so.1`` -> ``libegl1``). A few exceptions come from a table."""
    if soname in PACKAGE_EXCEPTIONS:
        return PACKAGE_EXCEPTIONS[soname]
    m = re.match(r"^(?P<name>.+?)\.so\.(?P<ver>[\d.]+)$", soname)
    if not m:
        return soname
    name, version = m["name"].lower(), m["ver"].split(".")[0]
    return f"{name}{'-' if name[-1].isdigit() else ''}{version}"


@dataclass(frozen=True)
class PlatformProblem:
    """Why Qt's platform plugin would not load, and what to install."""

    platform: str
    plugin: Path
    missing: tuple[str, ...]

    @property
    def packages(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(debian_package(s) for s in self.missing))

    def install_command(self, root: bool | None = None) -> str:
        root = (os.geteuid() == 0) if root is None and hasattr(os, "geteuid") else bool(root)
        return f"{'' if root else 'sudo '}apt-get install {' '.join(self.packages)}"

    def message(self) -> str:
        return (
            f"The desktop app cannot start: Qt's {self.platform} display plugin needs system libraries "
            f"that are not installed: {', '.join(self.missing)}.\n"
            f"On Debian/Ubuntu, install them with:\n    {self.install_command()}\n"
            "(on other systems, install the packages that provide these files), then run `keepsake` again."
        )

    def to_json(self) -> dict:
        return {"platform": self.platform, "plugin": str(self.plugin), "missing": list(self.missing),
                "packages": list(self.packages), "install": self.install_command()}  # fmt: skip


def find_problem(env: Mapping[str, str], *, platform: str = sys.platform,
                 missing: Callable[[Path], Sequence[str] | None] = ldd_missing) -> PlatformProblem | None:  # fmt: skip
    """None when one of the platform plugins Qt will try can load (or when this cannot be
    checked: not Linux, plugin not found, no ``ldd``); else the first candidate's problem."""
    if not platform.startswith("linux"):
        return None
    first: PlatformProblem | None = None
    for name in candidate_platforms(env):
        filename = PLUGIN_FILES.get(name)
        plugin = next((d / filename for d in plugin_dirs(env) if filename and (d / filename).is_file()), None)
        if plugin is None:
            return None  # Qt will find (or not find) it by its own rules: let it
        lacking = missing(plugin)
        if not lacking:
            return None  # loadable, or unknown
        first = first or PlatformProblem(name, plugin, tuple(lacking))
    return first
