"""Tool calls and results in request bodies, in each dialect.

Ollama (docs/api.md, api/types.go Message): an assistant message carries
`tool_calls: [{"id", "function": {"index", "name", "arguments": {...}}}]`, arguments an
object; a result is `{"role": "tool", "content", "tool_name", "tool_call_id"}` (the name
is what its docs send; the id is in its Message type too).

OpenAI-compatible: the assistant message carries `tool_calls: [{"id", "type":
"function", "function": {"name", "arguments": "<JSON text>"}}]`, then one
`{"role": "tool", "tool_call_id", "content"}` per call.
"""

from __future__ import annotations

from typing import Any

from client.core.conversation import ChatMessage


def ollama_fields(message: ChatMessage) -> dict[str, Any]:
    """What a message adds to Ollama's {"role", "content"} for tools (often nothing)."""
    fields: dict[str, Any] = {}
    if message.tool_calls:
        fields["tool_calls"] = [
            {
                **({"id": call.id} if call.id else {}),
                "function": {
                    "index": call.index,
                    "name": call.name,
                    "arguments": call.arguments,
                },
            }
            for call in message.tool_calls
        ]
    if message.role == "tool":
        if message.tool_name:
            fields["tool_name"] = message.tool_name
        if message.tool_call_id:
            fields["tool_call_id"] = message.tool_call_id
    return fields


def openai_message(message: ChatMessage) -> dict[str, Any]:
    """An assistant message with its calls, or a role "tool" message with a result."""
    if message.role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": message.content,
        }
    return {
        "role": message.role,
        "content": message.content,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()},
            }
            for call in message.tool_calls
        ],
    }
