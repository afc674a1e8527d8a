"""TPOT's counts against llama.cpp's own: llama-server counts the end-of-sequence token
in predicted_n and sends it as a last chunk without text (finish_reason "stop"), so
Tachy counts one output token more than text chunks and measures TPOT to that chunk.
How close the figure comes to the server's predicted_per_token_ms is a benchmark
(tests/perf/test_engine_tpot.py)."""

from __future__ import annotations

import pytest

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.engine.local_engine import LocalEngine
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions

pytestmark = pytest.mark.engine

PROMPTS = ("Hi", "What is 2+2?", "What is 3+3?")


async def test_an_answer_ending_at_a_stop_token_counts_it_and_has_a_tpot(
    local_engine: LocalEngine,
) -> None:
    backend = OpenAICompatBackend(local_engine.url)
    stopped = 0
    try:
        for prompt in PROMPTS:
            options = GenerationOptions(max_tokens=200, temperature=0, seed=1)
            stream = backend.chat(ChatRequest("m", [ChatMessage("user", prompt)], options))
            async with stream:
                async for _ in stream:
                    pass
            metrics = stream.metrics()
            assert stream.timeline.finish_reason is not None
            if stream.timeline.finish_reason.value != "stop":
                continue
            stopped += 1
            assert metrics.output_tokens == metrics.chunks + 1  # the stop token, unsent
            assert metrics.output_tokens == metrics.server["llamacpp"].values["predicted_n"]
            assert metrics.tpot_ms is not None and metrics.tpot_ms > 0
    finally:
        await backend.aclose()
    assert stopped, "no answer ended with a stop token"
