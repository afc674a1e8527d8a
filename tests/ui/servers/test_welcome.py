"""The welcome panel of a new conversation: what runs, what was found, starter prompts
that send and stream, hidden once the user types, and the install command when
nothing can answer."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from client.services.servers.welcome import FoundServer, LocalEngineFacts, found_servers
from client.ui.servers.welcome import STARTERS, WelcomePanel
from tests.ui.conftest import until


def test_panel_says_what_runs_and_a_starter_sends_and_streams(
    make_app: Any, server: Any, run: Any, qtbot: Any
) -> None:
    server.scripts.append([("token", "Blue"), ("token", "."), ("done",)])
    app = make_app(server.url)
    w, panel = app.window, app.welcome.panel
    assert panel.isVisible()
    running = panel.running_label.text()
    assert "scripted:1b" in running and "127.0.0.1" in running, running
    assert panel.connect_button.isVisible() and len(panel.starter_buttons) == len(STARTERS)
    qtbot.mouseClick(panel.starter_buttons[0], Qt.MouseButton.LeftButton)
    assert not panel.isVisible()  # gone with the click: the question is on screen

    run(until(lambda: not app.page.busy and "Blue." in w.chat_view.toPlainText()))
    assert server.requests[-1]["messages"][-1]["content"] == STARTERS[0][1]
    assert not panel.isVisible()
    app.conversations.new()  # a new conversation: the panel is back
    assert panel.isVisible()


def test_typing_hides_it_and_an_empty_draft_brings_it_back(make_app: Any, server: Any) -> None:
    app = make_app(server.url)
    w, panel = app.window, app.welcome.panel
    assert panel.isVisible()
    w.composer.setPlainText("H")
    assert not panel.isVisible()
    w.composer.clear()
    assert panel.isVisible()


def test_connect_a_server_opens_the_add_server_dialog(
    make_app: Any, server: Any, qtbot: Any
) -> None:
    app = make_app(server.url)
    qtbot.mouseClick(app.welcome.panel.connect_button, Qt.MouseButton.LeftButton)
    assert app.servers._dialog is not None and app.servers._dialog.isVisible()


def test_found_servers_counts_an_ollamas_models(server: Any, run: Any) -> None:
    port = int(server.url.rsplit(":", 1)[1])
    found = run(found_servers((port,), budget_s=60.0))  # ends when the port answers
    assert found == [FoundServer("Ollama", port, 2)]  # scripted:1b and other:7b


def test_nothing_reachable_and_no_engine_says_the_install_command(qtbot: Any) -> None:
    panel = WelcomePanel()
    qtbot.addWidget(panel)
    command = 'pip install "tachy[local]"'
    panel.show_found([], LocalEngineFacts(False, command))
    assert not panel.install_label.isHidden()
    assert command in panel.install_label.text()
    panel.show_found([FoundServer("Ollama", 11434, 3)], LocalEngineFacts(False, command))
    assert panel.install_label.isHidden()  # something answers: no install advice
    assert "11434" in panel.found_label.text() and "3" in panel.found_label.text()
    panel.show_found([], LocalEngineFacts(True, command))
    assert panel.install_label.isHidden()  # the engine is there and starts by itself


def test_connected_to_a_server_the_card_does_not_say_none_answered(
    make_app: Any, server: Any, run: Any, monkeypatch: Any
) -> None:
    """Connected to an Ollama at another port, the card said "No Ollama or vLLM server
    answered on this computer"; it says no *other* server answered on the usual ports."""

    async def none_found(*_: Any, **__: Any) -> list[FoundServer]:
        return []

    monkeypatch.setattr("client.ui.servers.welcome.found_servers", none_found)
    app = make_app(server.url)  # the scripted Ollama, on a port of its own
    panel = app.welcome.panel
    run(until(lambda: panel.found_label.text()))
    assert panel.found_label.text() == "No other server answered on this computer's usual ports."
    assert "scripted:1b" in panel.running_label.text()
    assert panel.install_label.isHidden()  # a server answers: no install advice


def test_one_model_is_singular_and_the_panel_lies_centred_over_the_chat(qtbot: Any) -> None:
    panel = WelcomePanel()
    qtbot.addWidget(panel)
    engine = LocalEngineFacts(True, "")
    panel.show_found([FoundServer("Ollama", 11434, 1)], engine)
    assert "with 1 model" in panel.found_label.text()
    panel.show_found([FoundServer("Ollama", 11434, 2)], engine)
    assert "with 2 models" in panel.found_label.text()
    panel.resize(1000, 600)
    panel.show()
    qtbot.waitUntil(lambda: panel.title.isVisible(), timeout=60_000)
    title = panel.title.geometry().translated(panel.column.pos())
    assert abs(title.center().x() - 500) <= 20  # centred across the chat's width
    assert 100 < title.top() < 300  # and down in it, not at its top edge
