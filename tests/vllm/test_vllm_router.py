"""The real vllm-router (from its wheel, cache_aware) in front of the real vLLM: Tachy knows
a router with one worker, streams an answer through it, and a Stop through it reaches the
worker (vllm:num_requests_running back to 0). How soon is printed beside the goal (250 ms), not
asserted: this tier checks behaviour."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from client.backends import make_backend
from client.backends.base import Backend
from client.backends.detect import detect_server
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Done, Token
from tests.backends.kinds.routers import RunningRouter, running_router
from tests.vllm.conftest import VllmServer
from tests.vllm.test_vllm_stop import GOAL_MS, WAIT_S

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(1200)]
QUESTION = "What is 2+2?"
STORY = "Write a very long story about the sea."
ROUNDS = 3


@pytest.fixture(scope="module")
def router(vllm: VllmServer) -> Iterator[RunningRouter]:
    # (power_of_two refuses to start with fewer than 2 workers)
    with running_router([vllm.url], "cache_aware") as running:
        yield running


@pytest.fixture
async def through(router: RunningRouter) -> AsyncIterator[Backend]:
    backend = await make_backend(router.url, "auto", None)
    yield backend
    await backend.aclose()


def ask(model: str, text: str, max_tokens: int) -> ChatRequest:
    options = GenerationOptions(temperature=0, max_tokens=max_tokens)
    return ChatRequest(model, [ChatMessage("user", text)], options)


async def test_a_router_with_one_worker_is_known_and_answers(
    vllm: VllmServer, router: RunningRouter, through: Backend
) -> None:
    found = await detect_server(router.url)
    assert (found.api, found.name) == ("openai", "vLLM router · 1 worker")
    assert (await through.server_kind()).name == "vllm_router"
    assert through.server_name == "vLLM router · 1 worker"
    texts: list[str] = []
    end = None
    async with through.chat(ask(vllm.model, QUESTION, 64)) as stream:
        async for event in stream:
            if isinstance(event, Token):
                texts.append(event.text)
            elif isinstance(event, Done):
                end = event
    assert end is not None and end.reason == "stop" and "4" in end.text
    assert "".join(texts) == end.text and len(texts) > 3  # streamed, not one lump


async def test_stop_through_the_router_reaches_the_worker(
    vllm: VllmServer, through: Backend
) -> None:
    idle_ms = sorted([await stop_once(vllm, through) for _ in range(ROUNDS)])
    shown = ", ".join(f"{ms:.0f}" for ms in idle_ms)
    median = statistics.median(idle_ms)
    print(f"\nvLLM behind the router: running back to 0 a median {median:.0f} ms after Stop "
          f"({shown} ms; goal {GOAL_MS} ms)")  # fmt: skip


async def stop_once(vllm: VllmServer, through: Backend) -> float:
    """Stop after five tokens, as the window's Stop closes a stream; ms until the worker
    has nothing running."""
    await until(lambda: vllm.running() == 0, "an idle vLLM")
    tokens = 0
    async with through.chat(ask(vllm.model, STORY, 1500)) as stream:
        async for event in stream:
            tokens += isinstance(event, Token)
            if tokens == 5:
                assert vllm.running() == 1  # the worker is answering this one
                break
        stopped = time.monotonic()
    await until(lambda: vllm.running() == 0, "vLLM going idle after Stop through the router")
    return (time.monotonic() - stopped) * 1000


async def until(condition: Callable[[], bool], what: str) -> None:
    """Polls the worker's state with the event loop free between polls (the closed
    stream's connection is let go on the loop, as in the app)."""
    start = time.monotonic()
    while not await asyncio.to_thread(condition):
        assert time.monotonic() - start < WAIT_S, f"{what} did not happen in {WAIT_S:.0f} s"
        await asyncio.sleep(0.01)
