"""The status bar shows one state: a step's progress reports go with the step, so "done in 3.0 s"
(the embedder conversion, over) never sits beside "Loading the chat model..." (still running).
Status bar alone, no model (the state does not depend on one)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QMainWindow  # noqa: E402

from ui.widgets.status_state import StatusBar, StatusState  # noqa: E402


def test_progress_reports_belong_to_their_step():
    s = StatusState().started("model", "Loading the chat model…").started("memory", "converting MiniLM")
    assert s.right == "Loading the chat model… · converting MiniLM"
    s = s.started("memory", "done in 3.0 s")  # a later report of a step replaces its earlier one, in place
    assert s.right == "Loading the chat model… · done in 3.0 s"
    s = s.finished("memory")
    assert s.right == "Loading the chat model…"  # the finished step's last words went with it
    s = s.finished("model", ready="Model: SmolLM2-135M-Instruct")
    assert s.right == "Model: SmolLM2-135M-Instruct" and not s.busy


def test_a_message_is_separate_from_what_runs_and_an_error_is_marked():
    s = StatusState(ready="Model: X").said("Settings saved.")
    assert (s.message, s.error, s.right) == ("Settings saved.", False, "Model: X")
    s = s.said("The disk is full.", error=True)
    assert s.error and s.said("").error is False  # a cleared line is not an error


def test_the_bar_draws_one_state(qtbot):
    w = QMainWindow()
    qtbot.addWidget(w)
    bar = StatusBar(w.statusBar())
    w.show()
    bar.start("model", "Loading the chat model…")
    bar.start("memory", "done in 3.0 s")
    assert bar.progress.isVisible()
    bar.finish("memory")
    assert bar.progress_label.text() == "Loading the chat model…" and "done in" not in bar.label.text()
    bar.finish("model", "Model: SmolLM2-135M-Instruct")
    assert bar.progress_label.text() == "Model: SmolLM2-135M-Instruct" and not bar.progress.isVisible()
    bar.say("Could not save.", error=True)
    assert bar.label.text() == "Could not save." and bar.label.property("error") is True
    bar.say("Saved.")
    assert bar.label.text() == "Saved." and bar.label.property("error") is False
