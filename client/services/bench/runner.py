"""The benchmark runner behind `tachy bench`: N streamed requests, their metrics and
summaries (mean, median, P90, P95, P99, always with n). Qt-free.

Warm-up requests are run first and not reported. With `cold`, a hook makes the
server cold (Ollama: unload with keep_alive 0; the local engine: restart it), the
first request runs alone and is reported separately from the warm ones.

With `cold`, or with images, each request's message also starts with its own word
("Alpha: ...", "Blue: ..."; `vary_start` turns this on or off). Servers with a prompt cache
(llama.cpp and so the local engine, llama-cpp-python, vLLM, Ollama's runner) reuse the
longest common token prefix with the previous request: repeating one prompt would
leave the warm requests almost nothing to prefill, while the first request after a
restart (or after a warm-up) prefills all of its message. A different first word gives
every request the same work, so the cold and warm figures compare like with like.
With images it matters most: the image follows the text, so a repeated prompt would let
llama-server reuse the encoded image (prompt_n 1 of 832, TTFT 30 ms instead of seconds)
and the image would never be measured.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from client.backends.base import Backend
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatRequest, GenerationOptions
from client.core.events import Done, Failed
from client.core.images import Attachment, ImagePart
from client.core.metrics import RequestMetrics
from client.core.qoe import QoeSpread, qoe_spread
from client.core.server_timings import ServerReport
from client.core.stats import Summary, summarize
from client.services.bench.figures import RunFigures, goodput, run_figures
from client.services.bench.load import poisson_offsets, send_all
from client.services.fleet.fleet_stream import FleetStream
from client.services.fleet.pool_backend import answer_stream_of
from client.services.planning.planner import PlanInput, PlanSettings, Route, plan_request

DEFAULT_PROMPT = "Write a short paragraph about the sea."
CLIENT_METRICS = ("ttft_ms", "ttfo_ms", "tpot_ms", "itl_ms", "e2el_ms", "tokens_per_s")
SERVER_METRICS = (
    "server_load_ms",
    "server_queue_ms",
    "server_prompt_ms",
    "server_ttft_ms",
    "server_tpot_ms",
    "server_tokens_per_s",
)

# Consecutive requests never share a first word (and so a first token); each word is
# one token in SmolLM2's vocabulary (the local engine), so every request has as many.
START_WORDS = (
    "Alpha", "Blue", "Cat", "Delta", "East", "First", "Green", "House", "India", "Just",
    "King", "Light", "More", "North", "Open", "Paper", "Quick", "Red", "Sun", "Time",
    "Under", "Victor", "West", "Year", "Zero",
)  # fmt: skip

MakeCold = Callable[[], Awaitable[None]]
Progress = Callable[[int, int], None]  # (done, total)


@dataclass(slots=True)
class BenchSettings:
    model: str
    prompt: str = DEFAULT_PROMPT
    n: int = 20
    warmup: int = 1
    max_tokens: int = 64
    concurrency: int = 1
    cold: bool = False
    temperature: float | None = None
    timeouts: StreamTimeouts = field(default_factory=StreamTimeouts)
    vary_start: bool | None = None  # None: with `cold` (see the module docstring)
    warming: bool = False  # with `cold`: the model was warmed as the app does at start
    # Request-rate mode (client/services/bench/load.py): Poisson arrivals at this many
    # requests per second, capped by max_concurrency when set; None: `concurrency`.
    request_rate: float | None = None
    max_concurrency: int | None = None
    seed: int = 0
    slo: dict[str, float] | None = None  # goodput SLOs in ms (bench_figures.parse_slo)
    images: tuple[ImagePart, ...] = ()  # sent with every request (`--image`)
    attached: tuple[Attachment, ...] = ()  # those images as attached: the report's figures

    def request(self, backend: Backend, index: int = 0) -> ChatRequest:
        """The index-th request of the run (the cold one is 0), planned as the app
        plans a first message (client.services.planning.planner)."""
        options = GenerationOptions(max_tokens=self.max_tokens, temperature=self.temperature)
        given = PlanInput(
            [],
            self.message(index),
            PlanSettings(options=options),
            [Route(backend, self.model)],
            images=self.images,
        )
        return plan_request(given).request()

    @property
    def varies_start(self) -> bool:
        """Each request starts with its own word (see the module's docstring)."""
        if self.vary_start is not None:
            return self.vary_start
        return self.cold or bool(self.images)

    def message(self, index: int = 0) -> str:
        vary = self.varies_start
        if not vary:
            return self.prompt
        return f"{START_WORDS[index % len(START_WORDS)]}: {self.prompt}"


@dataclass(slots=True)
class RequestResult:
    started_at: float  # wall-clock seconds since the epoch, for the report only
    server: str
    model: str
    metrics: RequestMetrics
    cold: bool = False
    outcome: str = "stop"  # the Done reason, or "failed"
    error: str | None = None
    error_type: str | None = None
    sent: int = 1  # requests sent for it (a pool's hedge or failover sends more)

    @property
    def ok(self) -> bool:
        return self.error is None

    def server_figures(self) -> dict[str, float]:
        return server_figures(self.metrics.server)

    def as_dict(self) -> dict[str, Any]:
        m = self.metrics
        return {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.started_at)),
            "server": self.server,
            "model": self.model,
            "ttft_ms": m.ttft_ms,
            "ttfo_ms": m.ttfo_ms,
            "tpot_ms": m.tpot_ms,
            "tokens_per_s": m.tokens_per_s,
            "qoe": m.qoe,
            "e2el_ms": m.e2el_ms,
            "prompt_tokens": m.prompt_tokens,
            "output_tokens": m.output_tokens,
            "output_tokens_estimated": m.output_tokens_estimated,
            "tokens_estimated": m.output_tokens_estimated,
            "chunks": m.chunks,
            "tier": m.tier,
            "cold": self.cold,
            "outcome": self.outcome,
            "error": self.error,
            "sent": self.sent,
            "server_timings": m.server.encode(),
        }


