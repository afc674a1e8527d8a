"""`tachy bench` measures what the server did (issue 16, item 2).

The lab runs as its own process with a scripted reply: TTFT 100 ms, TPOT 10 ms, no
jitter, 20 tokens. Two questions, each with its figure printed beside its bound:

- Concurrency 1: does the bench report what the server did? The lab's own /metrics
  histograms (sum and count of vllm:time_to_first_token_seconds and
  vllm:inter_token_latency_seconds, read before and after the measured requests) say
  when it wrote each first token and each gap: Tachy's mean TTFT must be within 2 ms
  of the lab's and its mean TPOT within 0.5 ms of the lab's mean gap. The medians'
  distance to the script is printed: it is the lab's own lateness on a loaded machine
  (1.4 ms on a quiet run, about 3 ms at load 5), which tests/perf/test_lab_timing.py
  bounds against a bare server.
- Concurrency 50: on a shared 2-core machine a 50-stream burst makes any client and
  the lab itself fall behind the script (the lab's share is bounded by
  tests/perf/test_lab_timing.py). The baseline is a bare asyncio client (that test's)
  sending the same load, run before and after Tachy's: Tachy's medians may add at most
  2 ms (TTFT) and 0.5 ms (TPOT) to the bare client's. Distances to the script printed.

The same load through a peer's streaming loop (the official openai SDK, TTFT from the
moment its HTTP transport has written the request, the point Tachy starts from, to the
moment its transport read the bytes of its first chunk with content) must agree with
Tachy's median TTFT within 2 ms; the two are run in turn, one request each, so the
machine's load falls on both alike. Tachy stamps a token with its bytes' arrival (the
kernel's receive time on Linux, client/backends/transport/socket_stream.py); the SDK's parsing
of the chunk into its model comes after that, about 2 ms on this 2-core machine, and is
printed beside it.

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
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import httpx2
import openai
import pytest

from client.backends import make_backend
from client.services.bench.runner import BenchSettings, measure_one, run_bench
from tests.perf.test_lab_timing import Timed, timed_stream

pytestmark = pytest.mark.perf

TTFT_MS, TPOT_MS, TOKENS = 100.0, 10.0, 20


# At 50 streams the script decodes at 25 ms per token: 2,000 tokens/s in all. Tachy's
# client spends 100-125 us of CPU per streamed token at 20 tokens a reply (request set-up
# included; tests/perf/test_stream_cpu.py; a bare asyncio client 15-25 us), so 50 streams
# at 10 ms per token (5,000 tokens/s) would take more than half a core for the client
# alone, beside the lab's own share of this 2-core machine.
TPOT_50_MS = 25.0


def _lab(tmp: Path, tpot_ms: float) -> Iterator[str]:
    scenario = tmp / "scripted.toml"
    scenario.write_text(
        f"ttft = {TTFT_MS}\ntpot_ms = {tpot_ms}\noutput_tokens = {TOKENS}\nseed = 5\n",
        encoding="utf-8",
    )
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


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _lab(tmp_path_factory.mktemp("lab"), TPOT_MS)


@pytest.fixture(scope="module")
def lab_url_50(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _lab(tmp_path_factory.mktemp("lab50"), TPOT_50_MS)


@dataclass(frozen=True)
class Run:
    ttft_median: float
    tpot_median: float
    ttft_mean: float
    tpot_mean: float
    lab_ttft_mean: float  # what the lab recorded for the same requests
    lab_gap_mean: float
    gap_median: float  # median over requests of (last token - first token) / (tokens - 1)


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
    gaps = [statistics.fmean(r.metrics.itl_ms) for r in report.results if r.metrics.itl_ms]
    median_gap = statistics.median(gaps)
    return Run(ttft.median, tpot.median, ttft.mean, tpot.mean, lab_ttft, lab_gap, median_gap)


class WrittenAt(httpx2.AsyncBaseTransport):
    """The SDK's own HTTP transport, noting when the request body went out (the same
    trace point Tachy's ttft_ms starts from), so both clocks start alike, and when each
    read of the body came out of it (the SDK's receive time, before its own parsing)."""

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self.written_at = 0.0
        self.read_at = 0.0  # the last read of the body

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        async def trace(name: str, info: object) -> None:
            if name.endswith("send_request_body.started"):
                self.written_at = time.perf_counter()

        request.extensions["trace"] = trace
        response = await self._inner.handle_async_request(request)
        response.stream = ReadTimes(response.stream, self)
        return response


class ReadTimes(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, noted: WrittenAt) -> None:
        self._inner = inner
        self._noted = noted

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for data in self._inner:
            self._noted.read_at = time.perf_counter()
            yield data

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _interleaved(url: str, n: int) -> tuple[float, float, float]:
    """Median TTFT of Tachy and of the openai SDK, one request each in turn (A B A B),
    so a change in the machine's load falls on both alike. The SDK's is taken twice: when
    its transport read the bytes of the first content chunk, and when the SDK handed the
    parsed chunk on."""
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
    tachy, peer, parsed = [], [], []
    try:
        for index in range(n + 3):
            result = await measure_one(backend, settings)
            first = read = None
            stream = await client.chat.completions.create(
                model="tachy-lab",
                messages=messages,  # type: ignore[arg-type]
                stream=True,
                max_tokens=TOKENS,
            )
            async for chunk in stream:
                if first is None and chunk.choices and chunk.choices[0].delta.content:
                    first, read = time.perf_counter(), traced.read_at
            assert first is not None and read is not None and result.metrics.ttft_ms is not None
            if index >= 3:  # three warm-up rounds
                tachy.append(result.metrics.ttft_ms)
                peer.append((read - traced.written_at) * 1000.0)
                parsed.append((first - traced.written_at) * 1000.0)
    finally:
        await client.close()
        await backend.aclose()
    return statistics.median(tachy), statistics.median(peer), statistics.median(parsed)


ATTEMPTS = 3


def test_bench_reports_what_the_server_did(lab_url: str) -> None:
    errors = []
    for _ in range(ATTEMPTS):
        run = asyncio.run(_tachy(lab_url, 1, 40))
        errors.append(_report(run, 1, 40, TPOT_MS))
        if errors[-1][0] <= 2.0 and errors[-1][1] <= 0.5:
            return
    raise AssertionError(f"|TTFT|, |TPOT| differences in every attempt: {errors}")


async def _bare(url: str, concurrency: int, n: int) -> tuple[float, float]:
    """The same load through a bare asyncio client (tests/perf/test_lab_timing.py's):
    medians of TTFT from the request written and of TPOT."""
    host, port = url.removeprefix("http://").rsplit(":", 1)

    async def one_connection(count: int) -> list[Timed]:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            return [await timed_stream(reader, writer, TOKENS) for _ in range(count)]
        finally:
            writer.close()

    per = n // concurrency
    runs = await asyncio.gather(*(one_connection(per) for _ in range(concurrency)))
    timed = [t for batch in runs for t in batch]
    return (
        statistics.median(t.ttft_raw_ms for t in timed),
        statistics.median(t.tpot_ms for t in timed),
    )


def test_bench_at_50_streams_adds_little_over_a_bare_client(lab_url_50: str) -> None:
    """At 50 streams the machine's load moves the figures of any client; what Tachy's
    bench adds over a bare asyncio client measured in turn with it (A B A B) must stay
    within 2 ms (TTFT median) and 0.5 ms (time per token)."""
    added = []
    for _ in range(ATTEMPTS):
        bare_first = asyncio.run(_bare(lab_url_50, 50, 150))
        tachy = asyncio.run(_tachy(lab_url_50, 50, 150))
        bare_second = asyncio.run(_bare(lab_url_50, 50, 150))
        bare_ttft = (bare_first[0] + bare_second[0]) / 2
        bare_tpot = (bare_first[1] + bare_second[1]) / 2
        ttft_added = tachy.ttft_median - bare_ttft
        # The bare client's TPOT spans first to last token; Tachy's tpot_ms (vLLM's
        # definition) ends at the end of the response, so compare the token gaps.
        tpot_added = abs(tachy.gap_median - bare_tpot)
        print(
            f"\n50 streams, medians: TTFT tachy {tachy.ttft_median:.2f} / bare {bare_ttft:.2f} "
            f"ms (adds {ttft_added:+.2f} <= 2), time per token tachy {tachy.gap_median:.3f} "
            f"/ bare {bare_tpot:.3f} ms (|diff| {tpot_added:.3f} <= 0.5; tpot_ms "
            f"{tachy.tpot_median:.3f}); script 100 / {TPOT_50_MS:g}"
        )
        _report(tachy, 50, 150, TPOT_50_MS)
        added.append((round(ttft_added, 2), round(tpot_added, 3)))
        if ttft_added <= 2.0 and tpot_added <= 0.5:
            return
    raise AssertionError(f"what Tachy added in every attempt: {added}")


def _report(run: Run, concurrency: int, n: int, tpot_ms: float) -> tuple[float, float]:
    """Bounded at concurrency 1 only: at 50 the lab's clock starts when it gets round to
    reading each request, after the client wrote it, so its record leaves out its own
    queue (the bare client measured beside Tachy is the baseline there)."""
    ttft_error = abs(run.ttft_mean - run.lab_ttft_mean)
    tpot_error = abs(run.tpot_mean - run.lab_gap_mean)
    ttft_bound, tpot_bound = (" <= 2", " <= 0.5") if concurrency == 1 else ("", "")
    print(
        f"\nconcurrency {concurrency}, {n} requests: mean TTFT bench {run.ttft_mean:.2f} / "
        f"lab {run.lab_ttft_mean:.2f} ms (|diff| {ttft_error:.2f}{ttft_bound}); mean TPOT "
        f"bench {run.tpot_mean:.3f} / lab gap {run.lab_gap_mean:.3f} ms (|diff| "
        f"{tpot_error:.3f}{tpot_bound}); median against the script: TTFT "
        f"{run.ttft_median:.2f} (100), TPOT {run.tpot_median:.3f} ({tpot_ms:g})"
    )
    return round(ttft_error, 2), round(tpot_error, 3)


def test_bench_agrees_with_the_openai_sdk_streaming_loop(lab_url: str) -> None:
    differences = []
    for _ in range(ATTEMPTS):
        tachy, peer, parsed = asyncio.run(_interleaved(lab_url, 40))
        print(
            f"\nmedian TTFT: tachy {tachy:.2f} ms, openai SDK {peer:.2f} ms (|diff| <= 2; "
            f"{parsed:.2f} ms once the SDK has parsed the chunk)"
        )
        differences.append(round(abs(tachy - peer), 2))
        if differences[-1] <= 2.0:
            return
    raise AssertionError(f"|median TTFT difference| in every attempt: {differences}")
