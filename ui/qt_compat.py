"""Work around a reference-counting bug of PySide6 6.12 on CPython 3.11.

Measured here (PySide6-Essentials 6.12.0, Python 3.11.7): every ``Signal.emit()`` called from
Python drops one reference to ``True`` it never took, and every Qt-emitted signal delivered to a
Python callable (``QTimer`` timeouts, ``QThreadPool.start(callable)``, ``QRunnable.run``) drops one
reference to ``None``. After a few thousand emissions the count reaches zero and the interpreter
aborts ("Fatal Python error: bool_dealloc" / "none_dealloc") - a chat reply streams hundreds of
pieces, so the app would die within minutes. ``tests/test_ui_qt_compat.py`` reproduces it.

From Python 3.12 on these objects are immortal and the bug is harmless, so nothing is done there.
On 3.11 the singletons get a very large extra reference count once, at import of :mod:`ui`:
over-counting a singleton that is never freed anyway costs nothing, and 2**40 extra references
outlast any session. Remove this module once PySide6 is fixed (or Python >= 3.12 is required).
"""

from __future__ import annotations

import ctypes
import sys

PIN = 1 << 40
_SINGLETONS = (True, False, None)
_done = False


def needed() -> bool:
    return sys.version_info < (3, 12) and sys.implementation.name == "cpython"


def protect_singletons() -> bool:
    """Give True/False/None a huge reference count (CPython < 3.12 only). True if applied."""
    global _done
    if _done or not needed():
        return _done
    for obj in _SINGLETONS:
        before = sys.getrefcount(obj)
        cell = ctypes.c_ssize_t.from_address(id(obj))  # ob_refcnt is the first field of PyObject
        if cell.value not in (before - 1, before, before + 1):  # unexpected layout (debug build): leave it
            return False
        cell.value += PIN
    _done = True
    return True
