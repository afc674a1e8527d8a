"""A tool call in the chat: a compact card between the answer's parts, folded until its
header is clicked or reached with Tab and pressed with Enter, its error state shown, its
result plain text (never HTML, never a resource loaded), Copy giving it as plain text,
and a stream going on after it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QColor, QGuiApplication, QTextCursor

from client.services.tools.tool_history import StoredToolCall
from client.ui.chat.render.chat_view import ChatView, ShownMessage
from client.ui.chat.render.look import colours
from client.ui.common.colours import DARK, LIGHT
from client.ui.common.theme import dark_palette

ADD = StoredToolCall(7, 1, 0, 16, "call_1", "add", '{"a": 2, "b": 3}', "Tachy demo tools",
                     "done", "5.0", ms=39.4)  # fmt: skip
HOSTILE = '<img src="file:///etc/passwd"><b>bold</b> <a href="https://x.test">x</a>'
FAILED = StoredToolCall(7, 1, 1, 16, "call_2", "fail", "{}", "Tachy demo tools", "done",
                        HOSTILE, True, "tool", 3.0)  # fmt: skip
TEXT = "Let me add them.The sum is **5**."


@pytest.fixture
def view(qtbot: Any) -> ChatView:
    chat = ChatView()
    qtbot.addWidget(chat)
    chat.resize(700, 500)
    chat.show()
    return chat


def _shown(view: ChatView, calls: list[StoredToolCall], text: str = TEXT) -> None:
    view.set_messages([ShownMessage(6, "user", "Use add for 2 and 3."),
                       ShownMessage(7, "assistant", text, tool_calls=calls)])  # fmt: skip


def _plain(view: ChatView) -> str:
    return view.document().toPlainText()


def _header_at(view: ChatView, call: StoredToolCall) -> QTextCursor:
    """A cursor on the card's header link (found by its href)."""
    href = f"{view.action_scheme}:tool{call.round}_{call.position}/{call.message_id}"
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position() + 1)
                return cursor
            it += 1
        block = block.next()
    raise AssertionError(f"no header {href}")


def test_a_card_sits_between_the_answers_parts_folded(view: ChatView) -> None:
    _shown(view, [ADD])
    text = _plain(view)
    words, card, after = text.index("Let me add them."), text.index("⚙ add"), text.index("5.")
    assert words < card < after  # the words, the card, the words after it
    assert "▸ ⚙ add · Tachy demo tools · 39 ms · Done" in text
    assert '"a": 2' not in text  # folded: the arguments and the result hidden
    assert not view.tool_call_open(7, 1, 0)


def test_a_click_on_the_header_unfolds_it_and_folds_it_again(view: ChatView) -> None:
    _shown(view, [ADD])
    href = f"{view.action_scheme}:tool1_0/7"
    view.anchorClicked.emit(QUrl(href))
    text = _plain(view)
    assert view.tool_call_open(7, 1, 0)
    assert "▾ ⚙ add" in text and "Arguments" in text and '"a": 2,' in text
    assert "Result" in text and "\n5.0" in text
    view.anchorClicked.emit(QUrl(href))
    assert '"a": 2' not in _plain(view)


def test_tab_reaches_the_header_and_enter_unfolds_it(view: ChatView, qtbot: Any) -> None:
    _shown(view, [ADD])
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    for _ in range(8):  # past the question's links (Copy, Edit) to the card's header
        qtbot.keyClick(view, Qt.Key.Key_Tab)
        cursor = view.textCursor()
        if cursor.charFormat().anchorHref().endswith(":tool1_0/7"):
            break
    assert cursor.hasSelection() and cursor.charFormat().anchorHref().endswith(":tool1_0/7")
    assert cursor.selectedText().startswith("▸ ⚙ add · Tachy demo tools")  # its name, read
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert view.tool_call_open(7, 1, 0)


def test_an_error_shows_as_one_and_its_result_is_never_html(view: ChatView) -> None:
    loaded: list[Any] = []
    original = view.safe_document.loadResource
    view.safe_document.loadResource = lambda kind, url: loaded.append(url) or original(kind, url)
    _shown(view, [ADD, FAILED])
    view.toggle_tool_call(7, "tool1_1")
    text = _plain(view)
    assert "⚙ fail · Tachy demo tools · 3 ms · Error" in text
    header = _header_at(view, FAILED).charFormat()
    assert header.foreground().color() in (QColor(LIGHT.error), QColor(DARK.error))
    assert HOSTILE in text  # the result's text as it came: tags shown, not read
    assert loaded == [] and view.safe_document.refused_resources == []
    assert not any(f.isImageFormat() for f in _formats(view))
    anchors = [f.anchorHref() for f in _formats(view) if f.isAnchor()]
    assert all(href.startswith(view.action_scheme) for href in anchors)  # no link of it
    shown = [f for f in _fragments(view) if "bold" in f.text()]
    assert shown and all(f.charFormat().fontWeight() <= 400 for f in shown)  # <b> not read


