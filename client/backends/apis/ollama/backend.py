"""Ollama's native API: streaming /api/chat plus tags, ps, show and version
(the body: body.py; the stream's decoder: decoder.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from client.backends.apis.ollama import models as ollama_models
from client.backends.apis.ollama.decoder import OllamaDecoder
from client.backends.apis.ollama.models import PullProgress
from client.backends.base import ModelInfo
from client.backends.errors import TachyError
from client.backends.http_json import as_dict, error_mapper, new_client, request_json, root_url
from client.backends.kinds.kind import ServerKind
from client.backends.kinds.ollama import OLLAMA
from client.backends.kinds.ollama.body import chat_body
from client.backends.stream import ChatStream, HttpCall, StreamTimeouts
from client.core.conversation import ChatRequest

DEFAULT_URL = "http://127.0.0.1:11434"


@dataclass(frozen=True, slots=True)
class ModelDetails:
    """What POST /api/show says about one model."""

    name: str
    context_length: int | None = None
    family: str | None = None
    parameter_size: str | None = None
    quantization: str | None = None
    capabilities: tuple[str, ...] = ()
    # The vision encoder's input size in pixels (model_info "<arch>.vision.image_size"
    # or projector_info "clip.vision.image_size"), for a model that can see.
    image_size: int | None = None


class OllamaBackend:
    api = "ollama"

    def __init__(self, base_url: str = DEFAULT_URL, client: httpx.AsyncClient | None = None):
        self.base_url = root_url(base_url, ("/api/chat", "/api", "/v1"))
        self._own_client = client is None
        self.client = client or new_client()

    @property
    def closed(self) -> bool:
        return self.client.is_closed

    @property
    def continues_trailing_assistant(self) -> bool:
        return OLLAMA.continues_trailing_assistant

    @property
    def supports_continue_final_message(self) -> bool:
        return False  # no flag needed: see continues_trailing_assistant

    def chat(self, request: ChatRequest, timeouts: StreamTimeouts | None = None) -> ChatStream:
        """A stream for one request. An empty message list only loads the model
        (Ollama answers done_reason "load")."""
        call = HttpCall("POST", f"{self.base_url}/api/chat", json=chat_body(request))
        return ChatStream(
            self.client,
            call,
            OllamaDecoder(request.model),
            request.model,
            error_mapper(request.model),
            timeouts,
        )

    async def list_models(self) -> list[ModelInfo]:
        """Installed models, marked loaded (with expiry) when /api/ps lists them."""
        tags, running = await asyncio.gather(self._get("/api/tags"), self._running_or_none())
        loaded = {m.name: m for m in running or []}
        models = []
        for entry in _model_entries(tags):
            name = str(entry.get("name") or entry.get("model") or "")
            live = loaded.get(name)
            models.append(
                ModelInfo(
                    name=name,
                    context_length=live.context_length if live else None,
                    size_bytes=_int(entry.get("size")),
                    loaded=live is not None if running is not None else None,
                    expires_at=live.expires_at if live else None,
                    size_vram=live.size_vram if live else None,
                )
            )
        return models

    async def running_models(self) -> list[ModelInfo]:
        """Models loaded in memory now (GET /api/ps), with when they unload."""
        answer = await self._get("/api/ps")
        return [
            ModelInfo(
                name=str(entry.get("name") or entry.get("model") or ""),
                context_length=_int(entry.get("context_length")),
                size_bytes=_int(entry.get("size")),
                loaded=True,
                expires_at=entry.get("expires_at"),
                size_vram=_int(entry.get("size_vram")),
            )
            for entry in _model_entries(answer)
        ]

    async def context_length(self, model: str) -> int | None:
        """From /api/show's model_info, else the /api/ps entry of a loaded model."""
        try:
            length = (await self.show(model)).context_length
            if length:
                return length
            return next(
                (m.context_length for m in await self.list_models() if m.name == model), None
            )
        except TachyError:
            return None

    @property
    def kind(self) -> ServerKind:
        return OLLAMA

    async def server_kind(self) -> ServerKind:
        return OLLAMA

    @property
    def server_name(self) -> str:
        return OLLAMA.server_name

    async def count_tokens(self, text: str, model: str) -> int | None:
        return None  # Ollama has no tokenize endpoint

    async def _running_or_none(self) -> list[ModelInfo] | None:
        try:
            return await self.running_models()
        except TachyError:  # an old Ollama without /api/ps: the list still works
            return None

    async def show(self, model: str) -> ModelDetails:
        answer = as_dict(
            await request_json(
                self.client,
                "POST",
                f"{self.base_url}/api/show",
                json={"model": model},
                model=model,
            ),
            "the /api/show answer",
        )
        info = _dict(answer.get("model_info"))
        details = _dict(answer.get("details"))
        family = info.get("general.architecture") or details.get("family")
        context = info.get(f"{family}.context_length") if family else None
        if context is None:  # a model whose architecture key differs from its family
            context = next((v for k, v in info.items() if k.endswith(".context_length")), None)
        capabilities = answer.get("capabilities")
        return ModelDetails(
            name=model,
            context_length=_int(context),
            family=str(family) if family else None,
            parameter_size=details.get("parameter_size"),
            quantization=details.get("quantization_level"),
            capabilities=tuple(capabilities) if isinstance(capabilities, list) else (),
            image_size=_image_size(info, _dict(answer.get("projector_info"))),
        )

    def pull(self, model: str) -> AsyncIterator[PullProgress]:
        """Download a model; its progress (client/backends/apis/ollama/models.py)."""
        return ollama_models.pull(self.client, self.base_url, model)

    async def delete(self, model: str) -> None:
        await ollama_models.delete(self.client, self.base_url, model)

    async def version(self) -> str:
        answer = as_dict(await self._get("/api/version"), "the /api/version answer")
        return str(answer.get("version", ""))

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    async def _get(self, path: str) -> Any:
        return await request_json(self.client, "GET", f"{self.base_url}{path}")


def _model_entries(answer: Any) -> list[dict[str, Any]]:
    models = as_dict(answer, "the model list").get("models")
    if not isinstance(models, list):
        return []
    return [m for m in models if isinstance(m, dict)]


def _image_size(*infos: dict[str, Any]) -> int | None:
    for info in infos:
        for key, value in info.items():
            if key.endswith(".vision.image_size") and _int(value):
                return _int(value)
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    return None
