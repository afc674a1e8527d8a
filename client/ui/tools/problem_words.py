"""The tools area's sentences in the window's language.

Services write each sentence in English from a template and its fields
(client/services/tools/server_errors.py, mcp_json.py, server_settings.py); the window translates the
template and fills in the fields (names, commands, addresses, what a server said), which
stay as they came. tests/ui/tools/test_problem_words.py checks that every template of
services is listed here, so a reworded sentence fails there instead of showing English.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from client.services.tools.server_errors import WordedError
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

TEMPLATES = (
    QT_TRANSLATE_NOOP(
        "ToolProblems",
        "The command '{command}' of {server} was not found: check that it is installed.",
    ),
    QT_TRANSLATE_NOOP(
        "ToolProblems", "The command '{command}' of {server} cannot be run: {detail}."
    ),
    QT_TRANSLATE_NOOP("ToolProblems", "{server} stopped before it answered."),
    QT_TRANSLATE_NOOP("ToolProblems", "{server} stopped before it answered; it said: {said}"),
    QT_TRANSLATE_NOOP("ToolProblems", "{server} did not answer within {seconds} s."),
    QT_TRANSLATE_NOOP(
        "ToolProblems", "Nothing answers at {url}: check that the server is running."
    ),
    QT_TRANSLATE_NOOP(
        "ToolProblems", "The server at {url} refused Tachy (HTTP {status}): check its headers."
    ),
    QT_TRANSLATE_NOOP(
        "ToolProblems", "The server at {url} answered HTTP {status}: it may not be an MCP server."
    ),
    QT_TRANSLATE_NOOP("ToolProblems", "{server} stopped while {tool} was running."),
    QT_TRANSLATE_NOOP(
        "ToolProblems", "{server} stopped answering after a cancelled call, so Tachy stopped it."
    ),
    QT_TRANSLATE_NOOP(
        "ToolProblems", "{tool} did not finish within {seconds} s, so it was cancelled."
    ),
    QT_TRANSLATE_NOOP("ToolProblems", "There is no tool server called {server}."),
    QT_TRANSLATE_NOOP("ToolProblems", "{server} failed: {detail}"),
    QT_TRANSLATE_NOOP(
        "ToolProblems", "The file is not JSON: {detail} (line {line}, column {column})."
    ),
    QT_TRANSLATE_NOOP(
        "ToolProblems", 'The file has no "mcpServers" object: it is not an MCP servers file.'
    ),
    QT_TRANSLATE_NOOP("ToolProblems", "Its settings are not a JSON object."),
    QT_TRANSLATE_NOOP("ToolProblems", "It has neither a command nor a url."),
    QT_TRANSLATE_NOOP("ToolProblems", "It has both a command and a url."),
    QT_TRANSLATE_NOOP(
        "ToolProblems", "It uses the older SSE transport, which Tachy does not speak."
    ),
    QT_TRANSLATE_NOOP("ToolProblems", "Its type '{kind}' is not one Tachy knows."),
    QT_TRANSLATE_NOOP("ToolProblems", "Its {field} is not what it should be ({detail})."),
    QT_TRANSLATE_NOOP("ToolProblems", "A tool server needs a name of 1 to {most} characters."),
    QT_TRANSLATE_NOOP("ToolProblems", "A tool server started by Tachy needs a command."),
    QT_TRANSLATE_NOOP("ToolProblems", "'{name}' is not a name an environment variable can have."),
    QT_TRANSLATE_NOOP("ToolProblems", "'{url}' is not an http:// or https:// address."),
    QT_TRANSLATE_NOOP("ToolProblems", "'{name}' is not a name an HTTP header can have."),
    QT_TRANSLATE_NOOP("ToolProblems", "The command line cannot be read: {detail}."),
    QT_TRANSLATE_NOOP("ToolProblems", "A tool server is already called '{name}'."),
)


# Tachy's own words that fill a field (client/services/tools/mcp_json.py DETAILS); any
# other field (a name, a command, an address, what a server said) stays as it came.
OUR_WORDS = (
    QT_TRANSLATE_NOOP("ToolProblems", "a list of strings"),
    QT_TRANSLATE_NOOP("ToolProblems", "an object"),
    QT_TRANSLATE_NOOP("ToolProblems", "text values"),
    QT_TRANSLATE_NOOP("ToolProblems", "a string"),
)


def problem_text(error: WordedError) -> str:
    """The error's sentence in the window's language."""
    template = QCoreApplication.translate("ToolProblems", error.template)
    fields = {
        key: QCoreApplication.translate("ToolProblems", value) if value in OUR_WORDS else value
        for key, value in error.fields.items()
    }
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation that lost a field
        return str(error)
