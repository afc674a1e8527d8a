"""The Prometheus text exposition format, and the sums a server view takes of it.
Pure: text in, samples and numbers out."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

_SAMPLE = re.compile(
    r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)(?:\s+\S+)?$"
)
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


def parse_prometheus(text: str) -> list[Sample]:
    """Prometheus text exposition format; lines that do not parse are skipped."""
    samples = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _SAMPLE.match(line)
        if match is None:
            continue
        try:
            value = float(match["value"])
        except ValueError:
            continue
        labels = {k: _unescape(v) for k, v in _LABEL.findall(match["labels"] or "")}
        samples.append(Sample(match["name"], labels, value))
    return samples


def _unescape(value: str) -> str:
    return value.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")


def histogram_quantile(buckets: Iterable[tuple[float, float]], q: float) -> float | None:
    """Prometheus' histogram_quantile: linear interpolation inside the bucket that holds
    the q-th observation; buckets are (upper bound `le`, cumulative count). q in [0, 1]."""
    ordered = sorted(buckets)
    if not ordered or ordered[-1][1] <= 0:
        return None
    total = ordered[-1][1]
    rank = q * total
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in ordered:
        if count >= rank and count > lower_count:
            if math.isinf(bound):
                return lower_bound  # beyond the last finite bucket: its bound is all we know
            return lower_bound + (bound - lower_bound) * (rank - lower_count) / (
                count - lower_count
            )
        lower_bound, lower_count = bound, count
    return lower_bound


def total(samples: list[Sample], name: str, model: str | None = None) -> float | None:
    """Sum over label sets (e.g. several engines), optionally only one model_name."""
    found = [
        s.value
        for s in samples
        if s.name == name and (model is None or s.labels.get("model_name") in (None, model))
    ]
    return sum(found) if found else None


def first(samples: list[Sample], names: Iterable[str], model: str | None = None) -> float | None:
    for name in names:
        value = total(samples, name, model)
        if value is not None:
            return value
    return None


def ratio(accepted: float | None, draft: float | None) -> float | None:
    return accepted / draft if accepted is not None and draft else None


def buckets(samples: list[Sample], name: str, model: str | None) -> list[tuple[float, float]]:
    by_bound: dict[float, float] = {}
    for s in samples:
        if s.name == f"{name}_bucket" and "le" in s.labels:
            if model is not None and s.labels.get("model_name") not in (None, model):
                continue
            bound = float(s.labels["le"])  # "+Inf" parses as inf
            by_bound[bound] = by_bound.get(bound, 0.0) + s.value
    return sorted(by_bound.items())


def recent_quantiles(
    now: list[tuple[float, float]], then: list[tuple[float, float]]
) -> tuple[float | None, float | None, int]:
    """TTFT P50 and P95 (ms) and n of the requests between two readings of the histogram:
    the difference of its cumulative buckets."""
    earlier = dict(then)
    delta = [(bound, count - earlier.get(bound, 0.0)) for bound, count in now]
    n = int(delta[-1][1]) if delta else 0
    if n <= 0 or any(count < 0 for _, count in delta):  # none, or the server restarted
        return None, None, 0
    p50, p95 = histogram_quantile(delta, 0.5), histogram_quantile(delta, 0.95)
    return (
        p50 * 1000.0 if p50 is not None else None,
        p95 * 1000.0 if p95 is not None else None,
        n,
    )
