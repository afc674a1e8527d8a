"""Stop through the real vLLM router reaches the worker: closing the answer's stream in
Tachy ends the worker's request as a disconnect (the lab worker counts it), whichever
worker the router chose."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator

import pytest

from client.backends import backend_for
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Token
from client.lab import RunningLab, run_in_thread, scenario_from_dict
from tests.backends.kinds.routers import running_router

SLOW = {"seed": 1, "ttft": 5, "tpot_ms": 40, "output_tokens": 400}


@pytest.fixture
def labs() -> Iterator[list[RunningLab]]:
    running = [run_in_thread(scenario_from_dict(SLOW)) for _ in "ab"]
    try:
        yield running
    finally:
        for lab in running:
            lab.stop()


async def until(condition: Callable[[], object], timeout_s: float = 30.0) -> None:
    """A safety net, not a time asserted: waits for the event the test needs."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the worker never saw the client leave"
        await asyncio.sleep(0.005)


async def _stop_after_first_tokens(url: str) -> None:
    backend = backend_for(url, "openai")
    request = ChatRequest(
        "tachy-lab", [ChatMessage("user", "tell me a long story")], GenerationOptions()
    )
    try:
        async with backend.chat(request) as stream:
            tokens = 0
            async for event in stream:
                tokens += isinstance(event, Token)
                if tokens == 3:
                    break  # Stop: the stream is closed with the answer under way
    finally:
        await backend.aclose()


@pytest.mark.parametrize("policy", ["round_robin", "cache_aware"])
def test_stop_through_the_router_ends_the_workers_request(
    labs: list[RunningLab], policy: str
) -> None:
    async def stop_and_wait(url: str) -> None:
        await _stop_after_first_tokens(url)
        await until(lambda: sum(lab.server.stats.disconnected for lab in labs) == 1)

    with running_router([lab.url for lab in labs], policy) as router:
        asyncio.run(stop_and_wait(router.url))
    served = [lab for lab in labs if lab.server.stats.requests]
    assert len(served) == 1 and served[0].server.stats.disconnected == 1
    assert served[0].server.stats.completed == 0  # ended as cancelled, never as finished
