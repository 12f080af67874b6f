"""The forget dialog and the cascade preview, rendered offscreen (no models): the candidates of
"forget my dog" are ticked only when they state something, a partial one shows what goes and
what stays, and the preview lists exactly which sentences leave which memory and message."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from assistant.memory.capture.capturer import Capturer  # noqa: E402
from assistant.memory.records import Kind  # noqa: E402
from assistant.memory.forget.topic import propose, request_for  # noqa: E402
from assistant.memory.store.facade import MemoryStore  # noqa: E402
from assistant.config import load_settings, paths  # noqa: E402
from ui.widgets.delete_dialog import CascadeDialog  # noqa: E402
from ui.chat.forget_dialog import ID_ROLE, ForgetDialog  # noqa: E402

INTRO = "Hi, I'm Dana. I live in Porto and work as a nurse. My dog is called Miso."
OLD_QUESTION = "What's my dog's name?"


@pytest.fixture
def dana():
    store = MemoryStore(paths().database)
    s = store.create_session("intro")
    cap = Capturer(store, use_llm=False, settings=load_settings)
    for text in (INTRO, "What's my dog's name?"):  # the question becomes no memory (capture keeps statements)
        cap.capture_message(store.add_message(s.id, "user", text).id)
    # an episode an older Keepsake stored for a question: proposed, but not ticked
    store.add(OLD_QUESTION, kind=Kind.EPISODE)
    yield store
    store.close()


def test_the_forget_dialog_ticks_statements_and_shows_the_part_that_goes(qtbot, dana):
    cands = propose(dana, None, "my dog")
    dlg = ForgetDialog([c.to_json() for c in cands], "my dog")
    qtbot.addWidget(dlg)
    items = {int(dlg.list.item(i).data(ID_ROLE)): dlg.list.item(i) for i in range(dlg.list.count())}
    by_text = {c.text: c.memory_id for c in cands}
    assert items[by_text[INTRO]].checkState() == Qt.CheckState.Checked
    assert "Removes: “My dog is called Miso.”" in items[by_text[INTRO]].text()
    assert "Stays: “Hi, I'm Dana. I live in Porto and work as a nurse.”" in items[by_text[INTRO]].text()
    assert items[by_text[OLD_QUESTION]].checkState() == Qt.CheckState.Unchecked
    assert sorted(dlg.selected_ids()) == sorted(c.memory_id for c in cands if c.pre_ticked)


def test_the_preview_lists_the_sentences_that_go_and_what_stays(qtbot, dana):
    cands = [c for c in propose(dana, None, "my dog") if c.pre_ticked]
    plan = dana.forget_preview(request_for(cands)).to_json()
    dlg = CascadeDialog(plan, title="Forget", intro="Forget 2 memories about “my dog”?")
    qtbot.addWidget(dlg)
    lines = [label.text() for label in dlg.cut_labels]
    assert any("loses “My dog is called Miso.”" in t and "Stays: “Hi, I'm Dana. I live in Porto and work as a nurse.”" in t
               and t.startswith("• Your message") for t in lines), lines  # fmt: skip
    # the intro's kept copy (an episode) loses the same sentence: listed once, as your message
    # (trial finding: "Memory #1 loses..." named a copy the inspector never shows as a memory)
    assert sum("loses “My dog is called Miso.”" in t for t in lines) == 1, lines
    assert not any(t.startswith("• Memory #") for t in lines), lines


def test_the_forget_headline_counts_a_message_copy_as_your_message_not_a_memory(dana):
    from assistant.memory.wording import found_phrase

    cands = [c.to_json() for c in propose(dana, None, "my dog")]
    ticked = [c for c in cands if c["pre_ticked"]]
    assert sorted(c["kind"] == "episode" for c in ticked) == [False, True]  # the dog, the intro message
    assert found_phrase(cands) == "1 memory and 1 of your messages"
    assert found_phrase([c for c in cands if c["kind"] != "episode"]) == "1 memory"
    assert found_phrase([]) == "0 memories"


class _InlineBackend:
    """A stand-in for ui.backend.Backend that runs reads and writes inline (the threading is not
    what this test is about), recording the status lines."""

    def __init__(self, store):
        self.store, self.said = store, []
        self.status = self.error = self

    def emit(self, text):
        self.said.append(text)

    def read(self, fn, on_done=None, name=""):
        (on_done or (lambda _: None))(fn(self.store))

    write = read


def test_the_forget_status_counts_what_went_as_the_dialog_did(dana):
    """Trial finding: the dialog said "It found 1 memory and 1 of your messages" and the status bar
    then said "Forgot 2 memories"; both now say what went the same way."""
    from ui.chat.forget_dialog import confirm_forget

    backend, plans = _InlineBackend(dana), []
    cands = [c.to_json() for c in propose(dana, None, "my dog")]
    confirm_forget(backend, None, cands, query="my dog",
                   choose=lambda cs: [int(c["id"]) for c in cs if c["pre_ticked"]], confirm=plans.append)  # fmt: skip
    assert plans and backend.said == []  # confirm returned None: nothing forgotten, nothing said
    confirm_forget(backend, None, cands, query="my dog",
                   choose=lambda cs: [int(c["id"]) for c in cs if c["pre_ticked"]], confirm=lambda plan: True)  # fmt: skip
    assert backend.said == ["Forgot 1 memory and 1 of your messages about “my dog”."], backend.said
    assert "Miso" not in " ".join(m.text for m in dana.list_memories())
