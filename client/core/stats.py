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