def _fragments(view: ChatView) -> list[Any]:
    found = []
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            found.append(it.fragment())
            it += 1
        block = block.next()
    return found


def _formats(view: ChatView) -> list[Any]:
    return [fragment.charFormat() for fragment in _fragments(view)]


def test_denied_stopped_and_lost_calls_say_so(view: ChatView) -> None:
    denied = replace(ADD, result="denied by the user", is_error=True, problem="denied", ms=0)
    lost = replace(ADD, round=2, status="running", result=None, ms=0)
    _shown(view, [denied, lost])
    text = _plain(view)
    assert "⚙ add · Tachy demo tools · Denied" in text
    assert "⚙ add · Tachy demo tools · No result" in text  # Tachy closed while it ran


def test_copy_gives_the_answer_with_each_card_as_plain_text(view: ChatView) -> None:
    _shown(view, [ADD, FAILED])
    view.copy_message(7)
    copied = QGuiApplication.clipboard().text()
    assert copied == (
        "Let me add them.\n\n"
        "[Tool add · Tachy demo tools · 39 ms · Done]\n"
        'Arguments: {\n  "a": 2,\n  "b": 3\n}\n'
        "Result: 5.0\n\n"
        "[Tool fail · Tachy demo tools · 3 ms · Error]\n"
        "Arguments: {}\n"
        f"Result: {HOSTILE}\n\n"
        "The sum is **5**."
    )


def test_a_stream_goes_on_after_a_card(view: ChatView) -> None:
    view.set_messages([ShownMessage(6, "user", "Use add for 2 and 3.")])
    view.begin_stream(7)
    view.append_token(7, "Let me ")
    view.append_token(7, "add them.")
    view.flush()
    running = replace(ADD, status="running", result=None, ms=0)
    view.show_tool_calls(7, [running])
    assert "⚙ add · Tachy demo tools · Running…" in _plain(view)
    view.show_tool_calls(7, [ADD])
    for chunk in ["The sum ", "is **5**", ".\n\nDone."]:
        view.append_token(7, chunk)
    view.flush()
    text = _plain(view)
    assert text.index("add them.") < text.index("⚙ add") < text.index("The sum is 5.")
    view.end_stream(7, "complete")
    text = _plain(view)
    assert text.count("⚙ add") == 1 and "The sum is 5.\nDone." in text
    assert text.index("⚙ add · Tachy demo tools · 39 ms · Done") < text.index("The sum is 5.")


def test_a_card_before_any_words_shows_the_answer(view: ChatView) -> None:
    view.set_messages([ShownMessage(6, "user", "Use add for 2 and 3.")])
    view.reserve_answer(7)
    view.show_tool_calls(7, [replace(ADD, at=0, status="waiting", result=None, ms=0)])
    text = _plain(view)
    assert "Answer" in text and "⚙ add · Tachy demo tools · Waiting for your approval" in text
    view.show_tool_calls(7, [replace(ADD, at=0)])
    view.append_token(7, "The sum is 5.")
    view.flush()
    view.end_stream(7, "complete")
    text = _plain(view)
    assert text.index("⚙ add") < text.index("The sum is 5.")


@pytest.mark.parametrize("dark", [False, True])
def test_the_card_follows_the_theme(view: ChatView, dark: bool) -> None:
    _shown(view, [ADD])
    look = colours(dark)
    if dark:
        view.setPalette(dark_palette())  # what a dark system scheme does to the chat
    assert view._dark() is dark
    header = _header_at(view, ADD)
    frame = header.currentFrame()
    assert frame.frameFormat().background().color() == QColor(look.code)
    assert header.charFormat().foreground().color() == QColor(look.link)


def test_a_card_shown_under_a_temporary_key_folds_after_it_is_stored(view: ChatView) -> None:
    view.set_messages([ShownMessage(6, "user", "Use add for 2 and 3.")])
    view.reserve_answer(-3)
    view.show_tool_calls(-3, [replace(ADD, at=0)])
    view.append_token(-3, "The sum is 5.")
    view.end_stream(-3, "complete")
    view.rekey(-3, 7)
    view.anchorClicked.emit(QUrl(f"{view.action_scheme}:tool1_0/7"))
    assert view.tool_call_open(7, 1, 0) and '"a": 2,' in _plain(view)
