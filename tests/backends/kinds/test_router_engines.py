"""The real vLLM router in front of two real local engines (llama-server + SmolLM2): a
Stop through it leaves the answering engine idle (its /slots say no slot processes), and
a prefix warm-up through cache_aware is taken from the answering engine's cache (its
usage's cached prompt tokens)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import httpx
import pytest

from client.backends import backend_for
from client.backends.engine.local_engine import LocalEngine
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Token
from tests.backends.kinds.routers import running_router

pytestmark = pytest.mark.engine

SYSTEM = " ".join(["You answer questions about the history of clocks and calendars."] * 20)


@pytest.fixture(scope="module")
def second_engine() -> Iterator[LocalEngine]:
    engine = LocalEngine()
    try:
        engine.start_sync()
    except Exception as error:
        pytest.fail(f"A second local engine could not start: {error}", pytrace=False)
    yield engine
    engine.stop_sync()


def _busy(urls: list[str]) -> bool:
    return any(
        slot.get("is_processing") for url in urls for slot in httpx.get(f"{url}/slots").json()
    )


async def _stop_after_tokens(url: str) -> None:
    backend = backend_for(url, "openai")
    request = ChatRequest(
        "any",
        [ChatMessage("user", "Tell me a very long story.")],
        GenerationOptions(max_tokens=2000),
    )
    try:
        async with backend.chat(request) as stream:
            tokens = 0
            async for event in stream:
                tokens += isinstance(event, Token)
                if tokens == 3:
                    break  # Stop, the answer under way
    finally:
        await backend.aclose()


def test_stop_through_the_router_leaves_the_engine_idle(
    local_engine: LocalEngine, second_engine: LocalEngine
) -> None:
    urls = [local_engine.url, second_engine.url]
    with running_router(urls, "round_robin") as router:
        asyncio.run(_stop_after_tokens(router.url))
        deadline = time.monotonic() + 60  # a safety net: the event is asserted, not a time
        while _busy(urls):
            assert time.monotonic() < deadline, "an engine went on after the Stop"
            time.sleep(0.01)


def _cached(url: str, prefix: str, question: str, max_tokens: int) -> int:
    body = {
        "model": "any",
        "messages": [{"role": "system", "content": prefix}, {"role": "user", "content": question}],
        "max_tokens": max_tokens,
    }
    usage = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=300).json()["usage"]
    return int(usage.get("prompt_tokens_details", {}).get("cached_tokens", 0))


def test_a_warm_up_through_cache_aware_is_taken_from_the_answering_engine(
    local_engine: LocalEngine, second_engine: LocalEngine
) -> None:
    prefix = f"Checked {time.time_ns()}. {SYSTEM}"  # never sent before
    with running_router([local_engine.url, second_engine.url], "cache_aware") as router:
        _cached(router.url, prefix, "Hi", 1)  # the warm-up
        cached = _cached(router.url, prefix, "Who improved pendulum clocks?", 4)
    assert cached > 200  # the whole system prompt, from the answering engine's cache
