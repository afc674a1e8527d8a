"""View > Smooth streaming: off by default and remembered; when on, a burst of text is
shown over several frames, the first token is still painted at once, an answer that
ends is shown whole at once, and a hidden window is never paced."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

from client.ui.chat.render.chat_view import ChatView
from client.ui.chat.render.paced_text import SMOOTH_KEY, smooth_streaming
from client.ui.shell.app import TachyApp

BURST = "".join(f"word{i} " for i in range(30))


class Window(QWidget):
    """Stands for the main window: the chat view reads its `settings`."""

    def __init__(self, settings: QSettings) -> None:
        super().__init__()
        self.settings = settings


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "tachy.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def view(qtbot: Any, settings: QSettings) -> Iterator[ChatView]:
    window = Window(settings)
    qtbot.addWidget(window)
    chat = ChatView(window)
    chat.resize(640, 480)
    window.show()
    yield chat  # (the window lives as long as the test)
    window.close()


def _burst(view: ChatView, key: int) -> None:
    view.begin_stream(key)
    assert view.append_token(key, "First ") is True  # painted in this turn, paced or not
    assert "First" in view.toPlainText()
    view.append_token(key, BURST)


def test_a_burst_is_shown_over_several_frames(
    view: ChatView, settings: QSettings, qtbot: Any
) -> None:
    settings.setValue(SMOOTH_KEY, True)
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


def test_an_ended_answer_is_shown_whole_at_once(view: ChatView, settings: QSettings) -> None:
    settings.setValue(SMOOTH_KEY, True)
    _burst(view, 2)
    view.end_stream(2, "stopped")
    assert BURST.strip() in view.toPlainText()
    assert view.message(2).text == "First " + BURST


def test_off_or_hidden_nothing_is_held(view: ChatView, settings: QSettings) -> None:
    _burst(view, 3)  # off by default
    view.flush()
    assert BURST.strip() in view.toPlainText()
    settings.setValue(SMOOTH_KEY, True)
    view.window().hide()
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
    assert app.window.chat_view.pacing.settings is app.window.settings
