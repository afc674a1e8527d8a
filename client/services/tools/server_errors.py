"""Why a tool server failed, in one sentence: a typed error with its template and fields.

The sentence is English (the command line and the log say it); the window translates
the template (client/ui/tools/problem_words.py lists them) and fills in the fields, which
are names, commands and addresses that stay as they are.
"""

from __future__ import annotations

from collections.abc import Iterator

NOT_FOUND = "The command '{command}' of {server} was not found: check that it is installed."
NOT_RUNNABLE = "The command '{command}' of {server} cannot be run: {detail}."
STOPPED_AT_START = "{server} stopped before it answered."
STOPPED_AT_START_SAID = "{server} stopped before it answered; it said: {said}"
NO_ANSWER_AT_START = "{server} did not answer within {seconds} s."
UNREACHABLE = "Nothing answers at {url}: check that the server is running."
REFUSED = "The server at {url} refused Tachy (HTTP {status}): check its headers."
NOT_MCP = "The server at {url} answered HTTP {status}: it may not be an MCP server."
STOPPED_IN_CALL = "{server} stopped while {tool} was running."
KILLED_AFTER_CANCEL = "{server} stopped answering after a cancelled call, so Tachy stopped it."
TOOL_TIMEOUT = "{tool} did not finish within {seconds} s, so it was cancelled."
UNKNOWN_SERVER = "There is no tool server called {server}."
OTHER = "{server} failed: {detail}"

TEMPLATES = (
    NOT_FOUND,
    NOT_RUNNABLE,
    STOPPED_AT_START,
    STOPPED_AT_START_SAID,
    NO_ANSWER_AT_START,
    UNREACHABLE,
    REFUSED,
    NOT_MCP,
    STOPPED_IN_CALL,
    KILLED_AFTER_CANCEL,
    TOOL_TIMEOUT,
    UNKNOWN_SERVER,
    OTHER,
)


class WordedError(Exception):
    """An error whose str() is a sentence made from a template and its fields."""

    def __init__(self, template: str, **fields: str) -> None:
        self.template = template
        self.fields = fields
        super().__init__(template.format(**fields))

    @property
    def sentence(self) -> str:
        return str(self)


class ToolServerError(WordedError):
    """A server that cannot be started, reached or used."""


class SettingsProblem(WordedError, ValueError):
    """Settings that cannot be saved (a ValueError, as bad input is)."""


def leaves(error: BaseException) -> Iterator[BaseException]:
    """The errors inside exception groups (the SDK's task groups wrap what went wrong)."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from leaves(inner)
    else:
        yield error


def last_line(text: str, most: int = 200) -> str:
    """The last non-empty line a server wrote to stderr, short enough for a sentence."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[-1]
    return line if len(line) <= most else line[: most - 1] + "…"