def server_figures(server: ServerReport) -> dict[str, float]:
    """The server's own load / prompt / decode figures, in one vocabulary (each kind's
    timings say theirs: client/core/server_timings.py `figures`)."""
    return server.figures()


@dataclass(slots=True)
class BenchReport:
    server: str
    api: str
    settings: BenchSettings
    results: list[RequestResult] = field(default_factory=list)
    duration_s: float = 0.0  # wall time of the measured requests (warm-up excluded)

    def figures(self) -> RunFigures:
        ok = [r.metrics for r in self.warm_results if r.ok]
        return run_figures(ok, sum(not r.ok for r in self.warm_results), self.duration_s)

    def goodput(self) -> dict[str, Any] | None:
        if not self.settings.slo:
            return None
        ok = [r.metrics for r in self.warm_results if r.ok]
        return goodput(ok, len(self.warm_results), self.duration_s, self.settings.slo)

    @property
    def cold_result(self) -> RequestResult | None:
        return next((r for r in self.results if r.cold), None)

    @property
    def warm_results(self) -> list[RequestResult]:
        return [r for r in self.results if not r.cold]

    @property
    def errors(self) -> int:
        return sum(not r.ok for r in self.results)

    @property
    def empty_answers(self) -> int:
        """Measured answers that completed with no text (the model stopped at once):
        counted as completed, with no first token to time."""
        return sum(r.ok and r.metrics.ttft_ms is None for r in self.warm_results)

    @property
    def output_tokens_estimated(self) -> bool:
        return any(r.metrics.output_tokens_estimated for r in self.results if r.ok)

    def summaries(self) -> dict[str, Summary | None]:
        """Client metrics over the successful warm requests (ITL over all their gaps)."""
        ok = [r.metrics for r in self.warm_results if r.ok]
        table: dict[str, Summary | None] = {
            name: summarize(getattr(m, name) for m in ok)
            for name in CLIENT_METRICS
            if name != "itl_ms"
        }
        table["itl_ms"] = summarize(gap for m in ok for gap in m.itl_ms)
        table["output_tokens"] = summarize(m.output_tokens for m in ok)
        table["prompt_tokens"] = summarize(m.prompt_tokens for m in ok)  # the server's count
        return table

    def qoe(self) -> QoeSpread:
        """Andes' QoE over the successful warm answers: P50, P5 and n."""
        return qoe_spread(r.metrics.qoe for r in self.warm_results if r.ok)

    def server_summaries(self) -> dict[str, Summary]:
        """The server's own figures, only those it reported."""
        ok = [r.server_figures() for r in self.warm_results if r.ok]
        found = {name: summarize(f.get(name) for f in ok) for name in SERVER_METRICS}
        return {name: summary for name, summary in found.items() if summary is not None}

    def as_dict(self) -> dict[str, Any]:
        summaries = self.summaries()
        ordered = sorted(self.results, key=lambda r: r.started_at)
        return {
            "server": self.server,
            "api": self.api,
            "model": self.settings.model,
            "n": len(self.warm_results),
            "errors": self.errors,
            "empty_answers": self.empty_answers,
            "concurrency": self.settings.concurrency,
            "max_tokens": self.settings.max_tokens,
            "output_tokens_estimated": self.output_tokens_estimated,
            "cold": self.cold_result.as_dict() if self.cold_result else None,
            "warmed_before_first": self.settings.warming,
            "request_rate": self.settings.request_rate,
            "images": [image_figures(a) for a in self.settings.attached],
            "varied_start": self.settings.varies_start,
            **self.figures().as_dict(),
            "goodput": self.goodput(),
            **{name: _summary_dict(summary) for name, summary in summaries.items()},
            "qoe": self.qoe().as_dict(),
            "server_timings": {
                name: summary.as_dict() for name, summary in self.server_summaries().items()
            },
            "requests": [r.as_dict() for r in ordered],
        }


