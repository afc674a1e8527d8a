"""Reasoning ("thinking") in the chat: streamed above the answer, collapsible, stored.

The scripted Ollama server sends `message.thinking` for a ("token", "think:...") step
(its chunk builder is wrapped here), so the real app, session and store run end to end.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextCursor

from client.lab import Distribution, RunningLab, run_in_thread
from client.lab.scenarios.scenario import PRESETS
from client.ui.chat.render.chat_view import THINKING_GREY, ChatView
from tests.ui import scripted_server
from tests.ui.conftest import until

THINK = "think:"


@pytest.fixture(autouse=True)
def thinking_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    original = scripted_server._chunk

    def chunk(body: dict[str, Any], text: str) -> dict[str, Any]:
        if not text.startswith(THINK):
            return original(body, text)
        data = original(body, "")
        data["message"]["thinking"] = text[len(THINK) :]
        return data

    monkeypatch.setattr(scripted_server, "_chunk", chunk)


def _answer_key(app: Any) -> int:
    view = app.window.chat_view
    return [k for k in view.keys() if view.message(k).role == "assistant"][-1]


def _ask(app: Any, qtbot: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)


def _click_thinking_link(view: ChatView, key: int, qtbot: Any, run: Any) -> None:
    """Click the "Show/Hide thinking" link with the mouse, inside the test's loop."""

    async def click() -> None:
        _click_link(view, key, qtbot)

    run(click())


def _click_link(view: ChatView, key: int, qtbot: Any) -> None:
    href_end = f":thinking/{key}"
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref().endswith(href_end):
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position() + 1)
                view.ensureCursorVisible()
                view.setTextCursor(cursor)
                view.ensureCursorVisible()
                point = view.cursorRect(cursor).center()
                point.setX(point.x() - 3)  # on the link's first letters
                qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
                return
            it += 1
        block = block.next()
    raise AssertionError("no thinking link")


def _format_of(view: ChatView, text: str) -> Any:
    found = view.document().find(text)
    assert not found.isNull(), text
    return found.charFormat()


def test_thinking_streams_above_the_answer_then_collapses_and_expands(
    make_app, server, run, qtbot
) -> None:
    server.scripts.append(
        [
            ("token", THINK + "Let me consider "),
            ("token", THINK + "the scattering."),
            ("token", "The sky is blue."),
            ("done",),
        ]
    )
    app = make_app(server.url)
    w = app.window
    view = w.chat_view
    first_calls: list[tuple[bool, Any]] = []
    at_answer: list[tuple[str, str, str, Any]] = []
    append_thinking, append_token = view.append_thinking, view.append_token

    def thinking_spy(key: int, text: str) -> bool:
        painted = append_thinking(key, text)
        first_calls.append((painted, app.page.runner.generation.timeline.painted_ns))
        return painted

    def token_spy(key: int, text: str) -> bool:
        if not at_answer:  # what the chat showed while the reasoning streamed
            timeline = app.page.runner.generation.timeline
            shown = (view.thinking_text(key), view.message(key).text, view.toPlainText())
            at_answer.append((*shown, timeline.painted_ns))
        return append_token(key, text)

    view.append_thinking = thinking_spy
    view.append_token = token_spy

    async def ask() -> None:
        _ask(app, qtbot, "Why is the sky blue?")
        await until(lambda: not app.page.busy)

    run(ask())
    # The first reasoning chunk was painted in its own turn and stamped as the paint;
    # later chunks waited for the frame flush.
    assert first_calls[0] == (True, None)
    assert all(not painted for painted, _ in first_calls[1:])
    shown_thinking, answer_so_far, plain, painted_ns = at_answer[0]
    assert shown_thinking and "Let me consider the scattering.".startswith(shown_thinking)
    assert answer_so_far == ""
    assert "Thinking" in plain and "Show thinking" not in plain  # no toggle while streaming
    timeline = app.page.runner.generation.timeline
    assert painted_ns is not None and painted_ns == timeline.painted_ns
    assert timeline.painted_ns >= timeline.first_token_ns
    key = _answer_key(app)
    view.toggle_thinking(key)
    thinking_format = _format_of(view, "Let me consider")
    assert thinking_format.foreground().color() == QColor(THINKING_GREY)
    view.toggle_thinking(key)

    key = _answer_key(app)
    shown = view.message(key)
    assert shown.text == "The sky is blue."  # the answer holds no reasoning
    assert shown.thinking == "Let me consider the scattering."
    assert shown.state == "complete"
    answer_format = _format_of(view, "The sky is blue.")
    assert answer_format.foreground().color() != QColor(THINKING_GREY)
    assert answer_format.font().pixelSize() > thinking_format.font().pixelSize()
    # Collapsed after completion: only the header and its link remain.
    assert view.thinking_open(key) is False
    plain = view.toPlainText()
    assert "Show thinking" in plain and "Let me consider" not in plain
    assert plain.index("Thinking") < plain.index("The sky is blue.")

    _click_thinking_link(view, key, qtbot, run)
    assert view.thinking_open(key) is True
    plain = view.toPlainText()
    assert "Hide thinking" in plain
    assert plain.index("Let me consider the scattering.") < plain.index("The sky is blue.")
    _click_thinking_link(view, key, qtbot, run)
    assert view.thinking_open(key) is False
    assert "Let me consider" not in view.toPlainText()

    stored = app.stores.history.get_message(key)
    assert stored.thinking == "Let me consider the scattering."
    assert stored.content == "The sky is blue."

    # Reopening the conversation shows the stored reasoning the same way: collapsed.
    conversation_id = app.page.conversation_id
    app.page.show_conversation(None)
    app.page.show_conversation(conversation_id)
    assert view.message(key).thinking == "Let me consider the scattering."
    assert view.thinking_open(key) is False
    assert "Show thinking" in view.toPlainText()
    _click_thinking_link(view, key, qtbot, run)
    assert view.thinking_text(key) == "Let me consider the scattering."
    plain = view.toPlainText()
    assert plain.index("Let me consider") < plain.index("The sky is blue.")


