"""Tool calls out of a model's stream, one accumulator per wire. Pure: dicts in, events out.

Ollama (/api/chat): each call arrives whole, `message.tool_calls[].function` with
`arguments` a JSON object, on any line, the done:true line included (server/routes.go
sends calls on the done line when its parser finishes there). A line may hold several.

OpenAI-compatible (llama-server --jinja, vLLM --enable-auto-tool-choice, LM Studio):
`delta.tool_calls[]` keyed by `index`; `id`, `type` and `function.name` once, then
`function.arguments` string fragments to concatenate; parallel calls interleave; vLLM's
finish chunk may carry the arguments' rest beside `finish_reason: "tool_calls"`.

Both give the same events (client/core/tools.py). Arguments that are not a JSON object
make the call invalid (ToolCall.error), never an exception: the stream's words are kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from client.core.tools import (
    ToolCall,
    ToolCallArguments,
    ToolCallEvent,
    ToolCallsRequested,
    ToolCallStarted,
    parse_arguments,
)


@dataclass(slots=True)
class _Call:
    """A call being assembled."""

    index: int
    key: int = 0  # the server's index (OpenAI): the calls' order
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    started: bool = False  # ToolCallStarted was handed on

    def complete(self) -> ToolCall:
        text = "".join(self.arguments)
        arguments, error = parse_arguments(text)
        if error is None and not self.name:
            error = "the model named no tool"
        return ToolCall(
            id=self.id or f"call_{self.index}",
            name=self.name,
            arguments=arguments,
            arguments_text=text,
            index=self.index,
            error=error,
        )


class _Calls:
    """The calls of one message, in the order they began; the end said once."""

    def __init__(self) -> None:
        self.calls: list[_Call] = []
        self._ended = False

    def new(self, key: int = 0) -> _Call:
        call = _Call(len(self.calls), key)
        self.calls.append(call)
        return call

    def end(self) -> list[ToolCallEvent]:
        """The complete calls, once, when the message had any."""
        if self._ended or not self.calls:
            return []
        self._ended = True
        ordered = sorted(self.calls, key=lambda call: (call.key, call.index))  # stable
        return [ToolCallsRequested(tuple(call.complete() for call in ordered))]

    @property
    def any(self) -> bool:
        return bool(self.calls)


class OllamaToolCalls:
    """Whole calls from /api/chat lines (`message.tool_calls`)."""

    def __init__(self) -> None:
        self._calls = _Calls()

    @property
    def any(self) -> bool:
        return self._calls.any

    def add(self, raw: Any) -> list[ToolCallEvent]:
        """The events of one line's `tool_calls` (anything but a list adds nothing)."""
        events: list[ToolCallEvent] = []
        for entry in raw if isinstance(raw, list) else ():
            function = entry.get("function") if isinstance(entry, dict) else None
            if not isinstance(function, dict):
                continue
            call = self._calls.new()  # Ollama's own function.index may be 0 for every call
            call.id = _text(entry.get("id"))
            call.name = _text(function.get("name"))
            call.arguments.append(_arguments_text(function.get("arguments")))
            call.started = True
            events.append(ToolCallStarted(call.index, call.id or f"call_{call.index}", call.name))
            if call.arguments[0]:
                events.append(ToolCallArguments(call.index, call.arguments[0]))
        return events

    def end(self) -> list[ToolCallEvent]:
        return self._calls.end()


class OpenAIToolCalls:
    """Index-keyed deltas from chat.completion.chunk events (`delta.tool_calls`)."""

    def __init__(self) -> None:
        self._calls = _Calls()
        self._open: dict[int, _Call] = {}  # the server's index -> the call open at it

    @property
    def any(self) -> bool:
        return self._calls.any

    def add(self, raw: Any) -> list[ToolCallEvent]:
        """The events of one delta's `tool_calls` (null, [] or junk add nothing)."""
        events: list[ToolCallEvent] = []
        for entry in raw if isinstance(raw, list) else ():
            if isinstance(entry, dict):
                events.extend(self._add_one(entry))
        return events

    def _add_one(self, entry: dict[str, Any]) -> list[ToolCallEvent]:
        key = entry.get("index")
        key = key if isinstance(key, int) and not isinstance(key, bool) else 0
        function = entry.get("function")
        function = function if isinstance(function, dict) else {}
        call_id, name = _text(entry.get("id")), _text(function.get("name"))
        call = self._open.get(key)
        # Another id or another name starts a new call, even at the same index (servers
        # and proxies that number every parallel call 0, or leave the index out).
        if call is None or _differs(call_id, call.id) or _differs(name, call.name):
            call = self._open[key] = self._calls.new(key)
        call.id = call.id or call_id
        if name and not call.name:
            call.name = name
        fragment = _arguments_text(function.get("arguments"))
        if fragment:
            call.arguments.append(fragment)
        if not call.started:
            if not call.name:
                return []  # arguments before the name: handed on with it
            call.started = True
            held = "".join(call.arguments)
            started = ToolCallStarted(call.index, call.id or f"call_{call.index}", call.name)
            return [started, ToolCallArguments(call.index, held)] if held else [started]
        return [ToolCallArguments(call.index, fragment)] if fragment else []

    def end(self) -> list[ToolCallEvent]:
        return self._calls.end()


def _differs(new: str, known: str) -> bool:
    return bool(new and known and new != known)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _arguments_text(value: Any) -> str:
    """Arguments as JSON text: OpenAI's string as it is, Ollama's object serialised."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)
