"""``keepsake`` (no command) / ``python -m ui.app``: the desktop app.

:func:`main` is the app's edge: it loads the :class:`~assistant.profile.Profile` (unless the
``keepsake`` command already did), owns the :class:`~assistant.services.Services` and closes
them when the window is gone.

The window is shown before anything slow happens: the store opens and the models load on worker
threads afterwards (progress in the status bar). Heavy modules (llama.cpp, SQLCipher, numpy) are
only imported by those workers.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
import time
from pathlib import Path
from typing import Sequence

from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from assistant.privacy import private_umask
from assistant.profile import Profile
from assistant.services import Services
from ui import style
from ui.services.backend import Backend, Provider
from ui.settings import first_run
from ui.main_window import MainWindow

log = logging.getLogger("keepsake.ui")

_QUIET = ("propagateSizeHints", "QFont::setPointSizeF: Point size <= 0")


def _qt_messages(kind: QtMsgType, _context, message: str) -> None:
    if any(q in message for q in _QUIET):
        return
    level = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
             QtMsgType.QtWarningMsg: logging.WARNING}.get(kind, logging.ERROR)  # fmt: skip
    logging.getLogger("qt").log(level, message)


def setup_logging(folder: Path) -> None:
    """Log to ``<folder>/keepsake.log`` (the profile's logs, rotated); never fail start-up over
    logging."""
    root = logging.getLogger()
    if any(getattr(h, "_keepsake", False) for h in root.handlers):
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(folder / "keepsake.log", maxBytes=2_000_000,
                                                                         backupCount=3, encoding="utf-8")  # fmt: skip
    except OSError:
        handler = logging.StreamHandler()
    handler._keepsake = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > logging.INFO:
        root.setLevel(logging.INFO)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # a line per idle check otherwise


#: Workers run Python too (hydrating rows, capture rules): with the default 5 ms GIL switch
#: interval every slot the UI thread runs may first wait that long for the GIL. 1 ms keeps the
#: event loop responsive at a small cost in worker throughput.
GIL_SWITCH_INTERVAL_S = 0.001


def create_app(argv: Sequence[str] | None = None) -> QApplication:
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    app = QApplication.instance()
    if app is None:
        app = QApplication(list(argv) if argv is not None else sys.argv[:1])
    app.setApplicationName("Keepsake")
    app.setApplicationDisplayName("Keepsake")
    app.setOrganizationName("Keepsake")
    app.setDesktopFileName("keepsake")
    qInstallMessageHandler(_qt_messages)
    style.apply(app)
    return app


def install_excepthook(window) -> None:
    """An exception escaping a slot is logged and shown calmly; the app keeps running."""
    previous = sys.excepthook

    def hook(exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            previous(exc_type, exc, tb)
            return
        log.error("unhandled error", exc_info=(exc_type, exc, tb))
        try:
            window.show_error(window.backend.describe(exc))
        except Exception:  # noqa: BLE001 - the window may be gone
            pass

    sys.excepthook = hook


def main(argv: Sequence[str] | None = None, profile: Profile | None = None) -> int:
    private_umask()  # the profile's files and folders are the person's alone
    t0 = time.perf_counter()
    profile = profile or Profile.load()
    app = create_app(argv)
    setup_logging(profile.paths.logs)
    with Services(profile) as services:
        window = MainWindow(Backend(Provider(services)))
        install_excepthook(window)
        window.show()
        log.info("window shown after %.0f ms", (time.perf_counter() - t0) * 1000)
        first_run.maybe_offer(window)  # once: the recommended catalog model, Download / Not now
        return int(app.exec())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
