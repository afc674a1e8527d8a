"""View > Theme recolours the messages already in the chat: the labels, the links, the
thinking text, the code header and the boxes behind questions and code."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtGui import QColor, QTextCharFormat
from PySide6.QtWidgets import QApplication

from client.ui.chat.render.chat_view import ChatView, ShownMessage
from client.ui.common import theme
from client.ui.common.colours import DARK, LIGHT, ChatColours
from client.ui.shell.app import TachyApp

ANSWER = (
    "See [the docs](https://example.org/docs).\n\n"
    "```python\nx = 1\n```\n\n| Name | Age |\n|---|---|\n| Ada | 36 |\n"
)


@pytest.fixture
def follower(qapp: QApplication) -> Iterator[theme.SchemeFollower]:
    """The app's scheme follower, as run_app makes it; the test's stylesheet undone."""
    made = theme.SchemeFollower(qapp)
    yield made
    made.choose("light")
    qapp.setStyleSheet("")
    theme._FOLLOWER.clear()
    made.deleteLater()


def _format(view: ChatView, text: str) -> QTextCharFormat:
    found = view.document().find(text)
    assert not found.isNull(), text
    return found.charFormat()


def _colours(view: ChatView) -> dict[str, str]:
    def fore(text: str) -> str:
        return str(_format(view, text).foreground().color().name())

    return {
        "label": fore("0.1 s to first token"),
        "speaker": fore("Answer"),
        "link": fore("the docs"),
        "code header": fore("python"),
        "thinking": fore("Weighing it"),
        "header row": str(_header_brush(view)),
    }


def _header_brush(view: ChatView) -> str:
    from PySide6.QtGui import QTextCursor

    cursor = view.document().find("Name")
    table = QTextCursor(cursor).currentTable()
    assert table is not None
    return str(table.cellAt(0, 0).format().background().color().name())


def _expected(look: ChatColours) -> dict[str, str]:
    return {
        "label": look.secondary,
        "speaker": look.secondary,
        "link": look.link,
        "code header": look.secondary,
        "thinking": look.thinking,
        "header row": look.table_header,
    }


def test_a_theme_switch_recolours_the_messages_in_the_chat(
    make_app: Callable[..., TachyApp],
    server: Any,
    follower: theme.SchemeFollower,
    qtbot: Any,
) -> None:
    app = make_app(server.url)
    view, menu = app.window.chat_view, app.view.menu
    menu.theme_actions["light"].trigger()
    view.add_message(ShownMessage(1, "user", "A question"))
    answer = ShownMessage(
        2, "assistant", ANSWER, thinking="Weighing it.", footer="0.1 s to first token"
    )
    view.add_message(answer)
    view.toggle_thinking(2)  # the thinking shown
    assert _colours(view) == _expected(LIGHT)
    assert view._look() == LIGHT  # the boxes painted behind questions and code

    menu.theme_actions["dark"].trigger()
    qtbot.waitUntil(lambda: view._look() == DARK, timeout=60_000)
    qtbot.waitUntil(lambda: _colours(view) == _expected(DARK), timeout=60_000)
    assert QColor(view.palette().base().color()).lightness() < 128  # the chat went dark

    menu.theme_actions["light"].trigger()
    qtbot.waitUntil(lambda: _colours(view) == _expected(LIGHT), timeout=60_000)
    assert view._look() == LIGHT
