"""Smoke steps for the ways a person installs the bundle: install.sh / uninstall.sh into a
temporary HOME, and the .deb unpacked with ``dpkg-deb -x`` (no root). Called by packaging/smoke.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from smoke_common import check, json_or_none


def install_cycle(smoke) -> dict:
    home = smoke.tmp / "install-home"
    home.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    share = home / ".local" / "share"
    prefix = share / "keepsake-app"
    out = subprocess.run(["bash", str(smoke.bundle / "install.sh")], env=env, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=300)
    check(out.returncode == 0, f"install.sh failed: {out.stdout}\n{out.stderr}")
    desktop = share / "applications" / "keepsake.desktop"
    check((prefix / "keepsake").is_file() and (prefix / ".keepsake-install").is_file(), "install.sh did not copy the bundle")
    check(desktop.is_file(), "install.sh did not register the desktop entry")
    entry = desktop.read_text()
    check(f'Exec="{prefix}/keepsake" app' in entry, f"desktop Exec line wrong:\n{entry}")
    for size in ("48x48", "128x128", "256x256"):
        check((share / "icons" / "hicolor" / size / "apps" / "keepsake.png").is_file(), f"icon {size} not installed")
    check((share / "icons" / "hicolor" / "scalable" / "apps" / "keepsake.svg").is_file(), "SVG icon not installed")
    link = home / ".local" / "bin" / "keepsake"
    check(link.is_symlink() and Path(os.readlink(link)) == prefix / "keepsake", "~/.local/bin/keepsake link missing")
    validate = None
    if shutil.which("desktop-file-validate"):
        v = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True, text=True)
        check(v.returncode == 0 and "error" not in v.stdout.lower(), f"desktop-file-validate: {v.stdout}{v.stderr}")
        validate = "ok" + (f" ({v.stdout.strip()})" if v.stdout.strip() else "")
    # The installed copy runs from its new place (the bundle is relocatable).
    ks = smoke.tmp / "installed-home"
    proc = subprocess.run([str(prefix / "keepsake"), "doctor", "--json"], env=smoke.env(KEEPSAKE_HOME=str(ks)),
                          capture_output=True, text=True, timeout=300)
    check(proc.returncode == 0 and json_or_none(proc.stdout, {}).get("ok") is True,
          f"installed copy's doctor failed: {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    # Uninstall, keeping data (no terminal: the default), then again with --remove-data.
    fake_data = share / "Keepsake"
    fake_data.mkdir(parents=True)
    (fake_data / "keepsake.db").write_bytes(b"x")
    out = subprocess.run(["bash", str(prefix / "uninstall.sh")], env=env, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=120)
    check(out.returncode == 0, f"uninstall.sh failed: {out.stdout}\n{out.stderr}")
    check(not prefix.exists() and not desktop.exists() and not link.exists() and not link.is_symlink(),
          f"uninstall.sh left files: {out.stdout}")
    check(not (share / "icons" / "hicolor" / "256x256" / "apps" / "keepsake.png").exists(), "uninstall.sh left icons")
    check((fake_data / "keepsake.db").exists(), "uninstall.sh removed data without being asked to")
    out = subprocess.run(["bash", str(smoke.bundle / "uninstall.sh"), "--prefix", str(prefix), "--remove-data"], env=env,
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    check(out.returncode == 0 and not fake_data.exists(), f"uninstall.sh --remove-data kept data: {out.stdout}{out.stderr}")
    return {"desktop_file_validate": validate, "installed_doctor": "ok"}


def deb(smoke) -> dict:
    """The .deb unpacks (dpkg-deb -x, no root) to a keepsake that runs, and a desktop entry."""
    debs = sorted(smoke.bundle.parent.glob("keepsake_*_amd64.deb"))
    check(bool(debs), f"no keepsake_<version>_amd64.deb in {smoke.bundle.parent}")
    deb = debs[-1]
    root = smoke.tmp / "deb-root"
    out = subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], capture_output=True, text=True)
    check(out.returncode == 0, f"dpkg-deb -x failed: {out.stderr}")
    info = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True).stdout
    check("Depends:" in info and "libxcb-cursor0" in info, f"the .deb has no xcb Depends:\n{info}")
    exe = root / "opt" / "keepsake" / "keepsake"
    check(exe.is_file(), "the .deb has no /opt/keepsake/keepsake")
    link = root / "usr" / "bin" / "keepsake"
    check(link.is_symlink() and os.readlink(link) == "/opt/keepsake/keepsake", "/usr/bin/keepsake is not a link to /opt/keepsake/keepsake")
    desktop = root / "usr" / "share" / "applications" / "keepsake.desktop"
    check(desktop.is_file() and "Exec=keepsake" in desktop.read_text(), "the .deb has no usable keepsake.desktop")
    for size in ("48x48", "128x128", "256x256"):
        check((root / "usr" / "share" / "icons" / "hicolor" / size / "apps" / "keepsake.png").is_file(), f"the .deb lacks icon {size}")
    version = subprocess.run([str(exe), "--version"], env=smoke.env(), capture_output=True, text=True, timeout=120)
    check(version.returncode == 0 and version.stdout.strip(), f"--version from the .deb failed: {version.stderr}")
    ks = smoke.tmp / "deb-home"
    doctor = subprocess.run([str(exe), "doctor", "--json"], env=smoke.env(KEEPSAKE_HOME=str(ks)), capture_output=True,
                            text=True, timeout=300)
    check(doctor.returncode == 0 and json_or_none(doctor.stdout, {}).get("ok") is True,
          f"doctor from the .deb failed: {doctor.stdout[-2000:]}{doctor.stderr[-2000:]}")
    smoke.report["deb_size_mb"] = round(deb.stat().st_size / 1e6, 1)
    return {"deb": deb.name, "deb_size_mb": smoke.report["deb_size_mb"], "version": version.stdout.strip()}
