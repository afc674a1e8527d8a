"""The Tools window's words: every sentence of services has its template in the window's
list (so it is translated), and in zh_CN the window and its dialogs show no English."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from client.services.tools import mcp_json, server_errors, server_settings
from client.services.tools.server_errors import ToolServerError, WordedError
from client.ui.tools.import_dialog import ImportDialog
from client.ui.tools.problem_words import OUR_WORDS, TEMPLATES, problem_text
from client.ui.tools.server_dialog import ToolServerDialog
from client.ui.tools.tools_window import ToolsWindow
from tests.ui.shell.test_translations import _english, _texts

# Fields whose placeholder is an example command or address, not words.
EXAMPLES = {"toolServerCommand", "toolServerUrl"}
# Names the Chinese window keeps: the transports' names, the variables a command gets,
# the apps whose JSON is imported and that JSON's key.
NAMES = {
    "stdio", "Streamable", "HTTP", "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM",
    "Claude", "Desktop", "LM", "Studio", "Cursor", "mcpServers",
}  # fmt: skip


def test_every_sentence_of_services_is_listed_for_translation() -> None:
    listed = set(TEMPLATES)
    services = {*server_errors.TEMPLATES, *mcp_json.TEMPLATES, *server_settings.TEMPLATES}
    assert services == listed
    assert set(mcp_json.DETAILS) == set(OUR_WORDS)


def test_a_sentence_in_chinese_keeps_its_fields(chinese: None) -> None:
    error = ToolServerError(server_errors.UNREACHABLE, url="http://127.0.0.1:9/mcp")
    assert problem_text(error) == "http://127.0.0.1:9/mcp 没有应答：请检查服务器是否在运行。"
    wrong = WordedError(mcp_json.WRONG_FIELD, field="args", detail=mcp_json.A_LIST)
    assert problem_text(wrong) == "它的 args 格式不对（应为字符串列表）。"


def _english_shown(root: QWidget) -> list[str]:
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if widget.objectName() in EXAMPLES:
            continue
        for where, text in _texts(widget):
            if set(_english(text)) - NAMES:
                found.append(f"{where}: {text!r}")
    return found


def test_the_tools_window_and_its_dialogs_in_chinese_show_no_english(
    chinese: None, qtbot: Any
) -> None:
    window = ToolsWindow()
    qtbot.addWidget(window)
    window.show_servers([], {}, {}, demo_saved=False)
    editor = ToolServerDialog(None)
    qtbot.addWidget(editor)
    importer = ImportDialog(set())
    qtbot.addWidget(importer)
    found = [*_english_shown(window), *_english_shown(editor), *_english_shown(importer)]
    assert window.windowTitle() == "工具"
    assert found == [], "\n".join(found)
