"""The server view's figures (client/services/hud/server_stats.py) from a real vLLM's
/metrics and /version: running, waiting, KV cache, TTFT lifetime and recent, prompt and
decode tokens/s from the counters' growth, prefix-cache hits, the engine's state."""

from __future__ import annotations

import pytest

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.figures.fetch import ServerFigures
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Done
from client.services.hud.server_stats import ServerStatsPoller
from tests.vllm.conftest import VllmServer

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(1200)]
# Long enough to fill a few of vLLM's 16-token cache blocks: asked twice, the second
# reads them from the prefix cache.
QUESTION = "Here are some words: " + " ".join(f"word{i}" for i in range(60)) + ". Count them."


async def test_the_server_view_reads_every_figure_vllm_exports(vllm: VllmServer) -> None:
    figures = ServerFigures()
    poller = ServerStatsPoller(figures, vllm.url, "openai", vllm.model)
    backend = OpenAICompatBackend(vllm.url)
    request = ChatRequest(
        vllm.model, [ChatMessage("user", QUESTION)], GenerationOptions(max_tokens=8)
    )
    try:
        first = await poller.poll()
        for _ in range(2):
            async with backend.chat(request) as stream:
                async for _event in stream:
                    pass
            assert isinstance(stream.outcome, Done) and stream.outcome.reason == "length"
        second = await poller.poll()
    finally:
        await backend.aclose()
        await figures.aclose()
    assert first.kind == second.kind == "vllm" and not second.error
    assert second.version == "0.32.0"
    assert second.running == 0 and second.waiting == 0
    assert second.kv_cache_use is not None and 0 <= second.kv_cache_use <= 1
    assert second.ttft_p50_ms and second.ttft_p95_ms and second.ttft_n >= first.ttft_n + 2
    assert second.recent_ttft_n == 2 and second.recent_s is not None
    assert second.prompt_tokens_per_s and second.prompt_tokens_per_s > 0
    assert second.decode_tokens_per_s and second.decode_tokens_per_s > 0
    assert second.cache_hit_rate is not None and second.cache_hit_rate > (
        first.cache_hit_rate or 0.0
    )
    assert second.engine_state == "awake" and second.sleeping is False
    assert second.spec_acceptance is None  # no speculative decoding: vLLM exports none
