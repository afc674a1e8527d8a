"""An MCP server as the user set it up: a command Tachy starts (stdio) or an address
(Streamable HTTP). The values of its environment and headers are secrets (tokens, keys):
they live only in the keyring (saved_tool_servers.py); these values carry them in memory.
"""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from client.services.tools.server_errors import SettingsProblem

NAME_MOST = 64
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP token (RFC 9110)
NAME_LENGTH = "A tool server needs a name of 1 to {most} characters."
NO_COMMAND = "A tool server started by Tachy needs a command."
BAD_ENV_NAME = "'{name}' is not a name an environment variable can have."
NOT_HTTP = "'{url}' is not an http:// or https:// address."
BAD_HEADER_NAME = "'{name}' is not a name an HTTP header can have."
UNCLOSED_QUOTE = "The command line cannot be read: {detail}."
NAME_TAKEN = "A tool server is already called '{name}'."
TEMPLATES = (
    NAME_LENGTH, NO_COMMAND, BAD_ENV_NAME, NOT_HTTP, BAD_HEADER_NAME, UNCLOSED_QUOTE, NAME_TAKEN,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class StdioServer:
    """A server Tachy starts as its own subprocess and talks to over stdin/stdout."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)  # the only variables it gets, with PATH…
    cwd: str = ""  # "": Tachy's own working folder
    on_by_default: bool = True  # on in a conversation that has not chosen

    @property
    def address(self) -> str:
        """What the user reads before it runs: the command line, quoted as a shell would."""
        return shlex.join([self.command, *self.args])


@dataclass(frozen=True, slots=True)
class HttpServer:
    """A server reached over Streamable HTTP at `url`, sent `headers` with each request."""

    name: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    on_by_default: bool = True

    @property
    def address(self) -> str:
        return self.url


ToolServerSettings = StdioServer | HttpServer


def checked(server: ToolServerSettings) -> ToolServerSettings:
    """The settings as they will be saved; SettingsProblem (a ValueError with a sentence)
    when they cannot be."""
    name = server.name.strip()
    if not name or len(name) > NAME_MOST:
        raise SettingsProblem(NAME_LENGTH, most=str(NAME_MOST))
    if isinstance(server, StdioServer):
        return _checked_stdio(server, name)
    return _checked_http(server, name)


def _checked_stdio(server: StdioServer, name: str) -> StdioServer:
    if not server.command.strip():
        raise SettingsProblem(NO_COMMAND)
    bad = [key for key in server.env if not _ENV_NAME.match(key)]
    if bad:
        raise SettingsProblem(BAD_ENV_NAME, name=bad[0])
    return StdioServer(
        name, server.command.strip(), tuple(server.args), dict(server.env),
        server.cwd.strip(), server.on_by_default,
    )  # fmt: skip


def _checked_http(server: HttpServer, name: str) -> HttpServer:
    url = server.url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingsProblem(NOT_HTTP, url=url)
    bad = [key for key in server.headers if not _HEADER_NAME.match(key)]
    if bad:
        raise SettingsProblem(BAD_HEADER_NAME, name=bad[0])
    return HttpServer(name, url, dict(server.headers), server.on_by_default)


def split_command_line(text: str) -> tuple[str, tuple[str, ...]]:
    """A command line typed in one field, split as a POSIX shell would (quotes kept whole);
    SettingsProblem for an unclosed quote."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise SettingsProblem(UNCLOSED_QUOTE, detail=str(error)) from error
    if not words:
        return "", ()
    return words[0], tuple(words[1:])


DEMO_SERVER_NAME = "Tachy demo tools"


def demo_tool_server() -> StdioServer:
    """The lab's demo server (client/lab/mcp_demo), run by this same Python; its
    PYTHONPATH names the folder holding this copy of Tachy, so it runs this code."""
    root = Path(__file__).resolve().parents[3]
    return StdioServer(
        DEMO_SERVER_NAME,
        sys.executable,
        ("-m", "client.lab.mcp_demo"),
        {"PYTHONPATH": str(root)},
    )
