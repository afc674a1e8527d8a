"""`tachy bench --fast --strong`: a cascade's requests, routed by the planner as the app
routes them, with TTFT percentiles per route (client/cli/bench/cascade.py prints them).

Without --prompt the run cycles through a mix of everyday and hard questions, so both
routes get requests; a request whose route fails before its first token is answered by
the other route and counted under the route that answered (and as a fallback); no first
token within the cascade's wait (client/services/cascade/cascade.py) counts as such a failure.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from client.backends.stream import StreamTimeouts
from client.core.conversation import GenerationOptions
from client.core.events import Done, Failed
from client.core.metrics import RequestMetrics
from client.core.stats import Summary, summarize
from client.services.bench.export import ExportedRequest
from client.services.cascade.cascade import FALLBACK_AFTER_S, first_token_limit
from client.services.cascade.fallback import FallbackStream, FellBack
from client.services.planning.planner import (
    PlanInput,
    PlanSettings,
    RequestPlan,
    Route,
    plan_request,
)
from client.services.planning.router import RouteDecision, Tier

MIXED_PROMPTS = (
    "hi",
    "Prove that the square root of 2 is irrational, step by step.",
    "What is the capital of France?",
    "Write a Python function that reverses a linked list.",
    "Thanks, that helps!",
    "Compare TCP and UDP.",
    "你好",
    "解释为什么天空是蓝色的",
)


@dataclass(frozen=True, slots=True)
class CascadeBenchSettings:
    n: int = 20
    warmup: int = 1  # per route
    max_tokens: int = 64
    prompts: Sequence[str] = MIXED_PROMPTS
    timeouts: StreamTimeouts = field(default_factory=StreamTimeouts)


@dataclass(slots=True)
class CascadeResult:
    text: str
    chosen: str  # the tier the planner chose
    answered: str  # the tier that answered ("" when neither did)
    model: str
    metrics: RequestMetrics
    decided_ms: float
    error: str | None = None
    started_at: float | None = None  # wall-clock seconds

    @property
    def fell_back(self) -> bool:
        return bool(self.answered) and self.answered != self.chosen


@dataclass(slots=True)
class CascadeReport:
    results: list[CascadeResult] = field(default_factory=list)

    def ttft(self, tier: str) -> Summary | None:
        return summarize(
            r.metrics.ttft_ms for r in self.results if r.answered == tier and not r.error
        )

    @property
    def fallbacks(self) -> int:
        return sum(r.fell_back for r in self.results)

    @property
    def errors(self) -> int:
        return sum(r.error is not None for r in self.results)

    def exported(self) -> list[ExportedRequest]:
        """Each request as --export writes it, under the route that answered it."""
        return [
            ExportedRequest(
                r.answered or r.chosen,
                r.metrics,
                "failed" if r.error is not None else "stop",
                r.error,
                started_at=r.started_at,
            )
            for r in self.results
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": len(self.results),
            "errors": self.errors,
            "fallbacks": self.fallbacks,
            "ttft_ms": {tier.value: _dict(self.ttft(tier.value)) for tier in Tier},
            "requests": [
                {
                    "text": r.text,
                    "route": r.chosen,
                    "answered_by": r.answered,
                    "model": r.model,
                    "ttft_ms": r.metrics.ttft_ms,
                    "decided_ms": r.decided_ms,
                    "error": r.error,
                }
                for r in self.results
            ],
        }


def _dict(summary: Summary | None) -> dict[str, float] | None:
    return summary.as_dict() if summary else None


async def run_cascade_bench(routes: list[Route], settings: CascadeBenchSettings) -> CascadeReport:
    for route in routes:  # warm each model once so the first figures are not loads
        for _ in range(settings.warmup):
            await _stream(
                _plan(routes, settings, "hi", RouteDecision(Tier(route.tier), "warm-up")),
                settings.timeouts,
            )
    report = CascadeReport()
    for index in range(settings.n):
        text = settings.prompts[index % len(settings.prompts)]
        report.results.append(await measure_cascade_one(routes, settings, text))
    return report


async def measure_cascade_one(
    routes: list[Route], settings: CascadeBenchSettings, text: str
) -> CascadeResult:
    started_at, started = time.time(), time.perf_counter()
    plan = _plan(routes, settings, text)
    decided_ms = (time.perf_counter() - started) * 1000
    chosen = plan.route.tier
    timeouts = settings.timeouts
    limit = first_token_limit(plan, FALLBACK_AFTER_S, timeouts.first_byte_s)
    fell: list[FellBack] = []  # the app's fallback: TTFT counts from the first request
    stream = FallbackStream(plan, timeouts, fell.append, limit)
    got = False
    async with stream:
        async for _event in stream:
            got = got or bool(stream.text)
    route = fell[-1].plan.route if fell else plan.route
    outcome = stream.outcome
    error = outcome.message if isinstance(outcome, Failed) else None
    answered = "" if error is not None and not got else route.tier
    metrics = stream.metrics()
    return CascadeResult(
        text, chosen, answered, route.model, metrics, decided_ms, error, started_at
    )


def _plan(
    routes: list[Route],
    settings: CascadeBenchSettings,
    text: str,
    decision: RouteDecision | None = None,
) -> RequestPlan:
    options = GenerationOptions(max_tokens=settings.max_tokens)
    return plan_request(
        PlanInput([], text, PlanSettings(options=options), routes, decision=decision)
    )


async def _stream(
    plan: RequestPlan, timeouts: StreamTimeouts
) -> tuple[Done | Failed | None, RequestMetrics, bool]:
    got = False
    async with plan.route.backend.chat(plan.request(), timeouts) as stream:
        async for _event in stream:
            got = got or bool(stream.text)
    return stream.outcome, stream.metrics(), got
