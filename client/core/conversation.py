"""Messages as the backends send them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

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
    max_tokens: int | None = None  # Ollama num_predict
    num_ctx: int | None = None  # Ollama only
    stop: list[str] | None = None

    def ollama_options(self) -> dict[str, Any]:
        names = {
            "temperature": self.temperature,
            "seed": self.seed,
            "num_predict": self.max_tokens,
            "num_ctx": self.num_ctx,
            "stop": self.stop,
        }
        return {k: v for k, v in names.items() if v is not None}


@dataclass(slots=True)
class ChatRequest:
    model: str
    messages: list[ChatMessage]
    options: GenerationOptions = field(default_factory=GenerationOptions)
    keep_alive: str | int | None = None  # Ollama: "30m", seconds, -1 forever, 0 unload
    think: bool | str | None = None  # Ollama reasoning switch
    continue_final_message: bool = False  # continue a trailing assistant message
    slot: int | None = None  # llama.cpp's id_slot: the slot to run in (type-ahead's reads)
    tools: tuple[ToolSpec, ...] = ()  # the tools the model may call
