"""Warming through the real vLLM router, with lab workers that report the prompt tokens
they took from their cache (llama.cpp's dialect: usage.prompt_tokens_details): the
question after a warm-up finds the warmed prefix in the cache of the worker that answers
through cache_aware, not through round_robin. The warmer claims the prefix cached and the
model warm only where that is true."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from client.backends import backend_for
from client.backends.kinds.vllm_router.policy import routes_by_prompt, routing_policies
from client.core.conversation import ChatMessage
from client.core.prediction import ModelState
from client.lab import RunningLab, run_in_thread, scenario_from_dict
from client.services.warming.warming import KeepAliveWarmer
from tests.backends.kinds.routers import RunningRouter, running_router

WORKER = {"seed": 1, "ttft": 5, "tpot_ms": 1, "server": "llamacpp", "output_tokens": 4}
SYSTEM = " ".join(["You answer questions about the history of clocks and calendars."] * 12)
PREFIX = [
    ChatMessage("system", SYSTEM),
    ChatMessage("user", "When were pendulum clocks invented?"),
    ChatMessage("assistant", "Christiaan Huygens built the first one in 1656."),
]
QUESTION = "And who improved them after him?"


@pytest.fixture
def labs() -> Iterator[list[RunningLab]]:
    running = [run_in_thread(scenario_from_dict(WORKER)) for _ in "ab"]
    try:
        yield running
    finally:
        for lab in running:
            lab.stop()


def _cached_tokens(url: str, messages: list[ChatMessage]) -> int:
    body = {
        "model": "tachy-lab",
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "max_tokens": 4,
    }
    answer = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30).json()
    return int(answer["usage"]["prompt_tokens_details"]["cached_tokens"])


async def _warm_then_ask(router: RunningRouter) -> tuple[KeepAliveWarmer, int]:
    backend = backend_for(router.url, "openai")
    try:
        await backend.server_kind()  # known as a router, as when the window takes it
        # One question first, so the router's metrics name the policy it routes by.
        await asyncio.to_thread(_cached_tokens, router.url, [ChatMessage("user", "hello")])
        warmer = KeepAliveWarmer(backend, "tachy-lab")
        warmer.prefix_provider = lambda: PREFIX
        warmer.metrics_urls = {router.url: router.metrics_url}.get  # the server settings'
        await warmer.warm_now("typing")
        question = [*PREFIX, ChatMessage("user", QUESTION)]
        cached = await asyncio.to_thread(_cached_tokens, router.url, question)
        await warmer.aclose()
        return warmer, cached
    finally:
        await backend.aclose()


def test_through_cache_aware_the_warm_up_lands_on_the_answering_worker(
    labs: list[RunningLab],
) -> None:
    with running_router([lab.url for lab in labs], "cache_aware") as router:
        warmer, cached = asyncio.run(_warm_then_ask(router))
        policies = asyncio.run(routing_policies(router.url, router.metrics_url))
    assert policies == ["cache_aware"] and routes_by_prompt(policies)
    assert cached > 100  # the system prompt and the first exchange, from the cache
    assert warmer.warm_requests == 1 and warmer.cached_prompt() is not None
    assert warmer.state is ModelState.WARM


def test_through_round_robin_the_warm_up_misses_and_nothing_is_claimed(
    labs: list[RunningLab],
) -> None:
    with running_router([lab.url for lab in labs], "round_robin") as router:
        warmer, cached = asyncio.run(_warm_then_ask(router))
    assert cached < 10  # another worker answered: at most the template's first tokens
    assert warmer.warm_requests == 1
    assert warmer.cached_prompt() is None and warmer.state is None  # not claimed warm
    assert sorted(lab.server.stats.requests for lab in labs) == [1, 2]  # the warm-up alone
