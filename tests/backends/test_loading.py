"""A server that is up but still loading its model (llama.cpp's 503 "Loading model"):
detection calls it an OpenAI-compatible server, the error is typed, and a caller
waits while it loads, within its limit."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.decoders import error_from_http
from client.backends.detect import detect, discover_local_servers
from client.backends.errors import BackendUnreachable, ModelLoading, ServerError
from client.backends.loading import while_loading

# What a real llama-server (xllamacpp) answered on /health, /v1/models and
# /v1/chat/completions in the second after its port opened.
LOADING = b'{"error":{"message":"Loading model","type":"unavailable_error","code":503}}'
MODELS = b'{"object":"list","data":[{"id":"smollm2","owned_by":"llamacpp"}]}'


def server(ready_after: int = 10**9) -> tuple[httpx.AsyncClient, list[str]]:
    """A llama.cpp server answering every request 503 Loading model, then (after
    `ready_after` requests) its model list; the paths asked, in order."""
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        headers = {"Server": "llama.cpp", "Content-Type": "application/json; charset=utf-8"}
        if len(asked) <= ready_after:
            return httpx.Response(503, content=LOADING, headers=headers)
        return httpx.Response(200, content=MODELS, headers=headers)

    return httpx.AsyncClient(transport=httpx.MockTransport(answer)), asked


async def test_detection_calls_a_loading_llama_server_openai_compatible() -> None:
    client, asked = server()
    async with client:
        assert await detect("http://127.0.0.1:8080", client) == "openai"
    assert "/v1/models" in asked


def test_a_503_loading_model_is_a_typed_error_with_a_plain_sentence() -> None:
    error = error_from_http(503, LOADING, "application/json")
    assert isinstance(error, ModelLoading) and error.retryable
    assert str(error) == "The server is still loading its model. Retry in a moment."
    busy = error_from_http(503, b'{"error": "server busy"}')
    assert type(busy) is ServerError  # another 503 is not a load


async def test_while_loading_asks_again_until_the_model_is_ready() -> None:
    client, asked = server(ready_after=3)
    heard: list[ModelLoading] = []
    backend = OpenAICompatBackend("http://127.0.0.1:8080", client=client)
    async with client:
        models = await while_loading(backend.list_models, 30.0, heard.append, poll_s=0.01)
    assert [m.name for m in models] == ["smollm2"]
    assert asked == ["/v1/models"] * 4
    assert len(heard) == 1  # told once, at the first "Loading model"


async def test_while_loading_gives_up_past_its_limit_saying_how_long_it_waited() -> None:
    client, _ = server()
    backend = OpenAICompatBackend("http://127.0.0.1:8080", client=client)
    async with client:
        with pytest.raises(ModelLoading) as caught:
            await while_loading(backend.list_models, 0.05, poll_s=0.01)
    assert caught.value.waited_s >= 0.05
    assert str(caught.value).startswith("The server was still loading its model after ")


async def test_while_loading_passes_other_errors_at_once() -> None:
    calls = 0

    async def unreachable() -> None:
        nonlocal calls
        calls += 1
        raise BackendUnreachable("http://127.0.0.1:1", "[Errno 111] Connection refused")

    with pytest.raises(BackendUnreachable):
        await asyncio.wait_for(while_loading(unreachable, None), 60)
    assert calls == 1


async def test_discovery_lists_a_loading_server_as_openai_and_loading() -> None:
    async def loading(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        head = "HTTP/1.1 503 Service Unavailable\r\nServer: llama.cpp\r\n"
        head += f"Content-Length: {len(LOADING)}\r\nConnection: close\r\n\r\n"
        writer.write(head.encode() + LOADING)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(loading, "127.0.0.1", 0)
    async with server:
        port = server.sockets[0].getsockname()[1]
        (found,) = await discover_local_servers((port,), budget_s=60.0)
    assert (found.api, found.loading, found.models) == ("openai", True, [])
