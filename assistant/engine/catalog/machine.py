"""What this computer has for a model: total and available RAM, free disk (no network)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from assistant.engine.catalog.entries import Machine


def _meminfo() -> dict[str, int]:
    """Linux: /proc/meminfo in bytes ({} elsewhere)."""
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            out[key] = int(parts[0]) * (1024 if parts[1:2] == ["kB"] else 1)
    return out


def _windows_memory() -> tuple[int, int]:  # pragma: no cover - Windows only
    import ctypes

    class MemoryStatus(ctypes.Structure):
        _fields_ = [("dwLength", ctypes.c_ulong), ("dwMemoryLoad", ctypes.c_ulong),
                    ("ullTotalPhys", ctypes.c_ulonglong), ("ullAvailPhys", ctypes.c_ulonglong),
                    ("ullTotalPageFile", ctypes.c_ulonglong), ("ullAvailPageFile", ctypes.c_ulonglong),
                    ("ullTotalVirtual", ctypes.c_ulonglong), ("ullAvailVirtual", ctypes.c_ulonglong),
                    ("ullAvailExtendedVirtual", ctypes.c_ulonglong)]  # fmt: skip

    status = MemoryStatus()
    status.dwLength = ctypes.sizeof(MemoryStatus)
    ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status))
    return int(status.ullTotalPhys), int(status.ullAvailPhys)


def memory() -> tuple[int, int]:
    """(total, available) RAM in bytes. Available is Linux's MemAvailable; where the system does
    not say (macOS), half the total is assumed free."""
    if sys.platform == "win32":  # pragma: no cover
        return _windows_memory()
    info = _meminfo()
    if "MemTotal" in info:
        return info["MemTotal"], info.get("MemAvailable", info.get("MemFree", info["MemTotal"] // 2))
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return total, total // 2


def free_disk(folder: Path) -> int:
    """Free bytes on the volume that holds ``folder`` (its nearest existing parent)."""
    folder = Path(folder)
    for p in (folder, *folder.parents):
        if p.exists():
            return shutil.disk_usage(p).free
    return 0


def probe(models_dir: Path) -> Machine:
    total, available = memory()
    return Machine(total_ram=total, available_ram=available, free_disk=free_disk(models_dir))
