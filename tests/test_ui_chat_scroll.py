"""The chat view keeps the newest message in sight: after a reload of a 60-message conversation,
a send, a streamed reply, a retry and a resize; a person who scrolled up stays where they are and
gets a "Jump to newest" button. The chat view alone, no model (scrolling does not depend on it)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QAbstractSlider  # noqa: E402

from ui.chat.chat_controller import HistoryItem  # noqa: E402
from ui.chat.chat_view import ChatView  # noqa: E402

AT = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def conversation(n: int) -> list[HistoryItem]:
    """``n`` messages of varied length; replies in Markdown (lists, code) so they wrap and grow."""
    items = []
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        text = f"Message {i}. " + "Words that wrap across the width of the chat column. " * (1 + i % 5)
        if role == "assistant":
            text += "\n\n- a list item\n- another **bold** item\n\n```\nsome code\n```"
        items.append(HistoryItem(i + 1, role, text, AT))
    return items


@pytest.fixture
def view(qtbot):
    v = ChatView()
    qtbot.addWidget(v)
    v.resize(900, 600)
    v.show()
    qtbot.waitExposed(v)
    v.set_history(conversation(60))
    qtbot.waitUntil(lambda: v.verticalScrollBar().maximum() > 0, timeout=3000)  # laid out
    qtbot.wait(50)
    return v


def blank_below_newest(v: ChatView) -> int:
    """Pixels of canvas under the newest message (the canvas margin is 18 px)."""
    last = v.messages[-1]
    return v.widget().height() - last.mapTo(v.widget(), last.rect().bottomLeft()).y()


def stream(qtbot, v: ChatView, pieces: int = 60):
    reply = v.start_reply()
    for k in range(pieces):
        reply.append(f"word{k} " + ("\n\n" if k % 8 == 7 else ""))
        qtbot.wait(5)
    reply.finish()
    qtbot.wait(100)
    return reply


def test_a_60_message_conversation_opens_on_its_newest_message_with_no_blank_space(qtbot, view):
    bar = view.verticalScrollBar()
    assert bar.maximum() > 3 * view.viewport().height()  # long enough to scroll
    assert view.newest_visible() and bar.value() == bar.maximum()
    # the scroll range ends at the newest message (it used to run ~1000 px past it, into blank space)
    assert blank_below_newest(view) <= 19
    assert not view.follow.jump.isVisible()


def test_a_send_and_a_streamed_reply_stay_in_view(qtbot, view):
    view.add_user("A question long enough to wrap. " * 6)
    qtbot.waitUntil(view.newest_visible, timeout=1000)
    reply = stream(qtbot, view)
    assert view.messages[-1] is reply and reply.body.height() > 60  # it grew over several lines
    assert view.newest_visible() and blank_below_newest(view) <= 19
    assert not view.follow.jump.isVisible()


def test_a_resize_keeps_the_newest_message_in_view(qtbot, view):
    for w, h in ((480, 500), (1300, 760), (700, 420)):
        view.resize(w, h)
        qtbot.waitUntil(view.newest_visible, timeout=2000)
        assert blank_below_newest(view) <= 19


def test_scrolled_up_stays_put_while_a_reply_streams_and_the_button_jumps_back(qtbot, view):
    bar = view.verticalScrollBar()
    bar.triggerAction(QAbstractSlider.SliderAction.SliderPageStepSub)  # the person presses Page Up
    bar.triggerAction(QAbstractSlider.SliderAction.SliderPageStepSub)
    where = bar.value()
    assert where < bar.maximum() and not view.follow.following
    first_seen = view.messages[-5]
    seen_at = first_seen.mapTo(view.viewport(), first_seen.rect().topLeft()).y()
    qtbot.waitUntil(view.follow.jump.isVisible, timeout=1000)
    stream(qtbot, view)
    assert bar.value() == where and not view.newest_visible()
    assert first_seen.mapTo(view.viewport(), first_seen.rect().topLeft()).y() == seen_at  # nothing moved
    assert view.follow.jump.isVisible()
    view.follow.jump.click()
    assert view.newest_visible() and view.follow.following and not view.follow.jump.isVisible()


def test_a_send_after_scrolling_up_shows_the_newest_message(qtbot, view):
    view.verticalScrollBar().setValue(0)
    assert not view.newest_visible()
    view.add_user("Back to the present.")
    qtbot.waitUntil(view.newest_visible, timeout=1000)
    stream(qtbot, view, pieces=20)
    assert view.newest_visible()


def test_retry_shows_the_new_reply(qtbot, view):
    failed = stream(qtbot, view, pieces=3)
    failed.finish(failed="The model stopped.")
    view.verticalScrollBar().setValue(0)  # the person looked back, then clicks Retry on the failure
    retried: list = []
    view.retryRequested.connect(lambda w: (retried.append(w), view.remove(w)))
    failed.retry.click()
    assert retried == [failed]
    stream(qtbot, view, pieces=20)
    assert view.newest_visible()


def test_highlighting_an_old_message_is_not_undone_by_following(qtbot, view):
    old = view.messages[3]
    assert view.highlight(old.message_id)
    qtbot.waitUntil(lambda: 0 <= old.mapTo(view.viewport(), old.rect().topLeft()).y() < view.viewport().height(), timeout=1000)
    stream(qtbot, view, pieces=10)
    assert 0 <= old.mapTo(view.viewport(), old.rect().topLeft()).y() < view.viewport().height()
