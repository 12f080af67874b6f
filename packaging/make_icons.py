"""Render packaging/icons/keepsake.svg to PNGs (48, 128, 256 px) with Qt's SVG renderer.

    python packaging/make_icons.py OUT_DIR      ->  OUT_DIR/keepsake-48.png, -128.png, -256.png

Runs headless (QGuiApplication on the offscreen platform); PySide6-Essentials ships QtSvg.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SVG = Path(__file__).resolve().parent / "icons" / "keepsake.svg"
SIZES = (48, 128, 256)


def render(out_dir: Path, sizes: tuple[int, ...] = SIZES, svg: Path = SVG) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # noqa: F841 - keeps Qt alive
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: cannot parse {svg}")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        target = out_dir / f"keepsake-{size}.png"
        if not image.save(str(target), "PNG"):
            raise SystemExit(f"make_icons: cannot write {target}")
        written.append(target)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    for path in render(Path(sys.argv[1])):
        print(f"make_icons: {path}")
