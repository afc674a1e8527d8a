"""The client's CPU per streamed token (issue 16 item 2, issue 12 item 5).

`tachy bench` at 50 streams against the lab in its own process (scripted: 20 tokens
per reply, one per chunk, every 25 ms: 2,000 chunks a second in all), this process's
CPU time (time.process_time: steadier than wall time on a shared machine) divided by
the tokens received. Measured in turn (A B A B) with httpx's default network layer
(anyio) in place of Tachy's asyncio sockets (client/backends/transport/socket_stream.py), and a
bare asyncio client (tests/perf/test_lab_timing.py's) for scale.

Bound: Tachy's median at most 85 % of the default layer's (measured while writing it:
about 72 %, 100-125 us against 140-176 us per token; the bare client 14-23 us).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Iterator

import httpx
import pytest

from client.backends import make_backend
from client.backends.transport import transport
from client.services.bench.runner import BenchSettings, run_bench
from tests.perf.test_bench_accuracy import TOKENS, _lab
from tests.perf.test_lab_timing import timed_stream

pytestmark = pytest.mark.perf

STREAMS, REQUESTS, ROUNDS = 50, 100, 3
TPOT_MS = 25.0
BOUND = 0.85


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _lab(tmp_path_factory.mktemp("lab"), TPOT_MS)


async def tachy_us_per_token(url: str) -> float:
    backend = await make_backend(url, "openai")
    try:
        await run_bench(backend, BenchSettings(model="tachy-lab", n=3, warmup=0))
        settings = BenchSettings(
            model="tachy-lab", n=REQUESTS, warmup=0, max_tokens=TOKENS, concurrency=STREAMS
        )
        started = time.process_time()
        report = await run_bench(backend, settings)
        spent = time.process_time() - started
    finally:
        await backend.aclose()
    assert report.errors == 0
    tokens = sum(len(r.metrics.itl_ms) + 1 for r in report.results)
    assert tokens == REQUESTS * TOKENS
    return spent / tokens * 1e6


async def bare_us_per_token(url: str) -> float:
    host, port = url.removeprefix("http://").rsplit(":", 1)

    async def one_connection(count: int) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            for _ in range(count):
                await timed_stream(reader, writer, TOKENS)
        finally:
            writer.close()

    started = time.process_time()
    await asyncio.gather(*(one_connection(REQUESTS // STREAMS) for _ in range(STREAMS)))
    return (time.process_time() - started) / (REQUESTS * TOKENS) * 1e6


def test_tachy_spends_less_cpu_per_token_than_httpx_default_sockets(
    lab_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, default, bare = [], [], []
    for _ in range(ROUNDS):
        with monkeypatch.context() as patched:
            patched.setattr(transport, "http_transport", httpx.AsyncHTTPTransport)
            default.append(asyncio.run(tachy_us_per_token(lab_url)))
        ours.append(asyncio.run(tachy_us_per_token(lab_url)))
        bare.append(asyncio.run(bare_us_per_token(lab_url)))
    ratio = statistics.median(ours) / statistics.median(default)
    print(
        f"\nCPU per streamed token at {STREAMS} streams ({ROUNDS} rounds, medians): Tachy "
        f"{statistics.median(ours):.1f} us, with httpx's default sockets "
        f"{statistics.median(default):.1f} us (ratio {ratio:.2f} <= {BOUND}), bare asyncio "
        f"client {statistics.median(bare):.1f} us; rounds: ours {[round(x) for x in ours]}, "
        f"default {[round(x) for x in default]}"
    )
    assert ratio <= BOUND