def test_stop_during_thinking_keeps_and_shows_it(make_app, server, run, qtbot) -> None:
    server.scripts.append([("token", THINK + "First, the light"), ("hang",)])
    app = make_app(server.url)
    w = app.window
    view = w.chat_view

    async def stop_while_thinking() -> None:
        _ask(app, qtbot, "Why?")
        await until(lambda: "First, the light" in view.toPlainText())
        qtbot.keyClick(w.composer, Qt.Key.Key_Escape)
        await until(lambda: not app.page.busy)

    run(stop_while_thinking())
    key = _answer_key(app)
    assert view.message(key).state == "stopped"
    assert view.message(key).text == ""
    # Nothing else to show: the reasoning stays open.
    assert view.thinking_text(key) == "First, the light"
    assert "\nStopped   Copy" in view.toPlainText()
    stored = app.stores.history.get_message(key)
    assert stored.thinking == "First, the light" and stored.state == "stopped"

    conversation_id = app.page.conversation_id
    app.page.show_conversation(None)
    app.page.show_conversation(conversation_id)
    assert view.thinking_text(key) == "First, the light"


HOSTILE = (
    '<img src="file:///etc/passwd"> <script>alert(1)</script> '
    "![x](file:///etc/passwd) [y](javascript:alert(1)) <b>bold</b>"
)


def _images_and_anchors(view: ChatView) -> tuple[int, list[str]]:
    images, hrefs = 0, []
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            images += fmt.isImageFormat()
            if fmt.isAnchor():
                hrefs.append(fmt.anchorHref())
            it += 1
        block = block.next()
    return images, hrefs


def test_hostile_thinking_is_inert(make_app, server, run, qtbot) -> None:
    server.scripts.append([("token", THINK + HOSTILE), ("token", THINK + "\nmore"), ("done",)])
    app = make_app(server.url)
    view = app.window.chat_view
    loaded: list[Any] = []
    original = view.safe_document.loadResource

    def spy(kind: int, url: Any) -> Any:
        loaded.append(url)
        return original(kind, url)

    view.safe_document.loadResource = spy

    async def scenario() -> None:
        _ask(app, qtbot, "Hi")
        await until(lambda: not app.page.busy)

    run(scenario())
    key = _answer_key(app)
    assert view.message(key).thinking == HOSTILE + "\nmore"
    assert view.thinking_text(key) == HOSTILE + "\nmore"  # no answer: shown open
    plain = view.toPlainText()
    assert '<img src="file:///etc/passwd">' in plain and "<script>alert(1)</script>" in plain
    assert "<b>bold</b>" in plain
    images, hrefs = _images_and_anchors(view)
    assert images == 0
    assert all(href.startswith(view._action_scheme + ":") for href in hrefs)
    assert not any("passwd" in href or "javascript" in href for href in hrefs)
    view.viewport().repaint()
    assert loaded == []


@pytest.fixture
def thinking_lab() -> Iterator[RunningLab]:
    """The latency lab in-process with its `thinking` preset, made quick."""
    scenario = replace(
        PRESETS["thinking"],
        ttft=Distribution("fixed", 20.0),
        tpot_ms=1.0,
        jitter_ms=0.0,
        output_tokens=12,
        reasoning_tokens=24,
    )
    running = run_in_thread(scenario)
    yield running
    running.stop()


def test_lab_reasoning_model_shows_reasoning_apart_from_the_answer(
    thinking_lab, make_app, run, qtbot
) -> None:
    app = make_app(thinking_lab.url, model="tachy-lab:latest", api="ollama")
    view = app.window.chat_view

    async def ask() -> None:
        _ask(app, qtbot, "Think first, then answer.")
        await until(lambda: not app.page.busy)

    run(ask())
    key = _answer_key(app)
    shown = view.message(key)
    assert shown.state == "complete"
    assert shown.thinking.strip() and shown.text.strip()
    assert shown.thinking not in shown.text
    assert view.thinking_open(key) is False and "Show thinking" in view.toPlainText()
    stored = app.stores.history.get_message(key)
    assert stored.thinking == shown.thinking and stored.content == shown.text
    _click_thinking_link(view, key, qtbot, run)
    assert view.thinking_text(key) == shown.thinking
