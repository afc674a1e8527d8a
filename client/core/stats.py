"""Summary statistics: mean and percentiles by linear interpolation (numpy's default)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """q in [0, 100]; sorted_values ascending and non-empty. numpy 'linear' method."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    position = (len(sorted_values) - 1) * q / 100.0
    low = math.floor(position)
    high = math.ceil(position)
    fraction = position - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction


@dataclass(frozen=True, slots=True)
class Summary:
    n: int
    mean: float
    median: float
    p90: float
    p95: float
    p99: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def summarize(values: Iterable[float | None]) -> Summary | None:
    """None when there are no values; None entries are ignored."""
    clean = sorted(v for v in values if v is not None and not math.isnan(v))
    if not clean:
        return None
    return Summary(
        n=len(clean),
        mean=sum(clean) / len(clean),
        median=percentile(clean, 50),
        p90=percentile(clean, 90),
        p95=percentile(clean, 95),
        p99=percentile(clean, 99),
    )


def quantile_bounds(
    sorted_values: Sequence[float], q: float, confidence: float = 0.95
) -> tuple[float | None, float | None]:
    """A distribution-free confidence interval for the q-th percentile (q in [0, 100]):
    the order statistics whose ranks the binomial law puts around it. A side the values
    are too few to bound is None (the upper side of a P95 needs 73 values at 95 %)."""
    n, p = len(sorted_values), q / 100.0
    tail = (1.0 - confidence) / 2.0
    below = 0.0  # P(fewer than k of n values fall below the percentile)
    low_rank: int | None = None
    high_rank: int | None = None
    for k in range(n + 1):
        if below <= tail:
            low_rank = k  # X_(k) (1-based) stays below the percentile often enough
        below += math.comb(n, k) * p**k * (1.0 - p) ** (n - k)
        if high_rank is None and below >= 1.0 - tail:
            high_rank = k + 1
    low = sorted_values[low_rank - 1] if low_rank else None
    high = sorted_values[high_rank - 1] if high_rank is not None and high_rank <= n else None
    return low, high
