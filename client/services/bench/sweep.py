"""`tachy bench --sweep 1,2,4,8`: the same load at each concurrency, one curve.

For each level: TTFT P50 and P95, output tokens/s (all requests together) and goodput
when SLOs are set. The knee is the highest concurrency whose TTFT P95 stays within
KNEE_FACTOR of the first level's: past it, requests queue (the server's batch is full)
and the first token waits for a free place. Tier crossings say between which levels
the P95 first passes each latency tier's bound (100, 300, 1000 ms).

A P95 of a few requests is nearly their slowest, and noise decides it: the knee is
decided only when every level has KNEE_MIN_N successful requests, and each level's
P95 carries its distribution-free 95 % confidence bounds (an upper one takes 73).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from client.backends.base import Backend
from client.core.stats import quantile_bounds
from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.services.bench.runner import BenchReport, BenchSettings, Progress, run_bench

KNEE_FACTOR = 1.5
KNEE_MIN_N = 30  # successful requests a level needs before its P95 decides the knee


class SweepError(ValueError):
    """A --sweep list that cannot be used; the message says what is wrong."""


def parse_levels(text: str) -> list[int]:
    try:
        levels = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise SweepError(f"--sweep {text!r}: give concurrency levels like 1,2,4,8") from None
    if not levels or any(level < 1 for level in levels):
        raise SweepError(f"--sweep {text!r}: every level must be a whole number of at least 1")
    return sorted(set(levels))


@dataclass(frozen=True, slots=True)
class SweepPoint:
    concurrency: int
    ttft_p50_ms: float | None
    ttft_p95_ms: float | None
    output_throughput: float
    errors: int
    report: BenchReport
    ttft_n: int = 0  # successful warm requests: what the percentiles stand on
    ttft_p95_low_ms: float | None = None  # 95 % confidence bounds of the P95
    ttft_p95_high_ms: float | None = None  # None: too few requests to bound it

    def as_dict(self) -> dict[str, Any]:
        goodput = self.report.goodput()
        return {
            "concurrency": self.concurrency,
            "ttft_n": self.ttft_n,
            "ttft_p50_ms": self.ttft_p50_ms,
            "ttft_p95_ms": self.ttft_p95_ms,
            "ttft_p95_low_ms": self.ttft_p95_low_ms,
            "ttft_p95_high_ms": self.ttft_p95_high_ms,
            "output_throughput": self.output_throughput,
            "errors": self.errors,
            "goodput": goodput,
        }


def point_of(concurrency: int, report: BenchReport) -> SweepPoint:
    ttft = report.summaries()["ttft_ms"]
    values = sorted(
        r.metrics.ttft_ms for r in report.warm_results if r.ok and r.metrics.ttft_ms is not None
    )
    low, high = quantile_bounds(values, 95)
    return SweepPoint(
        concurrency,
        ttft.median if ttft else None,
        ttft.p95 if ttft else None,
        report.figures().output_throughput,
        report.errors,
        report,
        ttft_n=len(values),
        ttft_p95_low_ms=low,
        ttft_p95_high_ms=high,
    )


async def run_sweep(
    backend: Backend,
    settings: BenchSettings,
    levels: Sequence[int],
    progress: Progress | None = None,
    requests_per_level: int | None = None,
) -> list[SweepPoint]:
    """Each level sends max(n, 2 x level) requests (so every level fills its slots
    twice) after the warm-up, which only the first level runs."""
    points = []
    for position, level in enumerate(levels):
        n = requests_per_level or max(settings.n, 2 * level)
        run = replace(
            settings, concurrency=level, n=n, warmup=settings.warmup if not position else 0
        )
        points.append(point_of(level, await run_bench(backend, run, progress=progress)))
    return points


def too_few(points: Sequence[SweepPoint]) -> list[SweepPoint]:
    """The levels with fewer than KNEE_MIN_N successful requests."""
    return [p for p in points if p.ttft_n < KNEE_MIN_N]


def knee(points: Sequence[SweepPoint]) -> int | None:
    """The highest level before the P95 of TTFT first grows past KNEE_FACTOR x the first;
    None when a level has too few requests to say (too_few) or none measured."""
    measured = [p for p in points if p.ttft_p95_ms is not None]
    if not measured or too_few(points):
        return None
    base = measured[0].ttft_p95_ms or 0.0
    last_good = measured[0].concurrency
    for point in measured[1:]:
        if (point.ttft_p95_ms or 0.0) > KNEE_FACTOR * base:
            return last_good
        last_good = point.concurrency
    return last_good


def tier_crossings(
    points: Sequence[SweepPoint], thresholds: TierThresholds = DEFAULT_THRESHOLDS
) -> list[tuple[float, int, int | None]]:
    """(bound_ms, first level over it, the level before it or None) for each tier bound
    the P95 of TTFT passes."""
    bounds = (thresholds.instant_below_ms, thresholds.fast_below_ms, thresholds.typing_below_ms)
    found = []
    for bound in bounds:
        previous: int | None = None
        for point in points:
            if point.ttft_p95_ms is not None and point.ttft_p95_ms >= bound:
                found.append((bound, point.concurrency, previous))
                break
            previous = point.concurrency
    return found
