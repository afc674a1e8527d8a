"""Two slots on the local engine: a warm-up never queues behind an answer."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from client.backends.engine.local_engine import LocalEngine

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
        "stream": True,
    }
    warm_up = {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1}
    writing = asyncio.Event()

    async def tell(client: httpx.AsyncClient) -> int:
        """The story's tokens, streamed; `writing` is set at its first one."""
        count = 0
        async with client.stream("POST", url, json=story) as response:
            async for line in response.aiter_lines():
                if line.startswith("data: {") and _content(line):
                    count += 1
                    writing.set()
        return count

    async with httpx.AsyncClient(timeout=300, trust_env=False) as client:
        answer = asyncio.create_task(tell(client))
        await asyncio.wait_for(writing.wait(), 300)  # the answer is being written
        warmed = await client.post(url, json=warm_up)
        assert warmed.is_success and not answer.done(), "the warm-up waited for the answer"
        assert await answer == 200


def _content(line: str) -> str:
    choices = json.loads(line[6:]).get("choices") or [{}]
    return (choices[0].get("delta") or {}).get("content") or ""
