"""The tools' definitions counted for the prompt budget."""

from __future__ import annotations

import json

from client.services.tools.tool_offer import (
    TOKENS_PER_TOOL,
    tool_definition,
    tool_schema_tokens,
)
from client.services.tools.tool_types import ToolInfo

ADD = ToolInfo(
    "demo",
    "add",
    "Add two numbers.",
    {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
)


def test_no_tools_cost_nothing_and_each_costs_its_json_and_its_wrapping() -> None:
    assert tool_schema_tokens([]) == 0
    text = json.dumps(tool_definition(ADD), separators=(",", ":"))
    assert tool_schema_tokens([ADD]) == -(-len(text) // 4) + TOKENS_PER_TOOL
    assert tool_schema_tokens([ADD, ADD]) == 2 * tool_schema_tokens([ADD])


def test_the_callers_counter_is_used() -> None:
    assert tool_schema_tokens([ADD], count_text=lambda _: 100) == 100 + TOKENS_PER_TOOL
    bare = ToolInfo("demo", "now", "The time.")
    assert tool_definition(bare)["function"] == {
        "name": "now",
        "description": "The time.",
        "parameters": {"type": "object", "properties": {}},
    }
