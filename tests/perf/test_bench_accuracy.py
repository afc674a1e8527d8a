"""`tachy bench` measures what the server did (issue 16, item 2).

The lab runs as its own process with a scripted reply: TTFT 100 ms, TPOT 10 ms, no
jitter, 20 tokens. Two questions, each with its figure printed beside its bound:

- Does the bench report what the server did? The lab's own /metrics histograms (sum
  and count of vllm:time_to_first_token_seconds and vllm:inter_token_latency_seconds,
  read before and after the measured requests) say when it actually wrote each first
  token and each gap: Tachy's mean TTFT must be within 2 ms of the lab's and its mean
  TPOT within 0.5 ms of the lab's mean gap, at concurrency 1 and 50. This is the
  baseline of the same run: on a shared 2-core machine the server itself can fall
  behind the script (a 50-request burst queues its JSON work in front of the timers),
  and that is the server's lateness, not a measuring error.
- How far is that from the script? Printed beside it (medians): that distance is the
  lab's own lateness under the machine's load, which tests/perf/test_lab_timing.py
  bounds against a bare asyncio server measured in its run.

The same load through a peer's streaming loop (the official openai SDK, TTFT from the
moment its HTTP transport has written the request, the point Tachy starts from, to its
first chunk with content) must agree with Tachy's median TTFT within 2 ms; the two are
run in turn, one request each, so the machine's load falls on both alike.

A 2-core machine shared with other jobs sometimes stalls a whole run; like
tests/perf/test_lab_timing.py, a run is repeated (at most ATTEMPTS times) until one
keeps the bounds, and every attempt's figures are printed.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import httpx2
import openai
import pytest

from client.backends import make_backend
from client.services.bench import BenchSettings, measure_one, run_bench

pytestmark = pytest.mark.perf

TTFT_MS, TPOT_MS, TOKENS = 100.0, 10.0, 20
SCENARIO = f"ttft = {TTFT_MS}\ntpot_ms = {TPOT_MS}\noutput_tokens = {TOKENS}\nseed = 5\n"


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    scenario = tmp_path_factory.mktemp("lab") / "scripted.toml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "client", "lab", "--port", "0", "--scenario", str(scenario)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()  # "tachy lab: simulated server ..."
        line = process.stdout.readline()  # "  Ollama API: http://127.0.0.1:PORT/api/chat ..."
        yield line.split()[2].removesuffix("/api/chat")
    finally:
        process.terminate()
        process.wait(10)


@dataclass(frozen=True)
class Run:
    ttft_median: float
    tpot_median: float
    ttft_mean: float
    tpot_mean: float
    lab_ttft_mean: float  # what the lab recorded for the same requests
    lab_gap_mean: float


def _lab_sums(url: str) -> dict[str, float]:
    text = httpx.get(url + "/metrics", timeout=10).text
    sums = {}
    for name in ("time_to_first_token_seconds", "inter_token_latency_seconds"):
        for part in ("sum", "count"):
            line = next(x for x in text.splitlines() if x.startswith(f"vllm:{name}_{part}"))
            sums[f"{name}_{part}"] = float(line.rsplit(" ", 1)[1])
    return sums


def _lab_means(before: dict[str, float], after: dict[str, float]) -> tuple[float, float]:
    def mean(name: str) -> float:
        count = after[f"{name}_count"] - before[f"{name}_count"]
        return (after[f"{name}_sum"] - before[f"{name}_sum"]) / count * 1000.0

    return mean("time_to_first_token_seconds"), mean("inter_token_latency_seconds")


async def _tachy(url: str, concurrency: int, n: int) -> Run:
    backend = await make_backend(url, "openai")
    try:
        warm = BenchSettings(model="tachy-lab", n=3, warmup=0, max_tokens=TOKENS)
        await run_bench(backend, warm)
        before = await asyncio.to_thread(_lab_sums, url)
        settings = BenchSettings(
            model="tachy-lab", n=n, warmup=0, max_tokens=TOKENS, concurrency=concurrency
        )
        report = await run_bench(backend, settings)
        after = await asyncio.to_thread(_lab_sums, url)
    finally:
        await backend.aclose()
    assert report.errors == 0
    summaries = report.summaries()
    ttft, tpot = summaries["ttft_ms"], summaries["tpot_ms"]
    assert ttft is not None and tpot is not None
    lab_ttft, lab_gap = _lab_means(before, after)
    return Run(ttft.median, tpot.median, ttft.mean, tpot.mean, lab_ttft, lab_gap)


class WrittenAt(httpx2.AsyncBaseTransport):
    """The SDK's own HTTP transport, noting when the request body left (the same
    trace point Tachy's ttft_ms starts from), so both clocks start alike."""

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self.written_at = 0.0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        async def trace(name: str, info: object) -> None:
            if name.endswith("send_request_body.complete"):
                self.written_at = time.perf_counter()

        request.extensions["trace"] = trace
        return await self._inner.handle_async_request(request)


