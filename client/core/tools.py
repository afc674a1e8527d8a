"""Tools a model may call, its calls, their results, and the stream events of a call.

Pure values: every server kind's decoder produces these (client/backends/tool_calls.py),
every body writer reads them, and the agent loop passes them between the two.

A call streams in three steps, the same on every server kind:
`ToolCallStarted` (its name is known; its arguments start), `ToolCallArguments` (a
fragment of the arguments' JSON text, as it arrives), and at the end of the model's
message one `ToolCallsRequested` with every call complete. Ollama sends each call whole:
its started event is followed at once by one fragment holding all of its arguments.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model is told of it: `parameters` is a JSON schema (an object)."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def wire(self) -> dict[str, Any]:
        """The entry of a request's `tools` (Ollama and the OpenAI API spell it alike)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call the model asked for.

    id: the server's (OpenAI, recent Ollama) or one Tachy gave it (`call_<index>`).
    arguments_text: the arguments' JSON text as it came (Ollama's object, serialised).
    error: set when the arguments are not a JSON object (a call that must not run; the
    model is told why instead); `arguments` is then empty.
    """

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    arguments_text: str = ""
    index: int = 0  # its place among the message's calls
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.error is None and bool(self.name)

    def arguments_json(self) -> str:
        """Arguments to send back to a server: always valid JSON (a server that parses
        them to render its template would refuse the broken text of an invalid call)."""
        if self.error is None and self.arguments_text:
            return self.arguments_text
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool gave back, for the model: content text, marked when it is an error
    (the tool failed, was denied by the user, or the call was invalid)."""

    call_id: str
    name: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A call's name is known; its arguments start streaming (Allow stays disabled)."""

    index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArguments:
    """A fragment of a call's arguments' JSON text, as it arrived (not valid JSON alone)."""

    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallsRequested:
    """The model's message ended with these calls, complete (Allow may be enabled)."""

    calls: tuple[ToolCall, ...]


ToolCallEvent = ToolCallStarted | ToolCallArguments | ToolCallsRequested


def parse_arguments(text: str) -> tuple[dict[str, Any], str | None]:
    """A call's arguments from their JSON text: (arguments, None), or ({}, why not).

    Empty text is no arguments (llama.cpp sends "" for a tool without parameters). A JSON
    string holding an object is read once more (some servers encode the object twice)."""
    if not text.strip():
        return {}, None
    try:
        value = json.loads(text)
        if isinstance(value, str):
            value = json.loads(value)
    except json.JSONDecodeError as error:
        return {}, f"the arguments are not valid JSON ({error.msg} at character {error.pos})"
    except RecursionError:  # a hostile model's [[[[...: a bad call, not a crash
        return {}, "the arguments are nested too deeply to read"
    if not isinstance(value, dict):
        return {}, f"the arguments are {_json_kind(value)}, not a JSON object"
    return value, None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, list):
        return "an array"
    return "a number"


__all__ = [
    "ToolCall",
    "ToolCallArguments",
    "ToolCallEvent",
    "ToolCallStarted",
    "ToolCallsRequested",
    "ToolResult",
    "ToolSpec",
    "parse_arguments",
]