def image_figures(attachment: Attachment) -> dict[str, Any]:
    """An image sent with every request: the original, what was sent, the preparing."""
    sent = attachment.sent
    return {
        "name": attachment.name,
        "original_width": attachment.original_width,
        "original_height": attachment.original_height,
        "original_bytes": len(attachment.original),
        "sent_width": sent.width,
        "sent_height": sent.height,
        "sent_bytes": len(sent.data),
        "downscaled": attachment.downscaled,
        "prepare_ms": round(attachment.prepare_ms, 3),
    }


def _summary_dict(summary: Summary | None) -> dict[str, float] | None:
    return summary.as_dict() if summary else None


async def measure_one(
    backend: Backend, settings: BenchSettings, cold: bool = False, index: int = 0
) -> RequestResult:
    """One streamed request; never raises except when cancelled."""
    started_at = time.time()
    request = settings.request(backend, index)
    async with answer_stream_of(backend, request, settings.timeouts) as stream:
        async for _event in stream:
            pass
    outcome = stream.outcome
    server = backend.base_url
    result = RequestResult(started_at, server, settings.model, stream.metrics(), cold)
    if isinstance(stream, FleetStream):  # a pool's: the server that answered
        result.server, result.sent = stream.winner_name or server, stream.sent
    if isinstance(outcome, Failed):
        result.outcome = "failed"
        result.error = outcome.message
        result.error_type = type(outcome.error).__name__
    elif isinstance(outcome, Done):
        result.outcome = outcome.reason.value
    return result


async def run_bench(
    backend: Backend,
    settings: BenchSettings,
    make_cold: MakeCold | None = None,
    progress: Progress | None = None,
) -> BenchReport:
    report = BenchReport(backend.base_url, backend.api, settings)
    total = settings.n + (1 if settings.cold else settings.warmup)
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    if settings.cold:
        if make_cold is not None:
            await make_cold()
        # The cold request warms the model, so no separate warm-up is needed.
        report.results.append(await measure_one(backend, settings, cold=True))
        step()
    else:
        for index in range(settings.warmup):
            await measure_one(backend, settings, index=index + 1)
            step()
    first = 1 + (0 if settings.cold else settings.warmup)
    started = time.monotonic()
    report.results.extend(await _measure_many(backend, settings, step, first))
    report.duration_s = time.monotonic() - started
    return report


async def _measure_many(
    backend: Backend, settings: BenchSettings, step: Callable[[], None], first: int = 1
) -> list[RequestResult]:
    async def measured(index: int) -> RequestResult:
        result = await measure_one(backend, settings, index=first + index)
        step()
        return result

    if settings.request_rate:
        offsets = poisson_offsets(settings.request_rate, settings.n, settings.seed)
        results = await send_all(measured, settings.n, settings.max_concurrency, offsets)
    else:
        results = await send_all(measured, settings.n, max(settings.concurrency, 1))
    return sorted(results, key=lambda r: r.started_at)


async def unload_ollama_model(backend: Backend, model: str) -> None:
    """Make an Ollama model cold: an empty chat with keep_alive 0 unloads it."""
    request = ChatRequest(model=model, messages=[], keep_alive=0)
    async with backend.chat(request) as stream:
        async for _event in stream:
            pass
