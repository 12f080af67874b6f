"""Nothing is cut off: every window and dialog, rendered at its minimum size (and its normal
size) with sample data, has no widget sticking out of its parent or lying over others, and no
label, button, field, combo box or column title whose text does not fit. The same scenes are
what ``make screenshots`` renders for the README."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import (  # noqa: E402
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from tools.layout_check import find_problems  # noqa: E402
from tools.screenshots import render, scenes  # noqa: E402


def test_every_window_and_dialog_fits_at_its_minimum_and_normal_size(qtbot, tmp_path):
    files, problems = render(tmp_path / "docs", home=tmp_path / "studio")
    assert problems == []
    names = [s.name for s in scenes()]
    assert {"main-window", "inspector", "about-me", "tidy-up", "settings", "edit-memory", "delete-memory"} <= set(names)
    assert sorted(f.relative_to(tmp_path / "docs").as_posix() for f in files) == sorted(
        [f"{n}.png" for n in names] + [f"minimum/{n}.png" for n in names])
    for f in files:
        assert f.stat().st_size > 5_000, f  # a real picture, not an empty grab


def test_the_check_finds_cut_text_and_clipped_widgets(qtbot):
    root = QWidget()
    qtbot.addWidget(root)
    lay = QVBoxLayout(root)
    label = QLabel("A label whose text is far longer than its fixed width", root)
    label.setFixedWidth(60)
    lay.addWidget(label)
    row = QHBoxLayout()
    button = QPushButton("A button with a long caption", root)
    button.setFixedWidth(50)
    row.addWidget(button)
    combo = QComboBox(root)
    combo.addItem("SmolLM2-135M-Instruct (default) · 98 MB")
    combo.setFixedWidth(90)
    row.addWidget(combo)
    date = QDateEdit(root)
    date.setDisplayFormat("yyyy-MM-dd")
    date.setFixedWidth(40)
    row.addWidget(date)
    lay.addLayout(row)
    table = QTableWidget(1, 1, root)
    table.setHorizontalHeaderLabels(["A very long column title"])
    table.setColumnWidth(0, 30)
    lay.addWidget(table)
    stray = QLabel("floating", root)  # parented but never added to the layout: lies over the label
    outside = QLabel("x", label)
    outside.setGeometry(50, 0, 40, 10)  # sticks out of its 60 px parent
    root.resize(400, 300)
    root.show()
    qtbot.waitExposed(root)
    found = "\n".join(str(p) for p in find_problems(root))
    assert "A label whose text" in found and "text needs" in found
    assert "A button with a long" in found and "wide button" in found
    assert "current text needs" in found
    assert "value '" in found and "field has" in found  # the cut date
    assert "column title 'A very long column title'" in found
    assert "'floating'" in found and "outside the layout" in found
    assert "sticks out of its parent" in found
    assert stray.isVisible()
