"""Messages as the backends send them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from client.core.images import ImagePart
from client.core.tools import ToolCall, ToolResult, ToolSpec

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str
    images: tuple[ImagePart, ...] = ()  # a user message's images (models that can see)
    tool_calls: tuple[ToolCall, ...] = ()  # an assistant message's calls
    # A role "tool" message answers one call: OpenAI names it by id, Ollama by the tool.
    tool_call_id: str | None = None
    tool_name: str | None = None

    @classmethod
    def tool_result(cls, result: ToolResult) -> ChatMessage:
        """The message that gives a tool's result back to the model."""
        return cls("tool", result.content, tool_call_id=result.call_id, tool_name=result.name)


@dataclass(slots=True)
class GenerationOptions:
    """Options every backend understands; each maps them to its own names."""

    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None  # the longest answer, in tokens
    num_ctx: int | None = None  # the context window asked for, where a server takes it
    stop: list[str] | None = None


@dataclass(slots=True)
class ChatRequest:
    model: str
    messages: list[ChatMessage]
    options: GenerationOptions = field(default_factory=GenerationOptions)
    keep_alive: str | int | None = None  # how long to keep the model: "30m", seconds, -1, 0
    think: bool | str | None = None  # the reasoning switch, where a server takes it
    continue_final_message: bool = False  # continue a trailing assistant message
    slot: int | None = None  # llama.cpp's id_slot: the slot to run in (type-ahead's reads)
    tools: tuple[ToolSpec, ...] = ()  # the tools the model may call
