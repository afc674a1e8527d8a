"""Stop: the real window, a real session, a scripted server that hangs mid-answer."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from client.services.chat.session_events import NextStep
from client.ui.chat import generation_runner
from tests.ui.conftest import until


def _answer_key(app: Any) -> int:
    view = app.window.chat_view
    return [k for k in view.keys() if view.message(k).role == "assistant"][-1]


def test_escape_keeps_partial_text_marks_stopped_and_offers_continue(make_app, server, run, qtbot):
    server.scripts.append([("token", "The sky is "), ("token", "blue because"), ("hang",)])
    server.scripts.append([("token", " of Rayleigh scattering."), ("done",)])
    app = make_app(server.url)
    w = app.window

    async def scenario() -> None:
        w.composer.setPlainText("Why is the sky blue?")
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)
        await until(lambda: "blue because" in w.chat_view.toPlainText())
        assert w.stop_button.isEnabled() and not w.send_button.isEnabled()
        qtbot.keyClick(w.composer, Qt.Key.Key_Escape)
        await until(lambda: not app.page.busy)
        await until(server.client_gone.is_set)  # the connection was closed: server stops

    run(scenario())
    key = _answer_key(app)
    shown = w.chat_view.message(key)
    assert shown.text == "The sky is blue because"
    assert shown.state == "stopped"
    assert "\nStopped   Copy" in w.chat_view.toPlainText()
    assert w.outcome_bar.isVisible()
    assert set(w.outcome_bar.buttons) == {NextStep.CONTINUE.value, NextStep.RETRY.value}
    assert w.send_button.isEnabled() and not w.stop_button.isEnabled()
    stored = app.stores.history.get_message(key)
    assert stored.content == "The sky is blue because" and stored.state == "stopped"

    async def continue_it() -> None:
        qtbot.mouseClick(w.outcome_bar.button("continue"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and "Rayleigh" in w.chat_view.toPlainText())

    run(continue_it())
    assert w.chat_view.message(key).text == "The sky is blue because of Rayleigh scattering."
    assert _answer_key(app) == key  # appended to the same message
    assert w.chat_view.message(key).state == "complete"
    assert server.requests[-1]["messages"][-1]["role"] == "assistant"  # Ollama continues it

    async def composer_works() -> None:
        w.composer.setPlainText("Thanks")
        qtbot.mouseClick(w.send_button, Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and "Hello there." in w.chat_view.toPlainText())

    run(composer_works())


def test_stop_while_the_runner_lets_the_loop_paint_is_a_stop(
    make_app, server, run, qtbot, monkeypatch
):
    """Between two buffered tokens the runner yields to the loop so it can paint; a Stop
    that lands there (not while the generation waits on the stream) is still a Stop:
    the words kept, the answer stopped with its bar, the connection closed. (It came
    back "interrupted" with no bar: the generation never heard the cancel; and the
    token in hand when it landed was stored but never shown.)"""
    server.scripts.append([("token", "The sky is "), ("token", "blue because"), ("hang",)])
    app = make_app(server.url)
    w = app.window
    runner = app.page.runner
    monkeypatch.setattr(generation_runner, "YIELD_AFTER_NS", -1)  # yield before each event
    yield_to_loop = runner._let_the_loop_run

    async def stop_there() -> None:
        if "The sky is" in w.chat_view.toPlainText():
            app.page.stop()  # the cancel is delivered at the await below
        await yield_to_loop()

    monkeypatch.setattr(runner, "_let_the_loop_run", stop_there)

    async def scenario() -> None:
        w.composer.setPlainText("Why is the sky blue?")
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)
        await until(lambda: not app.page.busy)
        stored = app.stores.history.get_message(_answer_key(app))  # saved when it ends
        assert (stored.content, stored.state) == ("The sky is ", "stopped")
        await until(server.client_gone.is_set)

    run(scenario())
    key = _answer_key(app)
    shown = w.chat_view.message(key)
    assert shown.state == "stopped" and shown.text == "The sky is "
    assert set(w.outcome_bar.buttons) == {NextStep.CONTINUE.value, NextStep.RETRY.value}
    stored = app.stores.history.get_message(key)
    assert stored.content == "The sky is " and stored.state == "stopped"


def test_first_token_is_painted_in_the_turn_it_arrives(make_app, server, run, qtbot):
    server.scripts.append([("token", "First"), ("hang",)])
    app = make_app(server.url)
    w = app.window
    painted: list[Any] = []
    original = w.chat_view.append_token

    def spy(key: int, text: str) -> bool:
        result = original(key, text)
        generation = app.page.runner.generation
        painted.append((result, generation.timeline.painted_ns))  # before mark_painted
        return result

    w.chat_view.append_token = spy

    async def scenario() -> None:
        w.composer.setPlainText("Hi")
        w.composer.submit()
        await until(lambda: painted)
        timeline = app.page.runner.generation.timeline
        # Stamped right after the token was handled, before the loop turned again.
        assert timeline.painted_ns is not None
        assert timeline.painted_ns >= timeline.first_token_ns
        assert "First" in w.chat_view.toPlainText()
        app.page.stop()
        await until(lambda: not app.page.busy)

    run(scenario())
    assert painted[0][0] is True  # the first chunk was painted synchronously


def test_quitting_mid_answer_saves_it_as_stopped(make_app, server, run, qtbot):
    """Closing the app while an answer streams is a Stop: the words so far, the
    stopped state and the request's metrics are stored before the database closes
    (and what the predictor learned from its first token is kept)."""
    server.scripts.append([("done",)])  # the warm-up at start (an empty chat: a load)
    server.scripts.append([("token", "Tides follow "), ("token", "the moon"), ("hang",)])
    app = make_app(server.url, warm_models=True)
    w = app.window

    async def scenario() -> None:
        await until(lambda: len(server.scripts) == 1)  # the warm-up has had its reply
        w.composer.setPlainText("What makes tides?")
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)
        await until(lambda: "the moon" in w.chat_view.toPlainText())
        await app.aclose()  # what quitting runs; the database is closed after it

    run(scenario())
    key = _answer_key(app)
    stored = app.stores.history.get_message(key)
    assert stored.content == "Tides follow the moon" and stored.state == "stopped"
    records = app.stores.metrics.query(limit=5)
    assert [r.outcome for r in records] == ["stopped"] and records[0].ttft_ms is not None
    assert any(k.startswith("ttft_learned ") for k in app.stores.settings.all())
