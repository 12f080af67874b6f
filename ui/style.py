"""A calm light theme: Fusion, soft greys, one muted accent, generous spacing."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QApplication

ACCENT = "#3d6fa8"
TEXT = "#1f2933"
MUTED = "#6b7580"
BORDER = "#e1e5ea"
SURFACE = "#ffffff"
WINDOW = "#f6f7f9"

QSS = f"""
QWidget {{ color: {TEXT}; }}
QMainWindow, #chatPage, #chatArea, #chatCanvas, #chatColumn, #chatBottom, #inspector, #noteEditor,
#consolidationPanel, #detailPage {{ background: {SURFACE}; }}
#sessionsPanel {{ background: {WINDOW}; border-right: 1px solid {BORDER}; }}
QToolTip {{ background: #2b323a; color: #f3f5f7; border: none; padding: 6px 8px; border-radius: 4px; }}

QTabWidget::pane {{ border: none; border-top: 1px solid {BORDER}; }}
QTabBar {{ background: {WINDOW}; }}
QTabBar::tab {{ padding: 9px 18px; margin: 0; border: none; color: {MUTED}; background: transparent;
               border-bottom: 2px solid transparent; }}
QTabBar::tab:selected {{ color: {TEXT}; border-bottom: 2px solid {ACCENT}; font-weight: 600; }}
QTabBar::tab:hover:!selected {{ color: {TEXT}; }}
#tabCorner {{ background: {WINDOW}; }}

QDialogButtonBox {{ dialogbuttonbox-buttons-have-icons: 0; }}
QPushButton, QToolButton#toolButton, QToolButton#settingsButton, QToolButton#privateButton {{
    background: {SURFACE}; border: 1px solid #d3d9e0; border-radius: 6px; padding: 5px 12px; }}
QPushButton:hover, QToolButton#toolButton:hover, QToolButton#settingsButton:hover,
QToolButton#privateButton:hover {{ background: #f0f3f6; }}
QPushButton:disabled, QToolButton:disabled {{ color: #a8b0b8; border-color: #e6e9ed; }}
QPushButton#primaryButton, QPushButton#sendButton {{ background: {ACCENT}; color: white; border: 1px solid {ACCENT}; font-weight: 600; }}
QPushButton#primaryButton:hover, QPushButton#sendButton:hover {{ background: #35619a; }}
QPushButton#primaryButton:disabled {{ background: #a9bfd8; border-color: #a9bfd8; color: white; }}
QPushButton#sendButton[stop="true"] {{ background: {SURFACE}; color: {TEXT}; border: 1px solid #c9d0d8; }}
QPushButton#dangerButton {{ background: #b5473f; color: white; border: 1px solid #b5473f; font-weight: 600; }}
QPushButton#dangerLink {{ color: #a5423b; }}
QPushButton#linkButton {{ border: none; background: transparent; color: {ACCENT}; padding: 0 2px; }}
QPushButton#linkButton:hover {{ text-decoration: underline; }}
QPushButton#newSessionButton {{ padding: 4px 12px; }}
QToolButton#toolButton::menu-indicator {{ subcontrol-position: right center; right: 6px; }}
QToolButton#toolButton {{ padding-right: 20px; }}

QLineEdit, QComboBox, QAbstractSpinBox {{ background: {SURFACE}; border: 1px solid #d3d9e0;
    border-radius: 6px; padding: 5px 8px; selection-background-color: #cfe0f3; selection-color: {TEXT}; }}
QLineEdit:focus, QComboBox:focus, QAbstractSpinBox:focus {{ border-color: {ACCENT}; }}
QComboBox {{ padding-right: 24px; }}
QComboBox::drop-down {{ border: none; width: 22px; subcontrol-origin: padding; subcontrol-position: center right; }}
QComboBox::down-arrow {{ image: url("{{down}}"); width: 10px; height: 6px; }}
QAbstractSpinBox {{ padding-right: 22px; }}
QAbstractSpinBox::up-button, QAbstractSpinBox::down-button {{ border: none; width: 20px; background: transparent;
    subcontrol-origin: border; }}
QAbstractSpinBox::up-button {{ subcontrol-position: top right; margin-top: 3px; }}
QAbstractSpinBox::down-button {{ subcontrol-position: bottom right; margin-bottom: 3px; }}
QAbstractSpinBox::up-arrow {{ image: url("{{up}}"); width: 10px; height: 6px; }}
QAbstractSpinBox::down-arrow {{ image: url("{{down}}"); width: 10px; height: 6px; }}
QDateTimeEdit::drop-down, QDateEdit::drop-down {{ border: none; width: 22px; }}
QComboBox QAbstractItemView {{ border: 1px solid {BORDER}; selection-background-color: #e3edf8; selection-color: {TEXT};
    outline: none; padding: 4px; }}
QComboBox#modelPicker {{ min-width: 210px; }}

QScrollBar:vertical {{ background: transparent; width: 10px; margin: 2px; }}
QScrollBar::handle:vertical {{ background: #cdd3da; border-radius: 3px; min-height: 28px; }}
QScrollBar::handle:vertical:hover {{ background: #b5bdc6; }}
QScrollBar:horizontal {{ background: transparent; height: 10px; margin: 2px; }}
QScrollBar::handle:horizontal {{ background: #cdd3da; border-radius: 3px; min-width: 28px; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: transparent; }}

#panelTitle, #pageTitle {{ font-size: 13pt; font-weight: 600; }}
#sectionTitle {{ color: {MUTED}; font-weight: 600; margin-top: 4px; text-transform: uppercase; font-size: 8.5pt;
    letter-spacing: 1px; }}
#hint {{ color: {MUTED}; }}
#errorText {{ color: #a5423b; }}
#sessionList {{ background: transparent; border: none; outline: none; }}

#userBubble {{ background: #eef3f9; border: 1px solid #e1e9f3; border-radius: 10px; }}
#replyBubble {{ background: {SURFACE}; border: 1px solid {BORDER}; border-radius: 10px; }}
#userBubble[highlight="true"], #replyBubble[highlight="true"] {{ border: 2px solid #e0b54f; background: #fff8e6; }}
#bubbleAuthor {{ font-weight: 600; }}
#bubbleMeta {{ color: #8a929b; font-size: 8.5pt; }}
#bubbleBadge {{ color: #8a5a14; background: #fbefd5; border-radius: 4px; padding: 1px 6px; font-size: 8.5pt; }}
#bubbleText {{ font-size: 10.5pt; }}
#copyButton {{ border: none; color: #8a929b; background: transparent; padding: 2px 4px; }}
#copyButton:hover {{ color: {ACCENT}; }}
#jumpToNewest {{ background: {ACCENT}; color: white; border: none; border-radius: 12px; padding: 5px 14px; }}
#memoriesToggle {{ border: none; background: transparent; color: {ACCENT}; padding: 2px 0; font-size: 9pt; }}
#memoriesPanel {{ background: #fbf8f1; border: 1px solid #efe6d2; border-radius: 8px; }}
#memoryAnswer {{ background: #f1f7f1; border: 1px solid #d5e7d5; border-radius: 8px; padding: 6px 10px; font-size: 9.5pt; }}
#memoryNotice {{ color: #2f6b3a; background: #eef6ef; border-radius: 6px; padding: 3px 8px; font-size: 9pt; }}
#chatPlaceholder {{ color: {MUTED}; padding: 80px 40px; }}
#banner {{ background: #eef1f6; color: #3b4250; padding: 8px 24px; border-bottom: 1px solid {BORDER}; }}
#banner[kind="error"] {{ background: #fbeeec; color: #8c3731; }}
#chatBottom {{ border-top: 1px solid {BORDER}; }}
#composer {{ background: {SURFACE}; border: 1px solid #cfd6de; border-radius: 10px; }}
#composerEdit {{ background: transparent; font-size: 10.5pt; }}
#budgetCaption {{ color: {MUTED}; font-size: 8.5pt; }}
#budgetFigures {{ color: {MUTED}; font-size: 8.5pt; }}

QTableView {{ border: 1px solid {BORDER}; border-radius: 6px; gridline-color: {BORDER};
    alternate-background-color: #fafbfc; selection-background-color: #dfeaf6; selection-color: {TEXT}; outline: none; }}
QTableView::item {{ padding: 0 4px; }}
QHeaderView::section {{ background: {WINDOW}; border: none; border-bottom: 1px solid {BORDER};
    padding: 6px 6px; color: {MUTED}; font-weight: 600; }}
#countLabel {{ color: {MUTED}; }}
#memoryDetail {{ border: 1px solid {BORDER}; border-radius: 6px; }}
#detailTitle {{ font-size: 12pt; }}
#detailMeta, #fieldKey {{ color: {MUTED}; }}
#badge {{ background: #eef1f5; border-radius: 4px; padding: 2px 8px; color: #46505b; font-size: 8.5pt; }}
#badgeWarn {{ background: #fbefd5; border-radius: 4px; padding: 2px 8px; color: #8a5a14; font-size: 8.5pt; }}
#badgeAccent {{ background: #e3edf8; border-radius: 4px; padding: 2px 8px; color: {ACCENT}; font-size: 8.5pt; }}
#card {{ background: #fafbfc; border: 1px solid {BORDER}; border-radius: 8px; }}
#cardCurrent {{ background: #f4f8fc; border: 1px solid #d6e3f1; border-radius: 8px; }}
#quote {{ color: #4a545e; font-style: italic; }}
#versionHead, #auditLine {{ color: {MUTED}; font-size: 9pt; }}

#noteEdit {{ border: 1px solid {BORDER}; border-radius: 8px; padding: 8px; font-size: 10.5pt; background: {SURFACE}; }}
QListWidget#noteHistory, QTreeWidget#runTree, QListWidget#forgetList {{ border: 1px solid {BORDER}; border-radius: 6px; outline: none; }}
QListWidget#noteHistory::item, QListWidget#forgetList::item {{ padding: 6px 4px; }}
QTreeWidget#runTree::item {{ padding: 4px 2px; }}
QProgressBar {{ background: #e8ecf0; border: none; border-radius: 3px; }}
QProgressBar::chunk {{ background: {ACCENT}; border-radius: 3px; }}
QProgressBar#noteBudget[over="true"]::chunk {{ background: #b5473f; }}

QStatusBar {{ background: {WINDOW}; border-top: 1px solid {BORDER}; }}
QStatusBar::item {{ border: none; }}
#statusText {{ color: {MUTED}; padding: 2px 8px; }}
#statusText[error="true"] {{ color: #a5423b; }}
#dialogHeadline {{ font-size: 11.5pt; font-weight: 600; }}
#dialogWarning {{ color: #a5423b; }}
#cascadeTable {{ border: 1px solid {BORDER}; border-radius: 6px; background: #fafbfc; }}
QSplitter::handle {{ background: {BORDER}; }}
#inspector QSplitter::handle {{ background: transparent; }}
"""


def _arrows() -> dict[str, str]:
    """Small chevrons for combo and spin boxes, drawn once into a private temp folder (a style
    sheet that styles these boxes must also give their arrows)."""

    folder = Path(tempfile.gettempdir()) / f"keepsake-ui-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    folder.mkdir(mode=0o700, exist_ok=True)
    out = {}
    for name, points in (("down", ((2, 3), (10, 11), (18, 3))), ("up", ((2, 11), (10, 3), (18, 11)))):
        path = folder / f"chevron-{name}.png"
        if not path.exists():
            pm = QPixmap(20, 14)
            pm.fill(Qt.GlobalColor.transparent)
            p = QPainter(pm)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            p.setPen(QPen(QColor(MUTED), 2.2, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
            p.drawPolyline([QPointF(x, y) for x, y in points])
            p.end()
            pm.save(str(path))
        out[name] = path.as_posix()
    return out


def apply(app: QApplication) -> None:
    app.setStyle("Fusion")
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, QColor(WINDOW))
    pal.setColor(QPalette.ColorRole.Base, QColor(SURFACE))
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor("#fafbfc"))
    pal.setColor(QPalette.ColorRole.Text, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.WindowText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.ButtonText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Button, QColor(SURFACE))
    pal.setColor(QPalette.ColorRole.Highlight, QColor("#dfeaf6"))
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Link, QColor(ACCENT))
    pal.setColor(QPalette.ColorRole.PlaceholderText, QColor("#9aa2ab"))
    pal.setColor(QPalette.ColorRole.ToolTipBase, QColor("#2b323a"))
    pal.setColor(QPalette.ColorRole.ToolTipText, QColor("#f3f5f7"))
    app.setPalette(pal)
    font = QFont(app.font())
    if font.pointSizeF() < 10:
        font.setPointSizeF(10)
    app.setFont(font)
    try:
        arrows = _arrows()
    except OSError:
        arrows = {"up": "", "down": ""}
    app.setStyleSheet(QSS.replace("{up}", arrows["up"]).replace("{down}", arrows["down"]))
