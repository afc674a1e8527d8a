"""What every backend offers, whatever protocol it speaks.

The services (session, warmer, token counter) reach a server only through this
protocol: each backend does its own HTTP, so nothing outside client.backends needs a
backend's client, URL paths or attributes it may not have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from client.backends.kinds.kind import ServerKind
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
    api: str  # the wire protocol: "ollama" or "openai"
    base_url: str

    @property
    def closed(self) -> bool:
        """True once its HTTP client is closed (the app is quitting): send nothing."""
        ...

    @property
    def continues_trailing_assistant(self) -> bool:
        """Whether the server continues a final assistant message by itself: Ollama,
        and llama.cpp's server (prefill_assistant, its default since llama.cpp PR 13174)."""
        ...

    @property
    def supports_continue_final_message(self) -> bool:
        """Whether the server continues a trailing assistant message when asked by
        ``ChatRequest.continue_final_message`` (vLLM)."""
        ...

    def chat(self, request: ChatRequest, timeouts: StreamTimeouts | None = None) -> ChatStream:
        """A stream for one request; nothing is sent until it is iterated. Warm-ups
        and Ollama's keep-alive load request (no messages) go through here too."""
        ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def running_models(self) -> list[ModelInfo] | None:
        """Models loaded in memory now, with when they unload; None when the server
        does not say (only Ollama's /api/ps does)."""
        ...

    async def context_length(self, model: str) -> int | None:
        """The model's context window in tokens; None when not known (never raises)."""
        ...

    @property
    def kind(self) -> ServerKind:
        """The server's kind as far as it has shown it yet (client/backends/kinds)."""
        ...

    @property
    def server_name(self) -> str:
        """The server as users call it: its kind's name, with what it said of itself
        ("vLLM router · 2 workers"); complete once server_kind() was asked."""
        ...

    async def server_kind(self) -> ServerKind:
        """The server's kind, asking it when it has not shown it yet; its API's
        generic kind when it does not say (never raises)."""
        ...

    async def count_tokens(self, text: str, model: str) -> int | None:
        """The server's own token count of text; None when it has no tokenizer
        endpoint or did not answer (never raises)."""
        ...

    async def aclose(self) -> None: ...
