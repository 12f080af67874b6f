"""``python -m ui.screenshots docs`` (``make screenshots``): render the main window and the memory
inspector, filled with sample data, to ``docs/main-window.png`` and ``docs/inspector.png``.

Everything happens in a temporary KEEPSAKE_HOME (the person's own data is never read), no model
is loaded, and the platform can be offscreen.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

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
    from assistant.memory.records import InjectionItem, Source

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


def render(out_dir: str | Path) -> list[Path]:
    """Render the screenshots into ``out_dir``; returns the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    home = tempfile.mkdtemp(prefix="keepsake-screens-")
    os.environ["KEEPSAKE_HOME"] = home
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from assistant.context.note import NoteStore
    from assistant.services import open_store

    store = open_store(with_embedder=False)
    ids = seed(store)
    NoteStore().save("I'm Maya, a nurse. Keep answers short and practical.\nI'm vegetarian; I prefer trains to planes.")

    from ui.app import create_app
    from ui.backend import Backend, NoModelsProvider
    from ui.main_window import MainWindow

    app = create_app([sys.argv[0]])
    backend = Backend(NoModelsProvider())
    window = MainWindow(backend)
    window.resize(1280, 800)
    window.show()
    _pump(app, 10, until=lambda: backend.store_ready and window.sessions.sessions)
    window.progress_label.setText("Model: SmolLM2-135M-Instruct")
    window.controller.open_session(ids["session"])
    _pump(app, 10, until=lambda: len(window.chat_view.messages) >= 4)
    window.budget.set_budget(SAMPLE_BUDGET)
    first_reply = window.chat_view.messages[1]
    if first_reply.memories is not None:
        first_reply.memories.toggle.setChecked(True)
    window.composer.edit.setPlainText("Could you sketch a three-day plan?")
    _pump(app, 0.5)
    window.chat_view.verticalScrollBar().setValue(0)
    _pump(app, 0.3)
    files = [out / "main-window.png", out / "inspector.png"]
    window.grab().save(str(files[0]))

    window.tabs.setCurrentWidget(window.inspector)
    _pump(app, 5, until=lambda: window.inspector.model.rowCount() >= 5)
    window.inspector.show_memory(ids["job"])
    _pump(app, 5, until=lambda: window.inspector.detail.data is not None)
    _pump(app, 0.5)
    window.grab().save(str(files[1]))
    window.close()
    store.close()
    return files


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    files = render(argv[0] if argv else "docs")
    for f in files:
        print(f)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
