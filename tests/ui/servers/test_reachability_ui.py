"""A chosen server that does not answer yet: `tachy --url U` while U is down, or a
llama-server still loading its model. The window says so in plain words, keeps asking
(with backoff), offers the local model (always listed in both pickers), and goes on by
itself when the server answers: a question asked meanwhile then goes out."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from PySide6.QtCore import Qt

from client.lab import run_in_thread, scenario_from_dict
from client.services.servers.reachability import Backoff, WaitKind
from client.ui.servers.reach_bar import ReachBar
from tests.ui.conftest import last_answer_text, until
from tests.ui.scripted_server import ScriptedOllama


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tries 50 ms apart (the app's are 1, 2, 4 ... 30 s): the test waits for events."""
    monkeypatch.setattr("client.services.tachy.Backoff", lambda: Backoff(0.05, 0.2))


def test_a_server_down_at_start_is_retried_and_the_kept_question_goes_out(
    make_app: Any, run: Any, qtbot: Any, quick_backoff: None
) -> None:
    port = _closed_port()
    app = make_app(f"http://127.0.0.1:{port}", api="auto", model=None)
    servers, w = app.servers, app.window
    run(until(lambda: servers.waiting is not None and servers.waiting.misses >= 2))
    assert servers.waiting.kind is WaitKind.UNREACHABLE
    bar = servers.reach_bar
    assert bar.isVisible() and "cannot be reached now" in bar.label.text()
    assert bar.local_button.isVisible() and bar.try_button.isVisible()
    # The welcome card says the same, not "Starting the local model…".
    welcome = app.welcome.panel.running_label.text()
    assert "cannot be reached now" in welcome and "Starting" not in welcome
    # The local model is listed in both pickers before its engine has started.
    local = [choice for choice in w.server_bar.choices if choice.is_local]
    assert len(local) == 1
    assert w.server_bar.models_of(local[0])  # its model, under its name
    # A question asked meanwhile is kept, and the status line says until when.
    w.composer.setPlainText("are you there?")
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)
    assert app.page.session is None
    assert "goes out when the server answers" in w.stage_label.text()

    server = ScriptedOllama()
    run(server.start(port))  # the server starts afterwards: the window goes on by itself
    try:
        run(until(lambda: "Hello there." in last_answer_text(w.chat_view)))
        assert server.requests[-1]["messages"][-1]["content"] == "are you there?"
        assert servers.waiting is None and not bar.isVisible()
        assert "cannot be reached" not in app.welcome.panel.running_label.text()
    finally:
        run(server.stop())


def test_use_the_local_model_while_the_server_cannot_be_reached(
    make_app: Any, run: Any, qtbot: Any
) -> None:
    app = make_app(f"http://127.0.0.1:{_closed_port()}", api="auto", model=None)
    servers = app.servers
    run(until(lambda: servers.reach_bar.local_button.isVisible()))
    qtbot.mouseClick(servers.reach_bar.local_button, Qt.MouseButton.LeftButton)
    assert servers.waiting is None and not servers.reach_bar.isVisible()
    assert app.window.stage_label.text() == "Starting local model…"
    run(until(lambda: servers.tachy.reaching is None))  # no more tries at the server


def test_a_server_loading_its_model_is_waited_for(
    make_app: Any, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama-server's 503 "Loading model" (the lab's starts_loading) is a wait."""
    said: list[str] = []
    show = ReachBar.show_waiting

    def show_and_note(bar: ReachBar, server: str, waiting: Any) -> None:
        show(bar, server, waiting)
        said.append(bar.sentence())

    monkeypatch.setattr(ReachBar, "show_waiting", show_and_note)
    settings = {"ttft": 5, "tpot_ms": 1, "output_tokens": 6, "seed": 1, "server": "llamacpp"}
    lab = run_in_thread(scenario_from_dict({**settings, "starts_loading": True, "load_ms": 400}))
    try:
        app = make_app(lab.url, api="openai", model=None)  # (its Ollama side is not loading)
        run(until(lambda: app.page.session is not None and app.page.session.model))
        assert app.window.server_bar.model_names() == [app.page.session.model]  # listed
        assert not app.servers.reach_bar.isVisible() and app.servers.waiting is None
    finally:
        lab.stop()
    shown = [text for text in said if text]
    assert shown and all(text.startswith("Loading the model…") for text in shown)
