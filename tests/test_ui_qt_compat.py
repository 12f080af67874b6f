"""PySide6 6.12 on CPython 3.11 drops a reference to True on every Signal.emit() and to None on
every Qt-delivered callback; ui.qt_compat keeps the app alive. These run in child processes: the
unprotected one is expected to lose exactly one reference per call (and would abort later)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("PySide6")

PROBE = textwrap.dedent(
    """
    import sys{extra}
    from PySide6.QtCore import QCoreApplication, QObject, Signal, QThreadPool
    app = QCoreApplication([])
    class R(QObject):
        s = Signal(object)
    r = R(); r.s.connect(lambda x: None)
    t0, n0 = sys.getrefcount(True), sys.getrefcount(None)
    for _ in range(200):
        r.s.emit(1)
    pool = QThreadPool()
    for _ in range(200):
        pool.start(lambda: None)
    pool.waitForDone()
    print(sys.getrefcount(True) - t0, sys.getrefcount(None) - n0, sys.getrefcount(True) > 10**9, flush=True)
    import os
    os._exit(0)  # unprotected, the interpreter would abort while tearing down
    """
)


def _run(extra: str) -> tuple[int, int, bool]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(extra=extra)], capture_output=True, text=True,
                         timeout=120, env={"QT_QPA_PLATFORM": "offscreen", "PATH": ""})  # fmt: skip
    assert out.returncode == 0, out.stderr
    true_delta, none_delta, pinned = out.stdout.split()
    return int(true_delta), int(none_delta), pinned == "True"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="True/None are immortal from Python 3.12 on")
def test_the_pyside_bug_is_what_qt_compat_works_around():
    true_delta, none_delta, pinned = _run("")
    assert not pinned
    if true_delta > -200 and none_delta > -150:
        pytest.skip("this PySide6 build no longer drops references: ui/qt_compat.py can go")
    assert true_delta <= -200  # one per emit: a long session would abort ("bool_dealloc")


def test_importing_ui_protects_the_singletons():
    from ui import qt_compat

    _t, _n, pinned = _run("\nimport ui")
    assert pinned == qt_compat.needed()


def test_many_emissions_survive_with_the_app_imported(qtbot):
    import ui  # noqa: F401 - applies the protection in this process
    from PySide6.QtCore import QObject, Signal

    class R(QObject):
        s = Signal(object)

    r = R()
    hits: list[int] = []
    r.s.connect(hits.append)
    for i in range(20_000):
        r.s.emit(i)
    assert len(hits) == 20_000
