"""Run-level figures of a bench run, as engineers know them from vLLM's `bench serve`,
NVIDIA AIPerf and GuideLLM: request and output-token throughput over the measured
wall time, and goodput, the share (and rate) of requests that met every SLO.

SLOs are given as "ttft=300,tpot=50" (milliseconds; keys ttft, tpot, itl, e2el). A
request meets the itl SLO when every gap between its chunks does, as vLLM checks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from client.core.metrics import RequestMetrics

SLO_METRICS = {"ttft": "ttft_ms", "tpot": "tpot_ms", "itl": "itl_ms", "e2el": "e2el_ms"}


class SloError(ValueError):
    """A --slo value that cannot be read; the message says what is wrong."""


def parse_slo(text: str) -> dict[str, float]:
    """'ttft=300,tpot=50' -> {'ttft': 300.0, 'tpot': 50.0} (milliseconds)."""
    slo: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in SLO_METRICS:
            raise SloError(
                f"{part!r} is not an SLO; write name=milliseconds with a name among "
                f"{', '.join(SLO_METRICS)} (e.g. ttft=300,tpot=50)"
            )
        try:
            limit = float(value)
        except ValueError:
            raise SloError(f"{part!r}: {value.strip()!r} is not a number of milliseconds") from None
        if limit <= 0:
            raise SloError(f"{part!r}: the limit must be more than 0 ms")
        slo[key] = limit
    if not slo:
        raise SloError("--slo needs at least one name=milliseconds, e.g. ttft=300")
    return slo


def meets(metrics: RequestMetrics, slo: dict[str, float]) -> bool:
    for key, limit in slo.items():
        if key == "itl":
            if any(gap > limit for gap in metrics.itl_ms):
                return False
            continue
        value = getattr(metrics, SLO_METRICS[key])
        if value is None or value > limit:
            return False
    return True


@dataclass(frozen=True, slots=True)
class RunFigures:
    duration_s: float
    completed: int
    failed: int
    output_tokens: int
    request_throughput: float  # completed requests per second
    output_throughput: float  # output tokens per second, all requests together

    def as_dict(self) -> dict[str, Any]:
        return {
            "duration_s": self.duration_s,
            "completed": self.completed,
            "failed": self.failed,
            "total_output_tokens": self.output_tokens,  # as vLLM bench names it
            "request_throughput": self.request_throughput,
            "output_throughput": self.output_throughput,
        }


def run_figures(ok: Sequence[RequestMetrics], failed: int, duration_s: float) -> RunFigures:
    tokens = sum(m.output_tokens or 0 for m in ok)
    per_s = (lambda x: x / duration_s) if duration_s > 0 else (lambda x: 0.0)
    return RunFigures(duration_s, len(ok), failed, tokens, per_s(len(ok)), per_s(tokens))


def goodput(
    ok: Sequence[RequestMetrics], total: int, duration_s: float, slo: dict[str, float]
) -> dict[str, Any]:
    """Requests meeting every SLO: how many, their share of all sent, and per second."""
    good = sum(meets(m, slo) for m in ok)
    return {
        "slo_ms": dict(slo),
        "requests": good,
        "fraction": good / total if total else 0.0,
        "per_s": good / duration_s if duration_s > 0 else 0.0,
    }
