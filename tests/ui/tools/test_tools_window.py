"""The Tools window with real MCP servers (the SDK's own, over stdio): listing a server's
tools and a failure in one sentence, adding, importing (nothing starts), approval, removing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from client.services.tools.server_settings import HttpServer, StdioServer
from client.services.tools.tool_servers import ToolServers
from client.ui.tools.tools_controller import ToolsController
from tests.memory_keyring import MemoryKeyring
from tests.services.tools.conftest import stdio_test_server
from tests.ui.conftest import LoopRunner, until

IMPORTED = {
    "mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"]},
        "remote": {"url": "https://example.org/mcp", "headers": {"Authorization": "Bearer s"}},
        "old": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
    }
}


@pytest.fixture
def tools(run: LoopRunner, memory_keyring: MemoryKeyring) -> Iterator[ToolServers]:
    servers = ToolServers(None, connect_timeout_s=30.0)
    yield servers
    run(servers.aclose())


@pytest.fixture
def controller(tools: ToolServers, qtbot: Any) -> ToolsController:
    parent = QWidget()
    qtbot.addWidget(parent)
    return ToolsController(tools, parent)


def _open(run: LoopRunner, controller: ToolsController) -> Any:
    async def opened() -> Any:
        return controller.open()

    return run(opened())


def _names(window: Any) -> list[str]:
    return [window.server_list.item(row).text() for row in range(window.server_list.count())]


def _choose(window: Any, name: str) -> None:
    for row in range(window.server_list.count()):
        if window.server_list.item(row).data(Qt.ItemDataRole.UserRole) == name:
            window.server_list.setCurrentRow(row)


def test_starting_a_server_lists_its_tools_and_a_failure_says_why(
    run: LoopRunner, tools: ToolServers, controller: ToolsController
) -> None:
    run(tools.save(stdio_test_server("good")))
    run(tools.save(stdio_test_server("broken", "crash")))
    window = _open(run, controller)
    assert _names(window) == ["broken — not started", "good — not started"]
    _choose(window, "good")
    assert window.address_label.text().startswith("Runs: ")
    window.start_button.click()
    run(until(lambda: window.tool_table.rowCount() == 7))
    shown = {window.tool_table.item(row, 0).text() for row in range(7)}
    assert {"add", "slow", "fail"} <= shown
    assert window.state_label.text() == "Ready: 7 tools."
    _choose(window, "broken")
    window.start_button.click()
    run(until(lambda: window.state_label.text().startswith("Failed: ")))
    assert window.state_label.text() == (
        "Failed: broken stopped before it answered; it said: test server: refusing to start"
    )
    assert window.start_button.text() == "Try again"
    assert _names(window) == ["broken — failed", "good — 7 tools"]


def test_always_allow_and_revoke_from_the_tools_table(
    run: LoopRunner, tools: ToolServers, controller: ToolsController
) -> None:
    run(tools.save(stdio_test_server("good")))
    tools.approval.always_allow("good", "add")
    window = _open(run, controller)
    choice = window.approval_choice("add")  # shown before the server started
    assert choice is not None and choice.currentText() == "Always allow"
    choice.setCurrentIndex(0)
    assert tools.approval.needs_asking("good", "add")
    window.start_button.click()
    run(until(lambda: window.approval_choice("slow") is not None))
    window.approval_choice("slow").setCurrentIndex(1)
    assert tools.approval.allowed() == {"good": ["slow"]}


def test_importing_shows_each_command_and_starts_nothing_until_used(
    run: LoopRunner, tools: ToolServers, controller: ToolsController, memory_keyring: MemoryKeyring
) -> None:
    window = _open(run, controller)
    window.import_button.click()
    dialog = controller.importer
    assert dialog is not None and dialog.isVisible()
    dialog.set_text("{not json")
    assert dialog.problem_label.text().startswith("The file is not JSON: ")
    assert not dialog.import_button.isEnabled()
    dialog.set_text(json.dumps(IMPORTED))
    rows = [dialog.server_list.item(row).text() for row in range(dialog.server_list.count())]
    assert rows == [
        "files runs: npx -y @modelcontextprotocol/server-filesystem",
        "remote at https://example.org/mcp",
        "old cannot be imported: It uses the older SSE transport, which Tachy does not speak.",
    ]
    assert dialog.import_button.text() == "Import 2 servers"
    dialog.import_button.click()
    run(until(lambda: not dialog.isVisible()))
    assert [server.name for server in tools.saved.servers()] == ["files", "remote"]
    assert tools.saved.get("remote") == HttpServer(
        "remote", "https://example.org/mcp", {"Authorization": ""}
    )
    assert ("tachy", "mcp-server:remote") in memory_keyring.passwords
    assert not tools._thread.running  # nothing started
    assert _names(window) == ["files — not started", "remote — not started"]


def test_adding_a_server_checks_it_and_keeps_its_values_in_the_keyring(
    run: LoopRunner, tools: ToolServers, controller: ToolsController, memory_keyring: MemoryKeyring
) -> None:
    window = _open(run, controller)
    window.add_button.click()
    run(until(lambda: controller.editor is not None and controller.editor.isVisible()))
    editor = controller.editor
    assert editor is not None
    editor.name_edit.setText("notes")
    editor.command_edit.setText("uvx 'notes server' --fast")
    editor.env_edit.setPlainText("TOKEN=abc\nbroken line")
    editor._save()
    assert editor.error_label.text() == "Line 2 is not “NAME=value”."
    editor.env_edit.setPlainText("TOKEN=abc")
    editor._save()
    run(until(lambda: not editor.isVisible()))
    assert tools.saved.get("notes") == StdioServer(
        "notes", "uvx", ("notes server", "--fast"), {"TOKEN": ""}
    )
    assert json.loads(memory_keyring.passwords[("tachy", "mcp-server:notes")]) == {
        "env": {"TOKEN": "abc"}
    }
    assert _names(window) == ["notes — not started"]


def test_a_bad_address_is_refused_in_the_editor(
    run: LoopRunner, controller: ToolsController
) -> None:
    _open(run, controller).add_button.click()
    run(until(lambda: controller.editor is not None))
    editor = controller.editor
    assert editor is not None
    editor.name_edit.setText("web")
    editor.kind.setCurrentIndex(1)
    editor.url_edit.setText("localhost:3000/mcp")
    editor._save()
    run(until(lambda: editor.error_label.text() != ""))
    sentence = "'localhost:3000/mcp' is not an http:// or https:// address."
    assert editor.error_label.text() == sentence
    assert editor.isVisible()


def test_removing_asks_then_forgets_the_server(
    run: LoopRunner, tools: ToolServers, controller: ToolsController
) -> None:
    run(tools.save(stdio_test_server("good")))
    tools.approval.always_allow("good", "add")
    window = _open(run, controller)
    window.remove_button.click()
    box = controller.confirm
    assert isinstance(box, QMessageBox) and box.isVisible()
    confirm = next(b for b in box.buttons() if b.objectName() == "confirmRemoveToolServer")
    confirm.click()
    # The server goes first, then its "always allow" list: wait for both (a busy machine).
    run(until(lambda: not tools.saved.servers() and tools.approval.allowed() == {}))
    run(until(lambda: window.title_label.text() == "No tool servers yet"))


def test_the_settings_menu_opens_the_tools_window(
    make_app: Any, run: LoopRunner, memory_keyring: MemoryKeyring
) -> None:
    app = make_app()

    async def open_from_the_menu() -> None:
        app.view.settings.tools_action.trigger()

    run(open_from_the_menu())
    controller = app.view.settings.tools
    assert controller is not None and controller.window is not None
    assert controller.window.isVisible() and controller.tools is app.tachy.tools
    assert controller.window.demo_button.isVisible()  # no demo server saved yet