async def _interleaved(url: str, n: int) -> tuple[float, float]:
    """Median TTFT of Tachy and of the openai SDK, one request each in turn (A B A B),
    so a change in the machine's load falls on both alike."""
    traced = WrittenAt()
    client = openai.AsyncOpenAI(
        base_url=url + "/v1",
        api_key="unused",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=traced),
    )
    backend = await make_backend(url, "openai")
    settings = BenchSettings(model="tachy-lab", max_tokens=TOKENS)
    messages = [{"role": "user", "content": settings.prompt}]
    tachy, peer = [], []
    try:
        for index in range(n + 3):
            result = await measure_one(backend, settings)
            first = None
            stream = await client.chat.completions.create(
                model="tachy-lab",
                messages=messages,  # type: ignore[arg-type]
                stream=True,
                max_tokens=TOKENS,
            )
            async for chunk in stream:
                if first is None and chunk.choices and chunk.choices[0].delta.content:
                    first = time.perf_counter()
            assert first is not None and result.metrics.ttft_ms is not None
            if index >= 3:  # three warm-up rounds
                tachy.append(result.metrics.ttft_ms)
                peer.append((first - traced.written_at) * 1000.0)
    finally:
        await client.close()
        await backend.aclose()
    return statistics.median(tachy), statistics.median(peer)


ATTEMPTS = 3


@pytest.mark.parametrize(("concurrency", "n"), [(1, 40), (50, 150)])
def test_bench_reports_what_the_server_did(lab_url: str, concurrency: int, n: int) -> None:
    errors = []
    for _ in range(ATTEMPTS):
        run = asyncio.run(_tachy(lab_url, concurrency, n))
        errors.append(_report(run, concurrency, n))
        if errors[-1][0] <= 2.0 and errors[-1][1] <= 0.5:
            return
    raise AssertionError(f"|TTFT|, |TPOT| differences in every attempt: {errors}")


def _report(run: Run, concurrency: int, n: int) -> tuple[float, float]:
    ttft_error = abs(run.ttft_mean - run.lab_ttft_mean)
    tpot_error = abs(run.tpot_mean - run.lab_gap_mean)
    print(
        f"\nconcurrency {concurrency}, {n} requests: mean TTFT bench {run.ttft_mean:.2f} / "
        f"lab {run.lab_ttft_mean:.2f} ms (|diff| {ttft_error:.2f} <= 2); mean TPOT bench "
        f"{run.tpot_mean:.3f} / lab gap {run.lab_gap_mean:.3f} ms (|diff| {tpot_error:.3f} "
        f"<= 0.5); median against the script: TTFT {run.ttft_median:.2f} (100), "
        f"TPOT {run.tpot_median:.3f} (10)"
    )
    return round(ttft_error, 2), round(tpot_error, 3)


def test_bench_agrees_with_the_openai_sdk_streaming_loop(lab_url: str) -> None:
    differences = []
    for _ in range(ATTEMPTS):
        tachy, peer = asyncio.run(_interleaved(lab_url, 40))
        print(f"\nmedian TTFT: tachy {tachy:.2f} ms, openai SDK {peer:.2f} ms, |diff| <= 2")
        differences.append(round(abs(tachy - peer), 2))
        if differences[-1] <= 2.0:
            return
    raise AssertionError(f"|median TTFT difference| in every attempt: {differences}")
