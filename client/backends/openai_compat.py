"""OpenAI-compatible servers: vLLM, llama.cpp server, LM Studio, Ollama's /v1."""

from __future__ import annotations

from typing import Any

import httpx

from client.backends.base import ModelInfo
from client.backends.http_json import as_dict, error_mapper, new_client, request_json, root_url
from client.backends.sse import OpenAIStreamDecoder
from client.backends.stream import ChatStream, HttpCall, StreamTimeouts
from client.core.conversation import ChatRequest

# Where servers put a model's context window in /v1/models: vLLM max_model_len,
# llama.cpp meta.n_ctx_train, LM Studio (api v0) max_context_length, others context_length.
CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length", "n_ctx")
META_CONTEXT_KEYS = ("n_ctx", "n_ctx_train")


class OpenAICompatBackend:
    api = "openai"

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        # Users paste both "http://host:8000" and "http://host:8000/v1".
        self.base_url = root_url(base_url, ("/v1/chat/completions", "/v1"))
        self._api_key = api_key
        self._own_client = client is None
        self.client = client or new_client()

    def chat(self, request: ChatRequest, timeouts: StreamTimeouts | None = None) -> ChatStream:
        call = HttpCall(
            "POST",
            f"{self.base_url}/v1/chat/completions",
            json=chat_body(request),
            headers=self._headers(),
        )
        return ChatStream(
            self.client,
            call,
            OpenAIStreamDecoder(request.model),
            request.model,
            error_mapper(request.model),
            timeouts,
        )

    async def list_models(self) -> list[ModelInfo]:
        answer = as_dict(
            await request_json(
                self.client, "GET", f"{self.base_url}/v1/models", headers=self._headers()
            ),
            "the /v1/models answer",
        )
        entries = answer.get("data")
        if not isinstance(entries, list):
            return []
        return [
            ModelInfo(name=str(entry.get("id", "")), context_length=context_length(entry))
            for entry in entries
            if isinstance(entry, dict)
        ]

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}


def chat_body(request: ChatRequest) -> dict[str, Any]:
    options = request.options
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    mapped = {
        "max_tokens": options.max_tokens,
        "temperature": options.temperature,
        "seed": options.seed,
        "stop": options.stop,
    }
    body.update({key: value for key, value in mapped.items() if value is not None})
    if request.continue_final_message:
        # vLLM's names; the trailing assistant message is continued, not answered.
        body["continue_final_message"] = True
        body["add_generation_prompt"] = False
    return body


def context_length(entry: dict[str, Any]) -> int | None:
    for key in CONTEXT_KEYS:
        if _positive_int(entry.get(key)):
            return int(entry[key])
    meta = entry.get("meta")
    if isinstance(meta, dict):
        for key in META_CONTEXT_KEYS:
            if _positive_int(meta.get(key)):
                return int(meta[key])
    return None


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
