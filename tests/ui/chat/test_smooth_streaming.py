"""View > Smooth streaming: off by default and remembered; when on, a burst of text is
shown over several frames, the first token is still painted at once, an answer that
ends is shown whole at once, and a hidden window is never paced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from client.ui.chat.render.chat_view import ChatView
from client.ui.shell.app import TachyApp
from client.ui.view.view_menu import smooth_streaming

BURST = "".join(f"word{i} " for i in range(30))


@pytest.fixture
def view(qtbot: Any) -> ChatView:
    chat = ChatView()
    qtbot.addWidget(chat)
    chat.resize(640, 480)
    chat.show()
    return chat


def _burst(view: ChatView, key: int) -> None:
    view.begin_stream(key)
    assert view.append_token(key, "First ") is True  # painted in this turn, paced or not
    assert "First" in view.toPlainText()
    view.append_token(key, BURST)


def test_a_burst_is_shown_over_several_frames(view: ChatView, qtbot: Any) -> None:
    view.pacing.enabled = True
    _burst(view, 1)
    view.flush()
    assert BURST not in view.toPlainText()  # held, shown at a pace
    seen: set[int] = set()

    def shown() -> bool:
        seen.add(view.toPlainText().count("word"))
        return BURST.strip() in view.toPlainText()

    qtbot.waitUntil(shown, timeout=10_000)
    assert len(seen) > 3  # it grew in steps, not at once
    view.end_stream(1, "complete")


def test_an_ended_answer_is_shown_whole_at_once(view: ChatView) -> None:
    view.pacing.enabled = True
    _burst(view, 2)
    view.end_stream(2, "stopped")
    assert BURST.strip() in view.toPlainText()
    assert view.message(2).text == "First " + BURST


def test_off_or_hidden_nothing_is_held(view: ChatView) -> None:
    _burst(view, 3)  # off by default
    view.flush()
    assert BURST.strip() in view.toPlainText()
    view.pacing.enabled = True
    view.hide()
    _burst(view, 4)
    view.flush()
    assert view.toPlainText().count(BURST.strip()) == 2


def test_the_view_menu_switches_it_and_remembers(
    make_app: Callable[..., TachyApp], server: Any
) -> None:
    app = make_app(server.url)
    action = app.view.menu.smooth_action
    assert action.isCheckable() and not action.isChecked()
    assert not smooth_streaming(app.window.settings)
    action.trigger()
    assert smooth_streaming(app.window.settings)
    assert app.window.chat_view.pacing.enabled
    action.trigger()
    assert not smooth_streaming(app.window.settings)
    assert not app.window.chat_view.pacing.enabled
