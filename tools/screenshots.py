"""``python -m tools.screenshots docs`` (``make screenshots``): every window and dialog of the app,
filled with sample data, rendered to ``docs/<name>.png`` at a normal size and to
``docs/minimum/<name>.png`` at its minimum size, each checked for cut-off text and clipped
widgets (:mod:`tools.layout_check`; problems are printed and make the command fail). A developer
tool: it lives in the checkout's ``tools/``, outside the installed package.

Everything happens in a temporary profile (the person's own data is never read), no model is
loaded, and the platform can be offscreen. The layout test walks the same scenes
(:func:`scenes`), so what the README shows is what the test checks.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from assistant.memory.entries import InjectionItem
from assistant.memory.records import Source
from assistant.profile import Profile
from assistant.services import Services
from tools import screenshots_catalog as catalog_scenes
from ui.tidyup import consolidation_service as cs

UTC = timezone.utc

SAMPLE_BUDGET = {
    "budget": {
        "window": 4096, "compaction_threshold": 3277,
        "sections": [
            {"name": "system", "allocated": 12, "limit": 4096}, {"name": "note", "allocated": 64, "limit": 8192},
            {"name": "summary", "allocated": 0, "limit": 4096}, {"name": "history", "allocated": 412, "limit": 4096},
            {"name": "retrieved_memories", "allocated": 96, "limit": 2048}, {"name": "reminders", "allocated": 0, "limit": 512},
            {"name": "current_input", "allocated": 18, "limit": 4096}, {"name": "output_reserve", "allocated": 512, "limit": 4096},
        ],
    },
}  # fmt: skip

REPLY = """Kyoto is one of the easiest cities in Japan for a vegetarian:

- **Shōjin ryōri** — Buddhist temple cuisine, fully plant-based. Shigetsu at Tenryū-ji is a classic.
- **Yudofu** (simmered tofu) around Nanzen-ji, especially nice in April when it is still cool.
- Ask for *dashi* without fish: say “katsuobushi nashi de onegaishimasu”.

