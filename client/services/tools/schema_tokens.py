"""What the tools' definitions cost in the prompt: the planner counts them in the budget
and in the predicted wait (each request with tools carries them all, before the chat).

Servers put the definitions in the prompt through the chat template as JSON, close to
OpenAI's `{"type": "function", "function": {name, description, parameters}}`; a template
wraps each in a few tokens more. Counted with the caller's counter (the server's
tokenizer where it has one), else 4 characters per token.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from client.core.budget import estimate_text_tokens
from client.services.tools.tool_types import ToolInfo

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
    total = 0
    for tool in tools:
        text = json.dumps(tool_definition(tool), ensure_ascii=False, separators=(",", ":"))
        total += count_text(text) + TOKENS_PER_TOOL
    return total
