"""After Continue, Retry, Edit, Regenerate and every button of the bar under the chat,
typing goes on in the composer: not into the Search box, where it would filter the
conversation list away."""

from __future__ import annotations

import socket
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QApplication

from client.services.servers.servers import ServerChoice
from tests.ui.conftest import until

INTERRUPTED = [("token", "Part one, "), ("pause", 0.02), ("token", "two"), ("reset",)]
ANSWER = [("token", "A whole answer."), ("done",)]


def _ask(app: Any, qtbot: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)


def _press(app: Any, qtbot: Any, name: str, bar: str = "outcome_bar") -> None:
    qtbot.mouseClick(getattr(app.window, bar).button(name), Qt.MouseButton.LeftButton)


def _typing_goes_to_the_composer(app: Any, qtbot: Any) -> None:
    w = app.window
    assert QApplication.focusWidget() is w.composer
    listed = w.conversations.list.count()
    before = w.composer.toPlainText()
    qtbot.keyClicks(QApplication.focusWidget(), "next")
    assert w.composer.toPlainText() == before + "next"
    assert w.conversations.search_text() == "" and w.conversations.list.count() == listed


def _ended(app: Any) -> Any:
    return until(lambda: not app.page.busy)


def _interrupted(make_app: Any, server: Any, run: Any, qtbot: Any) -> Any:
    server.scripts += [INTERRUPTED, ANSWER]
    app = make_app(server.url)

    async def ask() -> None:
        _ask(app, qtbot, "tell me")
        await until(lambda: not app.page.busy and app.window.outcome_bar.isVisible())

    run(ask())
    return app


def test_continue(make_app, server, run, qtbot) -> None:
    app = _interrupted(make_app, server, run, qtbot)
    _press(app, qtbot, "continue")
    _typing_goes_to_the_composer(app, qtbot)  # while the answer goes on
    run(_ended(app))
    assert "A whole answer." in app.window.chat_view.toPlainText()
    _typing_goes_to_the_composer(app, qtbot)


def test_retry(make_app, server, run, qtbot) -> None:
    app = _interrupted(make_app, server, run, qtbot)
    _press(app, qtbot, "retry")
    _typing_goes_to_the_composer(app, qtbot)
    run(_ended(app))
    _typing_goes_to_the_composer(app, qtbot)


def test_edit_question_from_the_bar(make_app, server, run, qtbot) -> None:
    server.scripts.append([("status", 500, "out of memory")])
    app = make_app(server.url)

    async def ask() -> None:
        _ask(app, qtbot, "my question")
        await until(lambda: not app.page.busy and "edit_question" in app.window.outcome_bar.buttons)

    run(ask())
    _press(app, qtbot, "edit_question")
    assert app.window.composer.toPlainText() == "my question"
    _typing_goes_to_the_composer(app, qtbot)


def test_edit_link_and_regenerate(make_app, server, run, qtbot) -> None:
    app = make_app(server.url)
    w = app.window
    run(_ask_and_end(app, qtbot, "first"))
    w.conversations.search_box.setFocus()  # the user was elsewhere
    view = w.chat_view
    view._on_anchor(QUrl(f"{view._action_scheme}:edit/{view.keys()[0]}"))
    assert w.composer.toPlainText() == "first"
    _typing_goes_to_the_composer(app, qtbot)
    w.composer.clear()
    w.conversations.search_box.setFocus()
    w.shortcuts["regenerate"].activated.emit()  # Ctrl+R
    _typing_goes_to_the_composer(app, qtbot)
    run(_ended(app))
    _typing_goes_to_the_composer(app, qtbot)


async def _ask_and_end(app: Any, qtbot: Any, question: str) -> None:
    _ask(app, qtbot, question)
    await until(lambda: not app.page.busy)


def test_keep_waiting_and_cancel(make_app, server, run, qtbot) -> None:
    server.scripts += [[("hang",), ("token", "late"), ("done",)], [("hang",)]]
    app = make_app(server.url)
    app.page.session.configure(slow_start_after_s=0.2)
    bar = app.window.outcome_bar

    async def slow(question: str, choice: str) -> None:
        _ask(app, qtbot, question)
        await until(lambda: choice in bar.buttons and bar.isVisible())
        _press(app, qtbot, choice)
        _typing_goes_to_the_composer(app, qtbot)
        app.window.composer.clear()

    run(slow("will you answer?", "keep_waiting"))
    server.release.set()
    run(_ended(app))
    server.release.clear()
    run(slow("and now?", "cancel"))
    run(_ended(app))
    _typing_goes_to_the_composer(app, qtbot)


def test_undo_a_delete(make_app, server, run, qtbot) -> None:
    app = make_app(server.url)
    run(_ask_and_end(app, qtbot, "keep me"))
    app.conversations.delete(app.page.conversation_id)
    qtbot.waitUntil(lambda: app.window.undo_bar.isVisible(), timeout=60_000)
    _press(app, qtbot, "undo", bar="undo_bar")
    assert app.window.conversations.list.count() == 1
    _typing_goes_to_the_composer(app, qtbot)


def test_use_the_local_model_after_an_unreachable_server(make_app, server, run, qtbot) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    app = make_app(server.url)  # chosen while it answered, gone since: the question fails
    gone = ServerChoice("Gone", closed, "ollama")  # (one down from the start keeps it)
    app.tachy.use(run(app.tachy.backend(gone)), "scripted:1b", gone)

    async def ask() -> None:
        _ask(app, qtbot, "anyone there?")
        await until(lambda: not app.page.busy and "use_local" in app.window.outcome_bar.buttons)

    run(ask())
    _press(app, qtbot, "use_local")
    _typing_goes_to_the_composer(app, qtbot)
