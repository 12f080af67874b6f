"""The main window's default size fits the screen it opens on (the trial: a 1280x800 screen had
lost the window's bottom 20 px). Pure sizing, no widget."""

from __future__ import annotations

from PySide6.QtCore import QSize

from ui.main_window import DEFAULT_SIZE, fitted_size


def test_the_default_size_fits_a_smaller_screen_and_stays_on_a_larger_one():
    assert fitted_size(QSize(1280, 800)) == (1280, 800)  # 820 > 800: the screen's height
    assert fitted_size(QSize(1024, 700)) == (1024, 700)
    assert fitted_size(QSize(2560, 1440)) == DEFAULT_SIZE == (1280, 820)
    assert fitted_size(None) == DEFAULT_SIZE and fitted_size(QSize(0, 0)) == DEFAULT_SIZE
