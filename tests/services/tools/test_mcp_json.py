"""The `{"mcpServers": {...}}` files of Claude Desktop, LM Studio and Cursor, read into
settings that start nothing."""

from __future__ import annotations

import json

import pytest

from client.services.tools.mcp_json import McpJsonError, parse_mcp_json
from client.services.tools.server_settings import HttpServer, StdioServer

CLAUDE_DESKTOP = {
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "Documents/My Notes"],
        },
        "github": {
            "command": "docker",
            "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret", "RETRIES": 3},
        },
    }
}
LM_STUDIO = {
    "mcpServers": {
        "hf-mcp-server": {
            "url": "https://huggingface.co/mcp",
            "headers": {"Authorization": "Bearer hf_secret"},
        }
    }
}


def test_claude_desktops_stdio_servers_are_read_with_their_command_lines() -> None:
    imported = parse_mcp_json(json.dumps(CLAUDE_DESKTOP))
    assert [entry.name for entry in imported] == ["filesystem", "github"]
    files, github = imported
    assert files.address == ("npx -y @modelcontextprotocol/server-filesystem 'Documents/My Notes'")
    assert isinstance(github.server, StdioServer)
    assert github.server.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret", "RETRIES": "3"}
    assert not any(entry.problem or entry.ignored for entry in imported)


def test_a_remote_server_is_read_with_its_address_and_headers() -> None:
    (entry,) = parse_mcp_json(json.dumps(LM_STUDIO))
    assert entry.server == HttpServer(
        "hf-mcp-server", "https://huggingface.co/mcp", {"Authorization": "Bearer hf_secret"}
    )
    assert entry.address == "https://huggingface.co/mcp"


@pytest.mark.parametrize("kind", ["http", "streamable-http"])
def test_a_typed_remote_server_cursor_or_claude_code_style(kind: str) -> None:
    text = json.dumps({"mcpServers": {"r": {"type": kind, "url": "http://127.0.0.1:9/mcp"}}})
    (entry,) = parse_mcp_json(text)
    assert isinstance(entry.server, HttpServer)


def test_vs_codes_servers_key_and_windsurfs_server_url_are_read() -> None:
    text = json.dumps({"servers": {"w": {"serverUrl": "https://example.org/mcp"}}})
    (entry,) = parse_mcp_json(text)
    assert entry.address == "https://example.org/mcp"


def test_unknown_fields_are_listed_as_not_used_and_disabled_imports_off() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "x": {"command": "uvx", "args": ["x"], "disabled": True, "autoApprove": ["a"]}
            },
            "globalShortcut": "Ctrl+Space",
        }
    )
    (entry,) = parse_mcp_json(text)
    assert entry.ignored == ("autoApprove",)
    assert entry.server is not None and entry.server.on_by_default is False


@pytest.mark.parametrize(
    ("entry", "sentence"),
    [
        ({"args": ["x"]}, "It has neither a command nor a url."),
        ({"command": "a", "url": "http://h/mcp"}, "It has both a command and a url."),
        (
            {"type": "sse", "url": "http://h/sse"},
            "It uses the older SSE transport, which Tachy does not speak.",
        ),
        (
            {"command": "a", "args": "x y"},
            "Its args is not what it should be (a list of strings).",
        ),
        (
            {"command": "a", "env": {"K": {"v": 1}}},
            "Its env is not what it should be (text values).",
        ),
        ({"url": "ftp://h/mcp"}, "'ftp://h/mcp' is not an http:// or https:// address."),
        ("npx x", "Its settings are not a JSON object."),
    ],
)
def test_an_entry_that_cannot_be_imported_says_why_and_the_rest_are_read(
    entry: object, sentence: str
) -> None:
    text = json.dumps({"mcpServers": {"bad": entry, "good": {"command": "uvx"}}})
    bad, good = parse_mcp_json(text)
    assert bad.server is None and str(bad.problem) == sentence
    assert good.server is not None and good.problem is None


def test_malformed_json_says_where_in_one_sentence() -> None:
    with pytest.raises(McpJsonError) as raised:
        parse_mcp_json('{"mcpServers": {"a": {"command": "x",}}}')
    assert str(raised.value) == (
        "The file is not JSON: Expecting property name enclosed in double quotes "
        "(line 1, column 38)."
    )


@pytest.mark.parametrize("text", ["[]", '{"servers": []}', '{"other": {}}', "3"])
def test_json_without_servers_is_not_an_mcp_file(text: str) -> None:
    with pytest.raises(McpJsonError, match='no "mcpServers" object'):
        parse_mcp_json(text)
