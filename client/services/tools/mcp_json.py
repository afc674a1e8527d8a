"""Reading the `{"mcpServers": {...}}` JSON of Claude Desktop, LM Studio and Cursor (and
the `{"servers": {...}}` of VS Code) into server settings, starting none of them.

A stdio entry has `command`, `args`, `env` (and `cwd`); a remote one `url` (Windsurf:
`serverUrl`), `headers` and maybe `type` ("http", "streamable-http"; "sse" is the older
transport, which Tachy does not speak). `disabled: true` imports it off by default.
Other fields are listed as not used, never guessed at.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from client.services.tools.server_errors import WordedError
from client.services.tools.server_settings import (
    HttpServer,
    StdioServer,
    ToolServerSettings,
    checked,
)

NOT_JSON = "The file is not JSON: {detail} (line {line}, column {column})."
NO_SERVERS = 'The file has no "mcpServers" object: it is not an MCP servers file.'
NOT_AN_OBJECT = "Its settings are not a JSON object."
NO_COMMAND_OR_URL = "It has neither a command nor a url."
BOTH = "It has both a command and a url."
SSE_ONLY = "It uses the older SSE transport, which Tachy does not speak."
UNKNOWN_TYPE = "Its type '{kind}' is not one Tachy knows."
WRONG_FIELD = "Its {field} is not what it should be ({detail})."
TEMPLATES = (
    NOT_JSON, NO_SERVERS, NOT_AN_OBJECT, NO_COMMAND_OR_URL, BOTH, SSE_ONLY, UNKNOWN_TYPE,
    WRONG_FIELD,
)  # fmt: skip

# What a field should have been: Tachy's own words in WRONG_FIELD (the window translates them).
A_LIST, AN_OBJECT, TEXT_VALUES, A_STRING = (
    "a list of strings",
    "an object",
    "text values",
    "a string",
)
DETAILS = (A_LIST, AN_OBJECT, TEXT_VALUES, A_STRING)

STDIO_FIELDS = {"command", "args", "env", "cwd", "type", "transport", "disabled"}
HTTP_FIELDS = {"url", "serverUrl", "headers", "type", "transport", "disabled"}
HTTP_TYPES = {"http", "streamable-http", "streamablehttp", "streamable_http"}


class McpJsonError(WordedError, ValueError):
    """The whole file cannot be read; str() says why in one sentence."""


@dataclass(frozen=True, slots=True)
class ImportedServer:
    """One entry of the file: the settings it gives, or why it gives none (a sentence
    about the entry, whose name the window shows beside it)."""

    name: str
    server: ToolServerSettings | None
    problem: WordedError | None = None
    ignored: tuple[str, ...] = ()  # fields of the entry Tachy does not use

    @property
    def address(self) -> str:
        """The command line or the address the user confirms before anything runs."""
        return self.server.address if self.server is not None else ""


def parse_mcp_json(text: str) -> list[ImportedServer]:
    """Every entry of the file, in its order; McpJsonError when the file is not one."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise McpJsonError(
            NOT_JSON, detail=error.msg, line=str(error.lineno), column=str(error.colno)
        ) from error
    entries = _entries(document)
    return [_imported(str(name), entry) for name, entry in entries.items()]


def _entries(document: object) -> dict[str, object]:
    if isinstance(document, dict):
        for key in ("mcpServers", "servers"):
            entries = document.get(key)
            if isinstance(entries, dict):
                return entries
    raise McpJsonError(NO_SERVERS)


def _imported(name: str, entry: object) -> ImportedServer:
    if not isinstance(entry, dict):
        return ImportedServer(name, None, WordedError(NOT_AN_OBJECT))
    try:
        server, known = _settings(name, entry)
        server = checked(server)
    except WordedError as problem:  # the entry's, or checked()'s
        return ImportedServer(name, None, problem)
    ignored = tuple(sorted(str(key) for key in entry if key not in known))
    return ImportedServer(name, server, None, ignored)


def _settings(name: str, entry: dict[str, object]) -> tuple[ToolServerSettings, set[str]]:
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    url = entry.get("url", entry.get("serverUrl"))
    command = entry.get("command")
    if command is not None and url is not None:
        raise WordedError(BOTH)
    on = entry.get("disabled") is not True
    if command is not None:
        if kind not in ("", "stdio"):
            raise WordedError(UNKNOWN_TYPE, kind=kind)
        return _stdio(name, entry, on), STDIO_FIELDS
    if url is None:
        raise WordedError(NO_COMMAND_OR_URL)
    if kind == "sse":
        raise WordedError(SSE_ONLY)
    if kind not in ("", *HTTP_TYPES):
        raise WordedError(UNKNOWN_TYPE, kind=kind)
    headers = _string_map(name, "headers", entry.get("headers", {}))
    return HttpServer(name, _string(name, "url", url), headers, on), HTTP_FIELDS


def _stdio(name: str, entry: dict[str, object], on: bool) -> StdioServer:
    args = entry.get("args", [])
    if not isinstance(args, list):
        raise WordedError(WRONG_FIELD, field="args", detail=A_LIST)
    env = _string_map(name, "env", entry.get("env", {}))
    command = _string(name, "command", entry["command"])
    cwd = _string(name, "cwd", entry.get("cwd", ""))
    return StdioServer(name, command, tuple(str(arg) for arg in args), env, cwd, on)


def _string(name: str, field: str, value: object) -> str:
    if not isinstance(value, str):
        raise WordedError(WRONG_FIELD, field=field, detail=A_STRING)
    return value


def _string_map(name: str, field: str, value: object) -> dict[str, str]:
    """An env or headers object; numbers and booleans are written as the file has them."""
    if not isinstance(value, dict):
        raise WordedError(WRONG_FIELD, field=field, detail=AN_OBJECT)
    if any(isinstance(item, dict | list) or item is None for item in value.values()):
        raise WordedError(WRONG_FIELD, field=field, detail=TEXT_VALUES)
    return {str(key): _text(item) for key, item in value.items()}


def _text(value: object) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)
