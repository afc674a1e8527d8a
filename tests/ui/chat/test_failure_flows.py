"""Waiting and failure flows: each keeps the text and offers the right next steps."""

from __future__ import annotations

import socket
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt

from client.backends import backend_for
from client.ui.chat.stage_line import TYPING, waiting_text
from tests.ui.conftest import until


def _ask(app: Any, qtbot: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)


def _assert_composer_works(app: Any) -> None:
    w = app.window
    assert w.send_button.isEnabled() and not w.stop_button.isEnabled()
    assert w.composer.isEnabled() and not w.composer.isReadOnly()


def _steps(app: Any) -> list[str]:
    return list(app.window.outcome_bar.buttons)


def test_waiting_rules_text() -> None:
    assert waiting_text(0, "understanding") == ""
    assert waiting_text(299, "understanding") == ""
    assert waiting_text(300, "understanding") == TYPING
    assert waiting_text(999, "loading") == ""  # typing: only once the question is taken up
    assert waiting_text(1000, "understanding") == "Reading your question… 1.0 s"
    assert waiting_text(2500, "loading") == "Loading the model… 2.5 s"


def test_stage_line_is_empty_then_typing_then_stage(make_app, server, run, qtbot):
    server.scripts.append([("hang",), ("token", "ok"), ("done",)])
    app = make_app(server.url)
    seen: list[str] = []
    app.window.stage_label.setText("")

    async def scenario() -> None:
        _ask(app, qtbot, "slow one")
        seen.append(app.window.stage_label.text())  # right after sending: nothing yet
        await until(lambda: app.window.stage_label.text() == TYPING)
        await until(lambda: "Reading your question" in app.window.stage_label.text())
        server.release.set()
        await until(lambda: not app.page.busy)

    run(scenario())
    assert seen == [""]
    assert app.window.stage_label.text() == ""  # the answer came: the line is clear


def test_slow_start_offers_keep_waiting_and_cancel_inline(make_app, server, run, qtbot):
    server.scripts.append([("hang",), ("token", "late answer"), ("done",)])
    app = make_app(server.url)
    app.page.session.configure(slow_start_after_s=0.3)

    async def scenario() -> None:
        _ask(app, qtbot, "will you answer?")
        await until(lambda: app.window.outcome_bar.isVisible())
        assert _steps(app) == ["keep_waiting", "cancel"]
        qtbot.mouseClick(app.window.outcome_bar.button("keep_waiting"), Qt.MouseButton.LeftButton)
        assert app.page.busy  # keep waiting: the request goes on
        server.release.set()
        await until(lambda: not app.page.busy)

    run(scenario())
    assert "late answer" in app.window.chat_view.toPlainText()
    assert not app.window.outcome_bar.isVisible()
    _assert_composer_works(app)


