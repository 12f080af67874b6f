"""The detail panel: one memory in full - text, when it was true, provenance (click a source to
open that message in the chat), version history with "restore this version", and audit events."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from assistant.memory.language.tense import tensed
from assistant.memory.errors import NotFound
from assistant.memory.wording import TRUE_SINCE
from ui.format import (
    ACTION_LABELS,
    ACTOR_LABELS,
    KIND_LABELS,
    STATUS_LABELS,
    TRUST_LABELS,
    link_label,
    local_time,
    plural,
    short_date,
    true_since,
    version_label,
)

SNIPPET_CHARS = 280


@dataclass
class SourceInfo:
    source: Any  # assistant.memory.records.Source
    session_title: str | None = None  # None: no conversation (manual entry) or it was deleted
    session_exists: bool = False
    message_text: str | None = None
    message_redacted: bool = False
    message_partly_redacted: bool = False


@dataclass
class DetailData:
    memory: Any
    versions: list[Any] = field(default_factory=list)
    audit: list[Any] = field(default_factory=list)
    sources: list[SourceInfo] = field(default_factory=list)


def load_detail(store, memory_id: int) -> DetailData:
    """Everything the panel shows about one memory (runs on a worker thread)."""

    memory = store.get(memory_id)
    data = DetailData(memory, store.history(memory_id), store.audit(memory_id))
    titles: dict[int, str | None] = {}
    for s in memory.sources:
        info = SourceInfo(s)
        if s.session_id is not None:
            if s.session_id not in titles:
                try:
                    titles[s.session_id] = store.get_session(s.session_id).title or "New conversation"
                except NotFound:
                    titles[s.session_id] = None
            info.session_title = titles[s.session_id]
            info.session_exists = titles[s.session_id] is not None
        if s.message_id is not None:
            try:
                msg = store.get_message(s.message_id)
                info.message_text, info.message_redacted = msg.content, msg.redacted
                info.message_partly_redacted = msg.partly_redacted
            except NotFound:
                info.message_redacted = True
        data.sources.append(info)
    return data


def _section(title: str, parent: QWidget) -> QLabel:
    label = QLabel(title, parent)
    label.setObjectName("sectionTitle")
    return label


def _label(text: str, parent: QWidget, name: str = "detailText", rich: bool = False) -> QLabel:
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setText(text)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


def _clip(text: str, n: int = SNIPPET_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def old_wordings(versions: list[Any]) -> set[int]:
    """Versions whose text differs from the current one: wording the history still keeps."""
    if len(versions) < 2:
        return set()
    current = versions[-1].text
    return {v.version for v in versions[:-1] if v.text != current}


class MemoryDetail(QScrollArea):
    openMessage = Signal(int, int)  # session id, message id
    restoreVersion = Signal(int, int)  # memory id, version
    openMemory = Signal(int)
    forgetOldWording = Signal(int)  # memory id: its earlier versions go

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryDetail")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.data: DetailData | None = None
        self.restore_buttons: dict[int, QPushButton] = {}
        self.source_labels: list[QLabel] = []
        self.show_empty("Select a memory to see where it came from and how it changed.")

    # ------------------------------------------------------------------ states
    def _fresh(self) -> QVBoxLayout:
        page = QWidget(self)
        page.setObjectName("detailPage")
        lay = QVBoxLayout(page)
        lay.setContentsMargins(18, 16, 18, 16)
        lay.setSpacing(10)
        self.setWidget(page)  # the previous page is deleted by the scroll area
        self.restore_buttons = {}
        self.source_labels = []
        return lay

    def show_empty(self, text: str) -> None:
        self.data = None
        lay = self._fresh()
        hint = _label(text, self.widget(), "hint")
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addStretch(1)
        lay.addWidget(hint)
        lay.addStretch(2)

    def show_data(self, data: DetailData) -> None:
        self.data = data
        m = data.memory
        lay = self._fresh()
        page = self.widget()
        columns = QHBoxLayout()
        columns.setSpacing(28)
        lay.addLayout(columns)
        left, middle, right = QVBoxLayout(), QVBoxLayout(), QVBoxLayout()
        for col, stretch in ((left, 4), (middle, 3), (right, 3)):
            col.setSpacing(8)
            columns.addLayout(col, stretch)

        # -- the memory itself
        head = QHBoxLayout()
        head.setSpacing(6)
        for text, name in self._badges(m):
            b = QLabel(text, page)
            b.setObjectName(name)
            head.addWidget(b)
        head.addStretch(1)
        ident = QLabel(f"#{m.id} · version {m.version}", page)
        ident.setObjectName("detailMeta")
        head.addWidget(ident)
        left.addLayout(head)
        said = min((x.observed_at for x in m.sources if x.observed_at), default=None)
        left.addWidget(_label(tensed(m.text, said, datetime.now(timezone.utc)), page, "detailTitle"))  # "was on" once passed
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(4)
        rows = [
            (TRUE_SINCE, true_since(m.valid_at, m.start_kind, min((x.observed_at for x in m.sources if x.observed_at), default=None))),
            ("True until", short_date(m.invalid_at) or "still true"),
            ("Learned", local_time(m.created_at)),
        ]
        if m.expired_at is not None:
            rows.append(("Stopped believing", local_time(m.expired_at)))
        if m.expires_at is not None:
            rows.append(("Expires", local_time(m.expires_at)))
        rows.append(("Confidence", f"{m.confidence:.0%}"))
        used = f"{m.use_count} time{'s' if m.use_count != 1 else ''}"
        if m.last_used_at:
            used += f", last {local_time(m.last_used_at)}"
        rows.append(("Used", used))
        if m.slot:
            rows.append(("Profile field", m.slot.replace("_", " ")))
        if m.entities:
            rows.append(("Mentions", ", ".join(m.entities)))
        for i, (k, v) in enumerate(rows):
            key = QLabel(k, page)
            key.setObjectName("fieldKey")
            grid.addWidget(key, i, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(_label(v, page, "fieldValue"), i, 1)
        grid.setColumnStretch(1, 1)
        left.addLayout(grid)
        if m.links:
            links = " · ".join(f"{escape(words)} <a href='memory:{other}'>#{other}</a>"
                               for words, other in (link_label(link, m.id) for link in m.links))  # fmt: skip
            ll = _label(links, page, "fieldValue", rich=True)
            ll.setObjectName("memoryLinks")
            ll.linkActivated.connect(self._link)
            left.addWidget(ll)
        left.addStretch(1)

        # -- provenance
        middle.addWidget(_section("Where it came from", page))
        if not data.sources:
            middle.addWidget(_label("Added directly (no conversation).", page, "hint"))
        for info in data.sources:
            middle.addWidget(self._source_card(info, page))
        middle.addWidget(_section("Audit trail", page))
        for e in reversed(data.audit[-50:]):
            what = ACTION_LABELS.get(e.action, e.action.replace("_", " "))
            if e.from_version and e.to_version:
                what += f" (version {e.from_version} → {e.to_version})"
            who = ACTOR_LABELS.get(e.actor.value, e.actor.value)
            middle.addWidget(_label(f"{local_time(e.at)} · {what} · by {who}", page, "auditLine"))
        if len(data.audit) > 50:
            middle.addWidget(_label(f"… and {len(data.audit) - 50} earlier events", page, "hint"))
        middle.addStretch(1)

        # -- versions
        right.addWidget(_section(f"History · {len(data.versions)} version{'s' if len(data.versions) != 1 else ''}", page))
        kept = old_wordings(data.versions)
        self.forget_old_button = None
        if kept:
            note = _label(f"Your earlier wording is kept in this history ({plural(len(kept), 'version')}): "
                          "still in the database until you forget it.", page, "hint")  # fmt: skip
            right.addWidget(note)
            b = QPushButton("Forget the old wording…", page)
            b.setObjectName("linkButton")
            b.setCursor(Qt.CursorShape.PointingHandCursor)
            b.setToolTip("Remove the earlier versions for real; the current text stays")
            b.clicked.connect(lambda _=False, mid=m.id: self.forgetOldWording.emit(mid))
            right.addWidget(b)
            self.forget_old_button = b
        actions = {e.to_version: e.action for e in data.audit if e.memory_id == m.id and e.to_version}
        for v in reversed(data.versions):
            right.addWidget(self._version_card(m, v, actions.get(v.version), page, text_kept=v.version in kept))
        right.addStretch(1)

    @staticmethod
    def _badges(m: Any) -> list[tuple[str, str]]:
        out = [(KIND_LABELS.get(m.kind.value, m.kind.value), "badge"),
               (TRUST_LABELS.get(m.trust.value, m.trust.value), "badge")]  # fmt: skip
        if m.status.value != "active":
            out.append((STATUS_LABELS.get(m.status.value, m.status.value), "badgeWarn"))
        if m.invalid_at is not None:
            out.append(("No longer true", "badgeWarn"))
        if m.pinned:
            out.append(("Pinned", "badgeAccent"))
        return out

    def _source_card(self, info: SourceInfo, page: QWidget) -> QFrame:
        s = info.source
        card = QFrame(page)
        card.setObjectName("card")
        lay = QVBoxLayout(card)
        lay.setContentsMargins(12, 8, 12, 8)
        lay.setSpacing(4)
        who = {"user": "you said", "assistant": "Keepsake said"}.get(s.speaker, s.speaker)
        when = local_time(s.observed_at) if s.observed_at else ""
        if s.session_id is not None and info.session_exists:
            title = escape(info.session_title or "")
            if s.message_id is not None:
                head = f"<a href='msg:{s.session_id}:{s.message_id}'>“{title}”</a>"
            else:
                head = f"“{title}”"
        elif s.session_id is not None:
            head = "a deleted conversation"
        else:
            head = "added directly"
        meta = " · ".join(x for x in (when, who) if x)
        top = _label(f"{head} <span style='color:#7a8088'>· {escape(meta)}</span>", card, "sourceHead", rich=True)
        top.linkActivated.connect(self._link)
        found_by = f"Found by {s.extractor} v{s.extractor_version}"
        top.setToolTip(f"Open this message in the chat\n{found_by}" if s.message_id is not None else found_by)
        self.source_labels.append(top)
        lay.addWidget(top)
        if info.message_redacted:
            lay.addWidget(_label("The message text was deleted.", card, "hint"))
        elif info.message_text:
            lay.addWidget(_label(f"“{_clip(info.message_text)}”", card, "quote"))
            if info.message_partly_redacted:
                lay.addWidget(_label("Part of this message was deleted.", card, "hint"))
        return card

    def _version_card(self, m: Any, v: Any, action: str | None, page: QWidget, *, text_kept: bool = False) -> QFrame:
        card = QFrame(page)
        card.setObjectName("cardCurrent" if v.superseded_at is None else "card")
        lay = QVBoxLayout(card)
        lay.setContentsMargins(12, 8, 12, 8)
        lay.setSpacing(4)
        current = " · current" if v.superseded_at is None else ""
        kept = " · your earlier wording" if text_kept else ""
        head = _label(f"{version_label(v, action)} · {local_time(v.recorded_at)}{current}{kept}", card, "versionHead")
        # the record's own terms (version number, the process's reason) only on hover
        tip = f"Version {v.version}, recorded {local_time(v.recorded_at)} by {ACTOR_LABELS.get(v.actor.value, v.actor.value)}"
        head.setToolTip(tip + (f"\n{v.reason}" if v.reason else ""))
        lay.addWidget(head)
        details = [v.text]
        if v.invalid_at is not None:
            details.append(f"(true until {short_date(v.invalid_at)})")
        if v.status.value != "active":
            details.append(f"({STATUS_LABELS.get(v.status.value, v.status.value).lower()})")
        lay.addWidget(_label(" ".join(details), card, "versionText"))
        if v.superseded_at is not None:
            row = QHBoxLayout()
            row.addStretch(1)
            b = QPushButton("Restore this version", card)
            b.setObjectName("linkButton")
            b.setCursor(Qt.CursorShape.PointingHandCursor)
            b.clicked.connect(lambda _=False, mid=m.id, ver=v.version: self.restoreVersion.emit(mid, ver))
            self.restore_buttons[v.version] = b
            row.addWidget(b)
            lay.addLayout(row)
        return card

    def _link(self, href: str) -> None:
        if href.startswith("msg:"):
            _, sid, mid = href.split(":")
            self.openMessage.emit(int(sid), int(mid))
        elif href.startswith("memory:"):
            self.openMemory.emit(int(href.split(":")[1]))
