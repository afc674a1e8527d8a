"""The one event stream every backend produces, whatever the server speaks.

A stream is: Started, then any number of Prefill (before the first token) / Token /
Usage / ServerTimings, then exactly one of Done or Failed. Decoders produce the middle
part from bytes; the backend stream adds Started and the final event.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, is_dataclass
from enum import StrEnum
from typing import Any

from client.core.server_timings import ServerTimings
from client.core.tools import (
    ToolCall,
    ToolCallArguments,
    ToolCallsRequested,
    ToolCallStarted,
)


class TokenKind(StrEnum):
    ANSWER = "answer"
    THINKING = "thinking"


class DoneReason(StrEnum):
    STOP = "stop"  # the model finished
    LENGTH = "length"  # hit num_predict / max_tokens
    CANCELLED = "cancelled"  # the user stopped it; the connection was closed
    LOAD = "load"  # Ollama: an empty request only loaded the model
    UNLOAD = "unload"  # Ollama: keep_alive 0 unloaded the model
    TOOL_CALLS = "tool_calls"  # the model asked for tools (whatever Ollama says)
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Started:
    """The request was written to the socket."""

    model: str
    at_ns: int


@dataclass(frozen=True, slots=True)
class Token:
    """Text of one token-bearing chunk (it may hold several tokens), or of several of one
    kind that one network read brought (client/backends/transport/read_batches.py); the request's
    timeline stamps every chunk on its own. Never empty."""

    text: str
    kind: TokenKind = TokenKind.ANSWER


@dataclass(frozen=True, slots=True)
class Prefill:
    """The server's progress through the prompt before the first token (llama.cpp's
    `prompt_progress`, sent when a request asks `return_progress`).

    total: the prompt's tokens; cached: those taken from the prompt cache; processed:
    those done so far, the cached ones included; time_ms: the server's time spent
    computing so far.
    """

    processed: int
    total: int
    cached: int = 0
    time_ms: float = 0.0

    @property
    def computed(self) -> int:
        """Tokens computed so far (not from the cache)."""
        return max(self.processed - self.cached, 0)

    @property
    def to_compute(self) -> int:
        """Tokens the server has to compute in all: what the user waits for."""
        return max(self.total - self.cached, 0)

    @property
    def fraction(self) -> float:
        """How much of the computing is done, 0..1 (1 when nothing is left to compute)."""
        return min(self.computed / self.to_compute, 1.0) if self.to_compute else 1.0

    def seconds_left(self) -> float | None:
        """The rest at the rate measured so far; None before a batch was measured."""
        if self.computed <= 0 or self.time_ms <= 0:
            return None
        rate = self.computed / self.time_ms  # tokens per ms
        return max(self.to_compute - self.computed, 0) / rate / 1000.0


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Finished:
    """The chunk that names why the answer ended (OpenAI's `finish_reason`, Ollama's
    final line). On "stop" a chunk without text carries the end-of-sequence (or
    stop-string) token, which vLLM, llama.cpp and Ollama count in their output tokens,
    so e2el ends there (DESIGN.md). Only a decoder yields it: the stream stamps its
    arrival and does not hand it on."""

    reason: DoneReason


@dataclass(frozen=True, slots=True)
class Done:
    reason: DoneReason
    text: str = ""  # the whole answer text
    thinking: str = ""  # the whole reasoning text
    tool_calls: tuple[ToolCall, ...] = ()  # the calls the model's message ended with

    @property
    def wants_tools(self) -> bool:
        """The model asked for tools: run them and send their results back."""
        return bool(self.tool_calls)


@dataclass(frozen=True, slots=True)
class Failed:
    """The stream ended with an error. partial_text keeps every word that arrived."""

    error: Exception
    partial_text: str = ""
    partial_thinking: str = ""

    @property
    def message(self) -> str:
        return str(self.error)


ToolEvent = ToolCallStarted | ToolCallArguments | ToolCallsRequested
StreamEvent = Started | Prefill | Token | ToolEvent | Usage | ServerTimings | Done | Failed
# What a decoder may yield (no Started / Done-with-text: the stream adds those).
DecodedEvent = Prefill | Token | ToolEvent | Usage | ServerTimings | Finished | Done

__all__ = [
    "DecodedEvent",
    "Done",
    "DoneReason",
    "Failed",
    "Finished",
    "Prefill",
    "ServerTimings",
    "Started",
    "StreamEvent",
    "Token",
    "TokenKind",
    "ToolCallArguments",
    "ToolCallStarted",
    "ToolCallsRequested",
    "ToolEvent",
    "Usage",
]


def as_dict(event: StreamEvent) -> dict[str, Any]:
    """A JSON-friendly view of an event (for `tachy chat --json`, logs and exports)."""
    name = type(event).__name__.lower()
    if isinstance(event, Failed):
        return {
            "event": name,
            "error": str(event.error),
            "error_type": type(event.error).__name__,
            "partial_text": event.partial_text,
        }
    data = {item.name: getattr(event, item.name) for item in fields(event)}
    return {"event": name, **{k: _plain(v) for k, v in data.items()}}


def _fields_of(item: Any) -> Any:
    return asdict(item) if is_dataclass(item) and not isinstance(item, type) else item


def _plain(value: Any) -> Any:
    if isinstance(value, StrEnum):
        return str(value)
    if isinstance(value, tuple):  # a Done's or a ToolCallsRequested's calls
        return [_fields_of(item) for item in value]
    return value
