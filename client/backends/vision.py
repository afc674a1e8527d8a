"""Which models can see: what each server says before anything is sent.

Ollama: POST /api/show `capabilities` lists "vision" (an Ollama old enough to list no
capabilities says nothing). llama-server: GET /props `modalities.vision` (true when it
was started with a multimodal projector). vLLM, LM Studio and others say nothing here:
an image is tried, and a refusal comes back as `ImagesRefused` in plain words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from client.backends.apis.ollama.backend import OllamaBackend
from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.base import Backend
from client.backends.errors import TachyError
from client.backends.http_json import request_json


@dataclass(frozen=True, slots=True)
class VisionSupport:
    sees: bool | None  # None: the server does not say (try, and show a refusal)
    image_size: int | None = None  # the encoder's input side in pixels, when told
    source: str = ""  # where it was read: "/api/show", "/props", ""


UNKNOWN = VisionSupport(None)


async def vision_support(backend: Backend, model: str) -> VisionSupport:
    """What the server says of `model` and images; UNKNOWN when it cannot say."""
    try:
        if isinstance(backend, OllamaBackend):
            return await _ollama(backend, model)
        if isinstance(backend, OpenAICompatBackend):
            return await _llama_server(backend)
    except TachyError:
        return UNKNOWN
    return UNKNOWN


async def _ollama(backend: OllamaBackend, model: str) -> VisionSupport:
    details = await backend.show(model)
    if not details.capabilities:
        return UNKNOWN
    sees = "vision" in details.capabilities
    return VisionSupport(sees, details.image_size if sees else None, "/api/show")


async def _llama_server(backend: OpenAICompatBackend) -> VisionSupport:
    answer: Any = await request_json(
        backend.client, "GET", f"{backend.base_url}/props", headers=backend.auth_headers()
    )
    modalities = answer.get("modalities") if isinstance(answer, dict) else None
    if not isinstance(modalities, dict) or "vision" not in modalities:
        return UNKNOWN
    return VisionSupport(bool(modalities["vision"]), None, "/props")
