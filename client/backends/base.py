"""What every backend offers, whatever protocol it speaks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from client.backends.stream import ChatStream, StreamTimeouts
from client.core.conversation import ChatRequest


@dataclass(frozen=True, slots=True)
class ModelInfo:
    name: str
    context_length: int | None = None
    size_bytes: int | None = None
    loaded: bool | None = None
    expires_at: str | None = None  # ISO time (Ollama /api/ps)
    size_vram: int | None = None


class Backend(Protocol):
    api: str  # "ollama" or "openai"
    base_url: str

    def chat(self, request: ChatRequest, timeouts: StreamTimeouts | None = None) -> ChatStream:
        """A stream for one request; nothing is sent until it is iterated."""
        ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def aclose(self) -> None: ...