Nishiki Market also has sesame tofu, pickles and yuba to try on the way."""

REPLY2 = """Lovely! If Ana flies in from Berlin, Kansai airport (KIX) is the closest, and the *Haruka* \
express takes about 75 minutes to Kyoto Station. Want me to sketch a three-day plan for the two of you?"""


def _at(days_ago: float, hour: int = 10) -> datetime:
    now = datetime.now(UTC).replace(hour=hour, minute=12, second=0, microsecond=0)
    return now - timedelta(days=days_ago)


def seed(store) -> dict[str, int]:
    """Sample conversations and memories (with provenance, versions and usage)."""

    ids: dict[str, int] = {}
    s1 = store.create_session("About me", created_at=_at(40))
    m1 = store.add_message(s1.id, "user", "Hi! I'm Maya. I live in Lisbon and I work as a nurse.", observed_at=_at(40))
    store.add_message(s1.id, "assistant", "Nice to meet you, Maya! How can I help today?", observed_at=_at(40))
    m1b = store.add_message(s1.id, "user", "I'm vegetarian, and my dog is called Rex.", observed_at=_at(40))
    store.add_message(s1.id, "assistant", "Noted — vegetarian, and Rex sounds like a good companion.", observed_at=_at(40))
    s2 = store.create_session("Moving to Porto", created_at=_at(12))
    m2 = store.add_message(s2.id, "user", "Big news: I moved to Porto last week, new job at Hospital de São João.", observed_at=_at(12))
    store.add_message(s2.id, "assistant", "Congratulations on the move and the new job!", observed_at=_at(12))
    s3 = store.create_session("Trip to Kyoto", created_at=_at(0.2))
    q1 = store.add_message(s3.id, "user", "I'm planning a trip to Kyoto in April. Any tips for a vegetarian?", observed_at=_at(0.2, 9))
    store.add_message(s3.id, "assistant", REPLY, observed_at=_at(0.2, 9))
    q2 = store.add_message(s3.id, "user", "My sister Ana might join from Berlin.", observed_at=_at(0.2, 9))
    store.add_message(s3.id, "assistant", REPLY2, observed_at=_at(0.2, 9))
    store.create_session("Sourdough starter", created_at=_at(3))

    def src(msg, extractor="rules"):
        return Source(session_id=msg.session_id, message_id=msg.id, speaker="user", extractor=extractor,
                      extractor_version="1", observed_at=msg.observed_at)  # fmt: skip

    def add(key, text, **kw):
        ids[key] = store.add(text, actor="capture", **kw)

    add("name", "User's name is Maya.", kind="profile", slot="name", source=src(m1), created_at=_at(40))
    add("lisbon", "User lives in Lisbon.", kind="profile", slot="home_city", source=src(m1), created_at=_at(40),
        valid_at=_at(40, 0))
    add("job", "User works as a nurse.", kind="profile", slot="employer", source=src(m1), created_at=_at(40))
    add("veg", "User is vegetarian.", kind="fact", source=src(m1b), created_at=_at(40))
    add("rex", "User's dog is called Rex.", kind="fact", source=src(m1b), created_at=_at(40), entities=["Rex"])
    add("porto", "User lives in Porto (moved in the week of the move).", kind="profile", slot="home_city", source=src(m2),
        created_at=_at(12), valid_at=_at(19, 0))
    add("episode", m2.content, kind="episode", source=src(m2, "episode"), created_at=_at(12), trust="user_stated")
    add("kyoto", "User is planning a trip to Kyoto in April.", kind="fact", source=src(q1), created_at=_at(0.2),
        ttl=timedelta(days=150), entities=["Kyoto"])
    add("ana", "User's sister Ana lives in Berlin.", kind="fact", source=src(q2), created_at=_at(0.2),
        entities=["Ana", "Berlin"], trust="assistant_inferred", confidence=0.8)
    add("style", "Short answers with a few bullet points work best for Maya.", kind="experience",
        trust="assistant_inferred", created_at=_at(5), confidence=0.7)
    store.edit(ids["porto"], "User lives in Porto.", reason="clearer wording")
    store.edit(ids["job"], "User works as a nurse at Hospital de São João.")
    store.invalidate(ids["lisbon"], _at(19, 0), actor="consolidator", update_type="conflict",
                     reason="superseded by a newer home city")  # fmt: skip
    store.pin(ids["veg"])
    for _ in range(3):
        store.record_use([ids["veg"], ids["rex"], ids["name"]])
    store.record_use([ids["kyoto"]])
    store.record_injection("sample-turn-1", [InjectionItem(ids["veg"], 0.74, 0), InjectionItem(ids["kyoto"], 0.61, 1),
                                             InjectionItem(ids["name"], 0.38, 2)],
                           session_id=s3.id, message_id=q1.id)  # fmt: skip
    ids["session"] = s3.id
    return ids


def _pump(app, seconds: float, until=None) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        if until is not None and until():
            return
        time.sleep(0.01)


@dataclass(frozen=True)
class Scene:
    """One window or dialog: ``open(studio)`` shows it filled with sample data and returns it."""

    name: str
    open: Callable[["Studio"], Any]
    size: tuple[int, int] | None = None  # the normal size to render at (None: its own size hint)


class Studio:
    """The app over sample data (``seed``) without models, in the profile at ``home``."""

    def __init__(self, home: str | Path) -> None:
        from assistant.context.note import NoteStore  # deferred: the store (SQLCipher, numpy)
        from ui.app import create_app  # deferred: Qt
        from ui.services.backend import Backend, NoModelsProvider
        from ui.main_window import MainWindow

        class SampleProvider(NoModelsProvider):
            def start_jobs(self, store):  # the tidy-up panel as it is with models (rules only)
                return cs.start_jobs(store, self.services)

        self.services = Services(Profile.load(home))
        self.store = self.services.open_store(with_embedder=False)
        self.ids = seed(self.store)
        NoteStore(self.store.context_archive).save("I'm Maya, a nurse. Keep answers short and practical.\nI'm vegetarian; I prefer trains to planes.")
        self.app = create_app([sys.argv[0]])
        self.backend = Backend(SampleProvider(self.services))
        self.window = MainWindow(self.backend)
        self.window.resize(1280, 800)
        self.window.show()
        self.pump(15, until=lambda: self.backend.memory_ready and self.window.sessions.sessions)
        self.window.controller.open_session(self.ids["session"])
        self.pump(10, until=lambda: len(self.window.chat_view.messages) >= 4)
        self.pump(10, until=lambda: self.backend.jobs is not None)

    def pump(self, seconds: float, until=None) -> None:
        _pump(self.app, seconds, until)

    def tab(self, index: int):
        """The main window on tab ``index``, with the status bar as after start-up."""
        w = self.window
        w.status.finish("model", "Model: SmolLM2-135M-Instruct")  # a scene before may have left a loading step
        w.progress.setVisible(False)
        w.progress_label.setText("Model: SmolLM2-135M-Instruct")
        w.show_status("")
        w.tabs.setCurrentIndex(index)
        self.pump(0.3)
        return w

    def dialog(self, dlg):
        dlg.show()
        self.pump(0.3)
        return dlg

    def close(self) -> None:
        self.window.close()
        self.store.close()


def _chat(st: Studio):
    w = st.tab(0)
    first_reply = w.chat_view.messages[1]
    if first_reply.memories is not None:
        first_reply.memories.toggle.setChecked(True)
    # what capture kept from "My sister Ana might join from Berlin.", each with its undo link
    w.chat_view.messages[3].set_saved([{"id": st.ids["ana"], "text": "User's sister Ana lives in Berlin.", "kind": "fact"}])
    w.budget.set_budget(SAMPLE_BUDGET)
    w.composer.edit.setPlainText("Could you sketch a three-day plan?")
    st.pump(0.3)
    w.chat_view.verticalScrollBar().setValue(0)
    st.pump(0.2)
    return w


def _loading(st: Studio):
    """The status bar while a model loads, with a long message beside it."""
    w = _chat(st)
    w.backend.modelProgress.emit("Loading the chat model…", 0, 0)
    w.show_error("The chat model could not be loaded: /home/maya/models/qwen2.5-1.5b-instruct-q4_k_m.gguf is "
                 "truncated (expected 1.1 GB, found 312 MB). Pick another one in the model list.")  # fmt: skip
    st.pump(0.2)
    return w


def _inspector(st: Studio):
    w = st.tab(1)
    st.pump(5, until=lambda: w.inspector.model.rowCount() >= 5)
    w.inspector.show_memory(st.ids["job"])
    st.pump(5, until=lambda: w.inspector.detail.data is not None)
    st.pump(0.3)
    return w


def _tidy_up(st: Studio):
    w = st.tab(3)
    panel = w.consolidation
    panel.refresh()
    st.pump(5, until=lambda: panel.status_view is not None and panel.status_view.available)
    panel.preview()
    st.pump(10, until=lambda: panel._proposed is not None)
    st.pump(0.3)
    return w


def _memory(st: Studio):
    return st.store.get(st.ids["job"])


def _settings(st: Studio):
    from ui.settings.settings_dialog import SettingsDialog  # deferred: Qt

    dlg = st.dialog(SettingsDialog(st.backend, st.window))
    st.pump(5, until=lambda: "Checking" not in dlg.encryption.text())
    st.pump(0.3)
    return dlg


def _settings_server(st: Studio):
    """Settings → Model server, as after "Check" against a llama-server on another machine
    (the status line is set here: the screenshot tool opens no socket)."""
    from ui.settings.settings_dialog import SettingsDialog  # deferred: Qt

    dlg = st.dialog(SettingsDialog(st.backend, st.window))
    dlg.tabs.setCurrentWidget(dlg.server)
    server = dlg.server
    server.enabled.setChecked(True)
    server.url.setText("http://gpu-box:8080/v1")
    server.model.addItem("qwen2.5-7b-instruct-q4_k_m", "qwen2.5-7b-instruct-q4_k_m")
    server.model.setCurrentIndex(1)
    server.status.setText("Reachable in 23 ms · 1 model(s) · context 16,384 tokens · tokens counted with the server's "
                          "tokenizer (/tokenize)")  # fmt: skip
    st.pump(0.3)
    return dlg


def _add_memory(st: Studio):
    from ui.inspector.dialogs import MemoryDialog  # deferred: Qt

    return st.dialog(MemoryDialog(st.window))


def _edit_memory(st: Studio):
    from ui.inspector.dialogs import MemoryDialog  # deferred: Qt

    m = st.store.get(st.ids["porto"])
    return st.dialog(MemoryDialog(st.window, text=m.text, editing=True, valid_at=m.valid_at))


def _no_longer_true(st: Studio):
    return st.dialog(st.window.inspector.actions.invalidate_dialog(_memory(st)))


def _expiry(st: Studio):
    return st.dialog(st.window.inspector.actions.expiry_dialog())


def _delete(st: Studio):
    plan = st.store.delete_preview([st.ids["porto"]]).to_json()
    return st.dialog(st.window.inspector.actions.delete_dialog(plan))


def _forget(st: Studio):
    from assistant.memory.forget.topic import propose  # deferred: the store (SQLCipher, numpy)
    from ui.chat.forget_dialog import ForgetDialog  # deferred: Qt

    found = [c.to_json() for c in propose(st.store, None, "my dog")]
    return st.dialog(ForgetDialog(found, "my dog", st.window))


def scenes() -> list[Scene]:
    """Every window and dialog a person meets, in the order of the README."""
    return [
        Scene("main-window", _chat, (1280, 800)),
        Scene("loading", _loading, (1280, 800)),
        Scene("inspector", _inspector, (1280, 800)),
        Scene("about-me", lambda st: st.tab(2), (1280, 800)),
        Scene("tidy-up", _tidy_up, (1280, 800)),
        Scene("settings", _settings),
        Scene("settings-server", _settings_server),
        Scene("settings-models", catalog_scenes.settings_models),
        Scene("first-run", catalog_scenes.first_run),
        Scene("first-run-download", lambda st: catalog_scenes.first_run(st, downloading=True)),
        Scene("add-memory", _add_memory),
        Scene("edit-memory", _edit_memory),
        Scene("no-longer-true", _no_longer_true),
        Scene("set-expiry", _expiry),
        Scene("delete-memory", _delete),
        Scene("forget", _forget),
    ]


def minimum_size(widget) -> tuple[int, int]:
    """The smallest size the person can make it (what the layout and the widget allow)."""
    size = widget.minimumSize().expandedTo(widget.minimumSizeHint())
    return size.width(), size.height()


def show_at(st: Studio, scene: Scene, *, minimum: bool):
    """Open ``scene`` and size it (minimum, or its normal size); returns the shown widget."""
    widget = scene.open(st)
    if minimum:
        widget.resize(*minimum_size(widget))
    elif scene.size is not None:
        widget.resize(*scene.size)
    else:
        widget.adjustSize()
    st.pump(0.4)
    return widget


def render(out_dir: str | Path, *, home: str | Path | None = None, check: bool = True) -> tuple[list[Path], list[str]]:
    """Render every scene at its normal and minimum size into ``out_dir`` (and ``minimum/``)
    with sample data in ``home`` (default: a new temporary folder); returns the files written
    and the layout problems found."""
    from tools.layout_check import find_problems  # deferred: Qt

    out = Path(out_dir)
    (out / "minimum").mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = str(home or tempfile.mkdtemp(prefix="keepsake-screens-"))
    # Until the store takes its key file from the profile (assistant/memory/keys.py still looks
    # it up itself), KEEPSAKE_HOME keeps a keyring-less machine's key file in this temporary home.
    os.environ["KEEPSAKE_HOME"] = home
    st = Studio(home)
    files: list[Path] = []
    problems: list[str] = []
    try:
        for minimum in (False, True):
            for scene in scenes():
                widget = show_at(st, scene, minimum=minimum)
                target = (out / "minimum" if minimum else out) / f"{scene.name}.png"
                widget.grab().save(str(target))
                files.append(target)
                if check:
                    w, h = widget.width(), widget.height()
                    problems += [f"{scene.name} at {w}x{h}: {p}" for p in find_problems(widget)]
                if widget is not st.window:
                    widget.close()
                    widget.deleteLater()
    finally:
        st.close()
    return files, problems


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    files, problems = render(argv[0] if argv else "docs")
    for f in files:
        print(f)
    for p in problems:
        print(f"layout: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
