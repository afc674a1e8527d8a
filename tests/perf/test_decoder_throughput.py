"""The decoders handle at least 50,000 chunks per second on one core.

The same code as tests/perf/bench_decoders.py with shorter streams: realistic chunks,
one per read (the harder case), CPU time of this process (time.process_time), the
median of five runs. Run with `pytest tests/perf/test_decoder_throughput.py -s`.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import pytest

from client.backends.ndjson import OllamaDecoder
from client.backends.sse import OpenAIStreamDecoder
from tests.perf.bench_decoders import GOAL_CHUNKS_PER_S, decode_all, ollama_stream, openai_stream

pytestmark = pytest.mark.perf

CHUNKS = 20_000
REPEATS = 5


@pytest.mark.parametrize(
    ("name", "make", "stream"),
    [("SSE", OpenAIStreamDecoder, openai_stream), ("NDJSON", OllamaDecoder, ollama_stream)],
)
def test_decoder_throughput(
    name: str, make: Callable[[], Any], stream: Callable[[int], list[bytes]]
) -> None:
    reads = stream(CHUNKS)
    cpu_s = statistics.median(decode_all(make, reads, CHUNKS) for _ in range(REPEATS))
    per_s = CHUNKS / cpu_s
    print(f"\n{name}: {per_s:,.0f} chunks/s of CPU (median of {REPEATS} x {CHUNKS:,} chunks)")
    assert per_s >= GOAL_CHUNKS_PER_S
