"""Two slots on the local engine: a warm-up never queues behind an answer."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from client.backends.local_engine import LocalEngine

pytestmark = pytest.mark.engine


async def test_a_warm_up_is_answered_while_a_long_answer_is_still_written(
    local_engine: LocalEngine,
) -> None:
    assert local_engine.settings.n_parallel == 2
    url = f"{local_engine.url}/v1/chat/completions"
    story = {
        "messages": [{"role": "user", "content": "Tell a long story about a lighthouse."}],
        "max_tokens": 200,
        "temperature": 0,
        "ignore_eos": True,  # llama.cpp: write all 200 tokens
    }
    warm_up = {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1}
    async with httpx.AsyncClient(timeout=300, trust_env=False) as client:
        answer = asyncio.create_task(client.post(url, json=story))
        await asyncio.sleep(1.0)  # the answer is being written by now
        started = time.monotonic()
        warmed = await client.post(url, json=warm_up)
        warm_s = time.monotonic() - started
        assert warmed.is_success and not answer.done(), "the warm-up waited for the answer"
        story_timings = (await answer).json()["timings"]
    print(f"\nwarm-up answered in {warm_s * 1000:.0f} ms beside a 200-token answer")
    assert story_timings["predicted_n"] == 200
