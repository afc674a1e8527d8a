"""The tools a turn offers the model: the enabled servers' tools as the model is told of
them (core ToolSpec), each name leading back to its server and tool.

What the definitions cost in the prompt (`tool_schema_tokens`, for the planner's budget
and predicted wait): each request with tools carries them all, before the chat. Servers
put them in the prompt through the chat template as JSON, close to OpenAI's
`{"type": "function", "function": {name, description, parameters}}`; a template wraps
each in a few tokens more. Counted with the caller's counter (the server's tokenizer
where it has one), else 4 characters per token.

Two servers may each have a tool of one name; the model needs one name per tool, so the
second is offered as `<server>_<tool>` (letters, digits, _ and -, at most 64: what the
OpenAI API accepts as a function's name).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from client.core.budget import estimate_text_tokens
from client.core.tools import ToolSpec
from client.services.tools.server_errors import ToolServerError
from client.services.tools.tool_servers import ToolServers
from client.services.tools.tool_types import ToolInfo, ToolListing

NAME_MOST = 64
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class OfferedTool:
    spec: ToolSpec  # as the model knows it
    server: str
    tool: str  # its name on its server

    @property
    def description(self) -> str:
        return self.spec.description


class ToolOffer:
    def __init__(self, tools: Iterable[ToolInfo] = ()) -> None:
        self._by_name: dict[str, OfferedTool] = {}
        for info in tools:
            name = info.name
            if name in self._by_name:
                name = _NOT_NAME.sub("_", f"{info.server}_{info.name}")[:NAME_MOST]
            if name in self._by_name:
                continue  # one server listing a name twice: the first stands
            schema = info.input_schema or {"type": "object", "properties": {}}
            spec = ToolSpec(name, info.description, schema)
            self._by_name[name] = OfferedTool(spec, info.server, info.name)

    @classmethod
    def of(cls, listing: ToolListing) -> ToolOffer:
        return cls(listing.tools)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(tool.spec for tool in self._by_name.values())

    def schema_tokens(self, count_text: Callable[[str], int] = estimate_text_tokens) -> int:
        """Prompt tokens the offered definitions take, as each request sends them."""
        return sum(definition_tokens(spec.wire(), count_text) for spec in self.specs)

    def find(self, name: str) -> OfferedTool | None:
        return self._by_name.get(name)

    def __bool__(self) -> bool:
        return bool(self._by_name)


async def conversation_offer(
    servers: ToolServers, conversation_id: int | None, also: Iterable[str] = ()
) -> tuple[ToolOffer, dict[str, ToolServerError]]:
    """The tools of the servers a conversation uses (each started if need be), `also`
    those of the servers lent to every conversation, and why each that gave none did not
    (str() is the sentence)."""
    listing = await servers.listing([*servers.saved.enabled_for(conversation_id), *also])
    return ToolOffer.of(listing), listing.problems


TOKENS_PER_TOOL = 10  # the template's wrapping of each definition (tags, separators)


def tool_definition(tool: ToolInfo) -> dict[str, object]:
    """The definition as an OpenAI-compatible request body carries it."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.input_schema or {"type": "object", "properties": {}},
        },
    }


def tool_schema_tokens(
    tools: Iterable[ToolInfo], count_text: Callable[[str], int] = estimate_text_tokens
) -> int:
    """Prompt tokens the tools' definitions take (0 without tools)."""
    return sum(definition_tokens(tool_definition(tool), count_text) for tool in tools)


def definition_tokens(definition: dict[str, object], count_text: Callable[[str], int]) -> int:
    """One definition's tokens: its JSON text and the template's wrapping."""
    text = json.dumps(definition, ensure_ascii=False, separators=(",", ":"))
    return count_text(text) + TOKENS_PER_TOOL
