"""OpenAI-compatible servers: vLLM, llama.cpp server, LM Studio, Ollama's /v1.

The backend starts as the generic OpenAI-compatible kind and learns which kind it talks
to from what the server shows (client/backends/kinds/registry.py asks each kind); from
then on the body, the stream's timings and the continuation follow that kind.
"""

from __future__ import annotations

from typing import Any

import httpx

from client.backends.apis.openai.decoder import OpenAIStreamDecoder
from client.backends.apis.openai.tokenizer import ServerTokenizer
from client.backends.base import ModelInfo
from client.backends.errors import BackendUnreachable, TachyError
from client.backends.http_json import as_dict, error_mapper, new_client, request_json, root_url
from client.backends.kinds import registry
from client.backends.kinds.kind import ServerKind
from client.backends.kinds.openai import OPENAI
from client.backends.kinds.openai.body import chat_body
from client.backends.stream import ChatStream, HttpCall, StreamTimeouts
from client.core.conversation import ChatRequest

# Where servers put a model's context window in /v1/models: vLLM max_model_len,
# llama.cpp meta.n_ctx_train, LM Studio (api v0) max_context_length, others context_length.
CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length", "n_ctx")
META_CONTEXT_KEYS = ("n_ctx", "n_ctx_train")

__all__ = ["OpenAICompatBackend", "chat_body", "context_length"]


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
        # Off unless known (said here, or the server showed its kind takes the flag): the
        # prompt fallback of client.services.planning.continuation works on every server,
        # a flag a server does not know may be refused.
        self._continue_final_message = supports_continue_final_message
        self._tokenizer = ServerTokenizer(self.client, self.base_url, self._headers())
        # Which kind it is, once the server showed it (never unsaid); until then the
        # generic kind, whose body has no field another server might refuse.
        self.kind: ServerKind = OPENAI
        self.server_name = OPENAI.server_name  # as users call it ("vLLM router · 2 workers")
        self._models_read = False
        self._probed = False  # asked the kinds' own endpoints (a router's) once
        self.client.event_hooks["response"].append(self._notice_server)

    @property
    def closed(self) -> bool:
        return self.client.is_closed

    @property
    def continues_trailing_assistant(self) -> bool:
        return self.kind.continues_trailing_assistant

    @property
    def supports_continue_final_message(self) -> bool:
        return self._continue_final_message or self.kind.continues_final_message_flag

    def chat(self, request: ChatRequest, timeouts: StreamTimeouts | None = None) -> ChatStream:
        call = HttpCall(
            "POST",
            f"{self.base_url}/v1/chat/completions",
            json=self.kind.body(request),
            headers=self._headers(),
        )
        stream = ChatStream(
            self.client,
            call,
            OpenAIStreamDecoder(request.model),
            request.model,
            error_mapper(request.model),
            timeouts,
        )
        if self.kind.hides_worker and self.kind.timings is not None:  # kept with its figures:
            stream.server_timings.append(self.kind.timings())  # "via router", reopened too
        return stream

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

    async def server_kind(self) -> ServerKind:
        """The kind the server shows: by an endpoint of its kind's own (a router's, asked
        once: what it forwards is one worker's), else by its answers' headers, else by
        /v1/models' owned_by (read until it has answered once)."""
        if not self._probed:
            await self._probe()
        if self.kind is OPENAI and not self._models_read:
            try:
                answer = await request_json(
                    self.client, "GET", f"{self.base_url}/v1/models", headers=self._headers()
                )
            except TachyError:
                return self.kind  # not answering now: asked again next time
            self._notice_owners(_owners(answer))
        return self.kind

    async def count_tokens(self, text: str, model: str) -> int | None:
        return await self._tokenizer.count(text, model)

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    async def _probe(self) -> None:
        for kind in registry.probed_kinds(self.api):
            assert kind.probe is not None
            try:
                answer = await request_json(
                    self.client, "GET", f"{self.base_url}{kind.probe.path}", headers=self._headers()
                )
            except BackendUnreachable:
                return  # not answering now: asked again next time
            except TachyError:
                continue  # answered, but not as this kind (404 on a server)
            name = kind.probe.name_of(answer)
            if name is not None:
                self.kind, self.server_name = kind, name
                break
        self._probed = True

    async def _notice_server(self, response: httpx.Response) -> None:
        # A client may be shared between servers: only this server's answers count.
        if self.kind is OPENAI and str(response.request.url).startswith(f"{self.base_url}/"):
            self._become(registry.kind_by_header(response.headers.get("server", "")))

    def _notice_owners(self, owners: set[str]) -> None:
        """What /v1/models' owned_by says of the server (it never unsays a kind)."""
        self._models_read = True
        if self.kind is OPENAI:
            self._become(registry.kind_by_owner(owners))

    def _become(self, kind: ServerKind | None) -> None:
        if kind is not None:
            self.kind, self.server_name = kind, kind.server_name

    def auth_headers(self) -> dict[str, str]:
        """The headers every request to this server carries (the API key, if any)."""
        return self._headers()

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}


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