def test_slow_start_cancel_keeps_the_question(make_app, server, run, qtbot):
    server.scripts.append([("hang",)])
    app = make_app(server.url)
    app.page.session.configure(slow_start_after_s=0.2)

    async def scenario() -> None:
        _ask(app, qtbot, "are you there?")
        await until(lambda: "cancel" in app.window.outcome_bar.buttons)
        qtbot.mouseClick(app.window.outcome_bar.button("cancel"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy)

    run(scenario())
    assert "are you there?" in app.window.chat_view.toPlainText()
    assert "retry" in _steps(app)
    _assert_composer_works(app)


def test_interrupted_stream_keeps_text_and_offers_continue_and_retry(make_app, server, run, qtbot):
    server.scripts.append([("token", "Part one, "), ("token", "part two"), ("reset",)])
    server.scripts.append([("token", "A whole new answer."), ("done",)])
    app = make_app(server.url)

    async def scenario() -> None:
        _ask(app, qtbot, "tell me")
        await until(lambda: not app.page.busy and app.window.outcome_bar.isVisible())

    run(scenario())
    view = app.window.chat_view
    key = view.keys()[-1]
    assert view.message(key).text == "Part one, part two"
    assert view.message(key).state == "interrupted"
    assert _steps(app) == ["continue", "retry"]
    assert app.window.outcome_bar.message_label.text()  # a sentence, not a traceback
    assert "Traceback" not in app.window.outcome_bar.message_label.text()
    _assert_composer_works(app)

    async def retry() -> None:
        qtbot.mouseClick(app.window.outcome_bar.button("retry"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and "A whole new answer." in view.toPlainText())

    run(retry())
    siblings = app.stores.history.siblings(view.keys()[-1])
    assert [m.content for m in siblings] == ["Part one, part two", "A whole new answer."]


def test_error_line_mid_stream_is_interrupted(make_app, server, run, qtbot):
    server.scripts.append([("token", "Some words"), ("error_line", "model crashed")])
    app = make_app(server.url)
    run(_ask_and_wait(app, qtbot, "go"))
    view = app.window.chat_view
    assert view.message(view.keys()[-1]).text == "Some words"
    assert _steps(app) == ["continue", "retry"]
    assert "model crashed" in app.window.outcome_bar.message_label.text()


def test_error_before_text_offers_retry_and_edit_question(make_app, server, run, qtbot):
    server.scripts.append([("status", 500, "out of memory")])
    app = make_app(server.url)
    run(_ask_and_wait(app, qtbot, "my long question"))
    assert _steps(app) == ["retry", "edit_question"]
    assert "out of memory" in app.window.outcome_bar.message_label.text()
    qtbot.mouseClick(app.window.outcome_bar.button("edit_question"), Qt.MouseButton.LeftButton)
    assert app.window.composer.toPlainText() == "my long question"
    _assert_composer_works(app)

    async def resend() -> None:
        qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)
        await until(
            lambda: not app.page.busy and "Hello there." in app.window.chat_view.toPlainText()
        )

    run(resend())
    assert app.window.composer.toPlainText() == ""


def test_unreachable_server_offers_retry_other_server_and_local_model(make_app, server, run, qtbot):
    app = make_app(server.url)
    closed = backend_for(f"http://127.0.0.1:{_free_port()}", "ollama")
    app.page.session.use_route(replace(app.page.session.route, backend=closed))
    run(_ask_and_wait(app, qtbot, "hello?"))
    assert _steps(app) == ["retry", "choose_server", "use_local"]
    assert "reach" in app.window.outcome_bar.message_label.text()
    _assert_composer_works(app)
    assert "hello?" in app.window.chat_view.toPlainText()  # the question is kept
    qtbot.mouseClick(app.window.outcome_bar.button("use_local"), Qt.MouseButton.LeftButton)
    assert app.window.stage_label.text() == "Starting local model…"


async def _ask_and_wait(app: Any, qtbot: Any, question: str) -> None:
    _ask(app, qtbot, question)
    await until(lambda: not app.page.busy and app.window.outcome_bar.isVisible())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_slow_start_choices_go_away_when_the_answer_comes(make_app, server, run, qtbot):
    server.scripts.append([("hang",), ("token", "here I am"), ("done",)])
    app = make_app(server.url)
    app.page.session.configure(slow_start_after_s=0.2)

    async def scenario() -> None:
        _ask(app, qtbot, "slow?")
        await until(lambda: "keep_waiting" in app.window.outcome_bar.buttons)
        server.release.set()
        await until(lambda: "here I am" in app.window.chat_view.toPlainText())
        await until(lambda: not app.window.outcome_bar.isVisible())
        await until(lambda: not app.page.busy)

    run(scenario())
    _assert_composer_works(app)


def test_a_failed_version_flipped_to_says_why_it_failed(make_app, server, run, qtbot):
    """‹1/2› on an answer that was cut by an error: its stored reason is in the bar
    (issue 27: it showed without its reason)."""
    server.scripts.append([("token", "Some words"), ("error_line", "model crashed")])
    app = make_app(server.url)
    run(_ask_and_wait(app, qtbot, "go"))
    view, bar = app.window.chat_view, app.window.outcome_bar

    async def retry() -> None:
        qtbot.mouseClick(bar.button("retry"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and "Hello there." in view.toPlainText())

    run(retry())
    assert not bar.isVisible()
    app.page.switch_version(view.keys()[-1], -1)  # back to the one that failed
    shown = view.message(view.keys()[-1])
    assert shown.text == "Some words" and shown.version == (1, 2)
    assert bar.isVisible() and "model crashed" in bar.message_label.text()
    assert list(bar.buttons) == ["continue", "retry"]


def test_an_attempt_that_failed_before_any_text_is_not_a_version(make_app, server, run, qtbot):
    """Retry after a failure with no text: the new answer replaces the attempt (no
    ‹2/2›), in the window and when the conversation is opened again."""
    server.scripts.append([("status", 500, "out of memory")])
    app = make_app(server.url)
    run(_ask_and_wait(app, qtbot, "go"))
    view, bar = app.window.chat_view, app.window.outcome_bar
    assert "out of memory" in bar.message_label.text()  # the attempt's reason, while it stands

    async def retry() -> None:
        qtbot.mouseClick(bar.button("retry"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and "Hello there." in view.toPlainText())

    run(retry())
    key = view.keys()[-1]
    assert view.message(key).version in (None, (1, 1))
    app.page.show_conversation(app.page.conversation_id)
    assert view.message(view.keys()[-1]).version in (None, (1, 1))
    assert app.stores.history.get_message(key).content == "Hello there."


def test_a_model_still_loading_during_a_question_is_a_wait(make_app, server, run, qtbot):
    """The server answers 503 "Loading model" to the question (llama-server before its
    model is in memory): the stage line says "Loading the model…", the question is asked
    again, and the answer comes; no failure bar, nothing to retry."""
    loading = [("status", 503, "Loading model")]
    server.scripts.extend([list(loading) for _ in range(12)])
    app = make_app(server.url)
    seen: list[str] = []

    async def scenario() -> None:
        _ask(app, qtbot, "are you loaded?")
        await until(lambda: "Loading the model…" in app.window.stage_label.text())
        seen.append(app.window.stage_label.text())
        await until(lambda: not app.page.busy)

    run(scenario())
    assert seen and seen[0].startswith("Loading the model… ")
    shown = app.window.chat_view.message(app.page.last_answer_key())
    assert (shown.text, shown.state) == ("Hello there.", "complete")
    assert _steps(app) == [] and app.window.stage_label.text() == ""
    assert shown.footer.startswith("Loading the model ")  # where the wait went
