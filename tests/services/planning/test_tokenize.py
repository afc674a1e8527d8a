"""Prompt token counts from the server's tokenizer, or the documented estimate."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from aiohttp import web

from client.backends import OllamaBackend, OpenAICompatBackend
from client.core.budget import estimate_tokens, fit_to_budget
from client.core.conversation import ChatMessage
from client.services.planning.tokenize import PromptTokenCounter

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def words(text: str) -> int:
    return len(text.split())  # the fake servers' "tokenizer": one token per word


async def llamacpp_tokenize(request: web.Request) -> web.Response:
    body = await request.json()
    return web.json_response({"tokens": list(range(words(body["content"])))})


async def vllm_tokenize(request: web.Request) -> web.Response:
    body = await request.json()
    if "prompt" not in body or "model" not in body:
        return web.json_response({"error": "bad request"}, status=400)
    n = words(body["prompt"])
    return web.json_response({"count": n, "max_model_len": 4096, "tokens": list(range(n))})


async def llama_cpp_python_count(request: web.Request) -> web.Response:
    body = await request.json()
    return web.json_response({"count": words(body["input"])})


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[dict[str, Handler]], Awaitable[str]]]:
    runners: list[web.AppRunner] = []

    async def start(routes: dict[str, Handler]) -> str:
        app = web.Application()
        for path, handler in routes.items():
            app.router.add_post(path, handler)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://127.0.0.1:{port}"

    yield start
    for runner in runners:
        await runner.cleanup()


MESSAGES = [
    ChatMessage("system", "be brief"),
    ChatMessage("user", "one two three four five"),
    ChatMessage("assistant", "six seven"),
]


@pytest.mark.parametrize(
    ("path", "handler"),
    [
        ("/tokenize", llamacpp_tokenize),
        ("/tokenize", vllm_tokenize),
        ("/extras/tokenize/count", llama_cpp_python_count),
    ],
)
async def test_server_tokenizer_counts_are_used(serve: Any, path: str, handler: Handler) -> None:
    url = await serve({path: handler})
    backend = OpenAICompatBackend(url)
    counter = PromptTokenCounter.for_backend(backend, "m")
    assert counter.source == "estimate"
    total = await counter.count_messages(MESSAGES)
    assert counter.source == "server"
    assert total == (2 + 5 + 2) + 3 * 4  # tokens + 4 per message for the template
    assert counter(MESSAGES[1]) == 9
    await backend.aclose()


async def test_no_tokenizer_falls_back_to_the_estimate(serve: Any) -> None:
    url = await serve({})
    async with httpx.AsyncClient() as client:
        counter = PromptTokenCounter(OpenAICompatBackend(url, client=client), "m")
        total = await counter.count_messages(MESSAGES)
        assert counter.source == "estimate"
        assert total == sum(estimate_tokens(m) for m in MESSAGES)


async def test_ollama_is_never_asked() -> None:
    backend = OllamaBackend("http://127.0.0.1:9")  # nothing listens: a request would fail
    counter = PromptTokenCounter.for_backend(backend, "m")
    assert await counter.count_messages(MESSAGES) == sum(estimate_tokens(m) for m in MESSAGES)
    assert counter.source == "estimate"
    await backend.aclose()


async def test_unseen_text_is_estimated_with_the_servers_ratio(serve: Any) -> None:
    url = await serve({"/tokenize": llamacpp_tokenize})
    async with httpx.AsyncClient() as client:
        counter = PromptTokenCounter(OpenAICompatBackend(url, client=client), "m")
        text = " ".join(["word"] * 100)  # 499 characters, 100 "tokens": 4.99 chars/token
        await counter.prepare([ChatMessage("user", text)])
        assert counter.count_text(text) == 100
        draft = "x" * 998
        assert counter.count_text(draft) == 200  # the server's ratio, not chars / 4


async def test_counter_plugs_into_the_budget(serve: Any) -> None:
    url = await serve({"/tokenize": llamacpp_tokenize})
    async with httpx.AsyncClient() as client:
        counter = PromptTokenCounter(OpenAICompatBackend(url, client=client), "m")
        conversation = [*MESSAGES, ChatMessage("user", "eight nine")]
        await counter.prepare(conversation)
        fitted = fit_to_budget(conversation, 20, counter)
        assert [m.content for m in fitted.messages] == ["be brief", "eight nine"]
        assert fitted.prompt_tokens == 2 + 2 + 8


@pytest.mark.engine
async def test_local_engine_tokenizer(local_engine: Any) -> None:
    backend = OpenAICompatBackend(local_engine.url)
    counter = PromptTokenCounter.for_backend(backend, local_engine.model)
    text = "The quick brown fox jumps over the lazy dog. " * 20
    await counter.prepare([ChatMessage("user", text)])
    assert counter.source == "server"
    tokens = counter.count_text(text)
    # SmolLM2's BPE: about 10 tokens per sentence of this kind (BOS may add one).
    assert 180 <= tokens <= 230, tokens
    await backend.aclose()
