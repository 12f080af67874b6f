"""Find what a person would see cut off in a shown window or dialog: a widget that sticks out
of its parent or lies over others outside the layout, or a label, button, text/date field,
combo box or column title whose text does not fit.

Used by the layout test (every window and dialog at its minimum size) and by
``make screenshots``. Measures with the widgets' own font metrics and style, so it holds for
any font the machine has. Not checked, on purpose: the content of scroll areas (it scrolls),
table cells (long memories end in "…" with the whole text in the tooltip and the detail pane),
and labels whose job is eliding (``ELIDES = True``, e.g. the status bar).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt  # mightBeRichText lives in QtGui's Qt namespace
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QLayout,
    QLineEdit,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionFrame,
    QWidget,
)

SLACK_PX = 1  # rounding in layouts


@dataclass(frozen=True)
class Problem:
    widget: str  # a readable path: "MainWindow > inspector > QPushButton 'Delete…'"
    what: str

    def __str__(self) -> str:
        return f"{self.widget}: {self.what}"


def _name(w: QWidget) -> str:
    text = ""
    if isinstance(w, (QLabel, QAbstractButton)):
        text = w.text()
    elif isinstance(w, QLineEdit):
        text = w.text() or w.placeholderText()
    elif isinstance(w, QComboBox):
        text = w.currentText()
    elif isinstance(w, QAbstractSpinBox):
        text = w.text()
    label = w.objectName() or type(w).__name__
    return f"{label} '{' '.join(text.split())[:40]}'" if text else label


def _path(w: QWidget, root: QWidget) -> str:
    parts = []
    while w is not None and w is not root:
        if w.objectName() or isinstance(w, (QLabel, QAbstractButton, QLineEdit, QComboBox)):
            parts.append(_name(w))
        w = w.parentWidget()
    return " > ".join([_name(root), *reversed(parts)])


def _in_scrolled_content(w: QWidget) -> bool:
    """``w`` is (inside) the content of a scroll area: it may extend past what is shown."""
    p = w.parentWidget()
    while p is not None:
        gp = p.parentWidget()
        if isinstance(gp, QAbstractScrollArea) and p is gp.viewport():
            return True
        p = gp
    return False


def _label_problem(label: QLabel) -> str | None:
    if getattr(label, "ELIDES", False) or not label.text() or label.pixmap() is not None and not label.pixmap().isNull():
        return None
    rect = label.contentsRect().adjusted(label.margin(), label.margin(), -label.margin(), -label.margin())
    if label.wordWrap():
        need = label.heightForWidth(label.width())
        if need > label.height() + SLACK_PX:
            return f"wrapped text needs {need} px of height, has {label.height()}"
        return None
    if label.textFormat() == Qt.TextFormat.PlainText or (label.textFormat() == Qt.TextFormat.AutoText
                                                          and not GuiQt.mightBeRichText(label.text())):  # fmt: skip
        fm = label.fontMetrics()
        need = max(fm.horizontalAdvance(line) for line in label.text().splitlines() or [""])
    else:
        need = label.sizeHint().width() - 2 * label.margin()
    if need > rect.width() + SLACK_PX:
        return f"text needs {need} px, has {rect.width()}"
    return None


def _button_problem(button: QAbstractButton) -> str | None:
    if not button.text():
        return None
    need = button.sizeHint().width()
    if need > button.width() + SLACK_PX:
        return f"text needs a {need} px wide button, has {button.width()}"
    return None


def _combo_problem(combo: QComboBox) -> str | None:
    opt = QStyleOptionComboBox()
    combo.initStyleOption(opt)
    text = getattr(combo, "current_name", lambda: combo.currentText())()  # the model picker shows a short name
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt, QStyle.SubControl.SC_ComboBoxEditField, combo)
    need = combo.fontMetrics().horizontalAdvance(text)
    if need > field.width() + SLACK_PX:
        return f"current text needs {need} px, field has {field.width()}"
    return None


def _line_edit_problem(edit: QLineEdit) -> str | None:
    text = edit.text() or edit.placeholderText()
    if not text or edit.text():  # typed text scrolls; only the placeholder must fit
        return None
    opt = QStyleOptionFrame()
    edit.initStyleOption(opt)
    rect = edit.style().subElementRect(QStyle.SubElement.SE_LineEditContents, opt, edit)
    margins = edit.textMargins()
    room = rect.width() - margins.left() - margins.right() - 4  # QLineEdit's own horizontal margin
    need = edit.fontMetrics().horizontalAdvance(text)
    if need > room + SLACK_PX:
        return f"placeholder needs {need} px, has {room}"
    return None


def _spin_box_problem(box: QAbstractSpinBox) -> str | None:
    """Date and number fields: the shown value must fit its field ("2026-1" is a cut date)."""
    edit = box.findChild(QLineEdit)
    if edit is None or not box.text():
        return None
    margins = edit.textMargins()
    room = edit.width() - margins.left() - margins.right() - 4
    need = box.fontMetrics().horizontalAdvance(box.text())
    if need > room + SLACK_PX:
        return f"value '{box.text()}' needs {need} px, field has {room}"
    return None


def _in_layout(layout: QLayout, w: QWidget) -> bool:
    for i in range(layout.count()):
        item = layout.itemAt(i)
        if item.widget() is w or (item.layout() is not None and _in_layout(item.layout(), w)):
            return True
    return False


def _stray_problem(w: QWidget) -> str | None:
    """A widget lying over its siblings outside its parent's layout (e.g. created for a form row
    that was never added): it hides what is under it."""
    parent = w.parentWidget()
    layout = parent.layout() if parent is not None else None
    if layout is None or _in_layout(layout, w):
        return None
    for sib in parent.children():
        if sib is not w and isinstance(sib, QWidget) and sib.isVisible() and not sib.isWindow() and _in_layout(layout, sib):
            if sib.geometry().intersects(w.geometry()):
                return f"lies over {_name(sib)} outside the layout"
    return None


def _header_problems(header: QHeaderView) -> list[str]:
    model = header.model()
    if model is None or header.orientation() != Qt.Orientation.Horizontal:
        return []
    out = []
    fm = header.fontMetrics()
    for section in range(header.count()):
        if header.isSectionHidden(section):
            continue
        title = str(model.headerData(section, Qt.Orientation.Horizontal) or "")
        need = fm.horizontalAdvance(title) + 12  # the style's section padding
        if title and need > header.sectionSize(section) + SLACK_PX:
            out.append(f"column title '{title}' needs {need} px, has {header.sectionSize(section)}")
    return out


def find_problems(root: QWidget) -> list[Problem]:
    """Every clipped widget and cut text in the shown ``root`` (a window or dialog)."""
    problems: list[Problem] = []
    for w in [root, *root.findChildren(QWidget)]:
        if w is not root and (w.isWindow() or not w.isVisibleTo(root)):
            continue
        parent = w.parentWidget()
        if w is not root and parent is not None and not _in_scrolled_content(w):
            if not parent.rect().adjusted(-SLACK_PX, -SLACK_PX, SLACK_PX, SLACK_PX).contains(w.geometry()):
                g = w.geometry()
                problems.append(Problem(_path(w, root), f"sticks out of its parent ({g.x()},{g.y()} {g.width()}x{g.height()} "
                                                        f"in {parent.width()}x{parent.height()})"))  # fmt: skip
        if w is not root and (stray := _stray_problem(w)):
            problems.append(Problem(_path(w, root), stray))
        if isinstance(w, QLabel):
            what = _label_problem(w)
        elif isinstance(w, QAbstractButton):
            what = _button_problem(w)
        elif isinstance(w, QComboBox):
            what = _combo_problem(w)
        elif isinstance(w, QAbstractSpinBox):
            what = _spin_box_problem(w)
        elif isinstance(w, QLineEdit) and not isinstance(w.parentWidget(), (QComboBox, QAbstractSpinBox)):
            what = _line_edit_problem(w)
        elif isinstance(w, QHeaderView):
            problems.extend(Problem(_path(w, root), x) for x in _header_problems(w))
            what = None
        else:
            what = None
        if what:
            problems.append(Problem(_path(w, root), what))
    return problems
