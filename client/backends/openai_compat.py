"""OpenAI-compatible servers: vLLM, llama.cpp server, LM Studio, Ollama's /v1."""

from __future__ import annotations

from typing import Any

import httpx

from client.backends import tool_wire
from client.backends.base import ModelInfo
from client.backends.errors import TachyError
from client.backends.http_json import as_dict, error_mapper, new_client, request_json, root_url
from client.backends.sse import OpenAIStreamDecoder
from client.backends.stream import ChatStream, HttpCall, StreamTimeouts
from client.backends.tokenizer import ServerTokenizer
from client.core.conversation import ChatMessage, ChatRequest

# Where servers put a model's context window in /v1/models: vLLM max_model_len,
# llama.cpp meta.n_ctx_train, LM Studio (api v0) max_context_length, others context_length.
CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length", "n_ctx")
META_CONTEXT_KEYS = ("n_ctx", "n_ctx_train")
# What llama.cpp server, vLLM and llama-cpp-python put in /v1/models' owned_by.
SERVER_OWNERS = (("llamacpp", "llamacpp"), ("vllm", "vllm"), ("me", "llama-cpp-python"))
# How a llama.cpp server (llama-server, and so the local engine) shows itself: the
# `Server` header of every answer, and `owned_by` in /v1/models.
LLAMACPP_SERVER_HEADER = "llama.cpp"
LLAMACPP_OWNER = "llamacpp"
VLLM_OWNER = "vllm"


class OpenAICompatBackend:
    api = "openai"

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        *,
        supports_continue_final_message: bool = False,
    ) -> None:
        # Users paste both "http://host:8000" and "http://host:8000/v1".
        self.base_url = root_url(base_url, ("/v1/chat/completions", "/v1"))
        self._api_key = api_key
        self._own_client = client is None
        self.client = client or new_client()
        # Off unless known (said here, or the server showed it is vLLM): the prompt
        # fallback of client.services.planning.continuation works on every server, a
        # flag a server does not know may be refused.
        self._continue_final_message = supports_continue_final_message
        self.vllm = False  # set once /v1/models said owned_by "vllm"
        self._tokenizer = ServerTokenizer(self.client, self.base_url, self._headers())
        self._kind: str | None = None
        self._kind_known = False
        # Set once the server has shown it is llama.cpp's: from then on every request
        # asks for prompt progress (other servers may refuse an unknown field).
        self.llama_cpp = False
        self.client.event_hooks["response"].append(self._notice_server)

    @property
    def closed(self) -> bool:
        return self.client.is_closed

    @property
    def continues_trailing_assistant(self) -> bool:
        # llama-server continues a final assistant message unless started with
        # --no-prefill-assistant (which no /props field shows).
        return self.llama_cpp

    @property
    def supports_continue_final_message(self) -> bool:
        return self._continue_final_message or self.vllm

    def chat(self, request: ChatRequest, timeouts: StreamTimeouts | None = None) -> ChatStream:
        body = chat_body(request)
        if self.llama_cpp:
            body["return_progress"] = True  # prompt_progress chunks while it reads
            if request.slot is not None:
                body["id_slot"] = request.slot
        call = HttpCall(
            "POST",
            f"{self.base_url}/v1/chat/completions",
            json=body,
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
        self._notice_owners(_owners(answer))
        return [
            ModelInfo(name=str(entry.get("id", "")), context_length=context_length(entry))
            for entry in entries
            if isinstance(entry, dict)
        ]

    async def running_models(self) -> list[ModelInfo] | None:
        return None  # OpenAI-compatible servers do not say what is loaded

    async def context_length(self, model: str) -> int | None:
        try:
            models = await self.list_models()
        except TachyError:
            return None
        return next((m.context_length for m in models if m.name == model), None)

    async def server_kind(self) -> str | None:
        """llama.cpp server, vLLM and llama-cpp-python say who they are in /v1/models."""
        if not self._kind_known:
            self._kind = await self._read_kind()
            self._kind_known = self._kind is not None  # a failed read is tried again
        return self._kind

    async def _read_kind(self) -> str | None:
        try:
            answer = await request_json(
                self.client, "GET", f"{self.base_url}/v1/models", headers=self._headers()
            )
        except TachyError:
            return None
        owners = _owners(answer)
        self._notice_owners(owners)
        return next((kind for owner, kind in SERVER_OWNERS if owner in owners), None)

    async def count_tokens(self, text: str, model: str) -> int | None:
        return await self._tokenizer.count(text, model)

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    async def _notice_server(self, response: httpx.Response) -> None:
        # A client may be shared between servers: only this server's answers count.
        if response.headers.get("server") == LLAMACPP_SERVER_HEADER and str(
            response.request.url
        ).startswith(f"{self.base_url}/"):
            self.llama_cpp = True

    def _notice_owners(self, owners: set[str]) -> None:
        """What /v1/models' owned_by says of the server (it never unsays it)."""
        self.llama_cpp = self.llama_cpp or LLAMACPP_OWNER in owners
        self.vllm = self.vllm or VLLM_OWNER in owners

    def auth_headers(self) -> dict[str, str]:
        """The headers every request to this server carries (the API key, if any)."""
        return self._headers()

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}


def chat_body(request: ChatRequest) -> dict[str, Any]:
    options = request.options
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [_message(m) for m in request.messages],
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
    if request.tools:
        body["tools"] = [tool.wire() for tool in request.tools]
    if request.continue_final_message:
        # vLLM's names; the trailing assistant message is continued, not answered.
        body["continue_final_message"] = True
        body["add_generation_prompt"] = False
    return body


def _message(message: ChatMessage) -> dict[str, Any]:
    """One chat message; with images, its content is a list of parts: the text, then
    each image as an `image_url` part holding a data URL (vLLM, llama-server with a
    multimodal projector and LM Studio read these)."""
    if message.tool_calls or message.role == "tool":
        return tool_wire.openai_message(message)
    if not message.images:
        return {"role": message.role, "content": message.content}
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    parts += [
        {"type": "image_url", "image_url": {"url": image.data_url()}} for image in message.images
    ]
    return {"role": message.role, "content": parts}


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


def _owners(answer: Any) -> set[str]:
    entries = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(entries, list):
        return set()
    return {str(e.get("owned_by", "")).lower() for e in entries if isinstance(e, dict)}
