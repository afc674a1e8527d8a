"""The real local engine reports its prompt progress (llama-server's prompt_progress)."""

from __future__ import annotations

import pytest

from client.backends import make_backend
from client.backends.engine.local_engine import LocalEngine
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Prefill, Token

pytestmark = pytest.mark.engine


async def prefill_events(engine: LocalEngine, text: str) -> tuple[list[Prefill], dict]:
    backend = await make_backend(engine.url, "openai")
    try:
        await backend.list_models()  # as the app and `tachy chat` do: it learns llama.cpp
        request = ChatRequest(
            engine.model, [ChatMessage("user", text)], GenerationOptions(max_tokens=1)
        )
        events: list[Prefill] = []
        async with backend.chat(request, StreamTimeouts(300, 60)) as stream:
            async for event in stream:
                if isinstance(event, Prefill):
                    events.append(event)
                elif isinstance(event, Token):
                    break
        timings = stream.metrics().server.get("llamacpp")
        return events, dict(timings.values) if timings is not None else {}
    finally:
        await backend.aclose()


async def test_a_long_prompt_climbs_batch_by_batch_and_a_repeat_comes_from_the_cache(
    local_engine: LocalEngine,
) -> None:
    text = " ".join(f"item{i}" for i in range(60))  # ~200 tokens: 3+ batches of 64
    events, _ = await prefill_events(local_engine, text)
    assert len(events) >= 3, events
    assert all(e.total == events[0].total and e.total >= 150 for e in events)
    done = [e.processed for e in events]
    assert done == sorted(done) and done[-1] == events[-1].total
    assert events[-1].fraction == 1.0
    assert any(e.seconds_left() is not None for e in events[:-1])

    # The same prompt plus a little: all but the new tail comes from the prompt cache.
    again, _ = await prefill_events(local_engine, text + " and one more")
    assert again[-1].cached >= events[-1].total - 8
    assert again[-1].to_compute < 20
