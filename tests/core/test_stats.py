from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from client.core.stats import percentile, quantile_bounds, summarize


@given(st.lists(st.floats(min_value=-1e6, max_value=1e6), min_size=1, max_size=200))
def test_percentiles_match_numpy_linear(values: list[float]) -> None:
    summary = summarize(values)
    assert summary is not None
    for q, got in ((50, summary.median), (90, summary.p90), (95, summary.p95), (99, summary.p99)):
        assert got == pytest.approx(float(np.percentile(values, q)), abs=1e-6)
    assert summary.n == len(values)


def test_known_values() -> None:
    summary = summarize([10, 20, 30, 40])
    assert summary is not None
    assert summary.median == 25
    assert summary.p90 == pytest.approx(37.0)
    assert summary.mean == 25


def test_none_and_empty() -> None:
    assert summarize([]) is None
    assert summarize([None, None]) is None
    summary = summarize([None, 5.0])
    assert summary is not None and summary.n == 1 and summary.p99 == 5.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_quantile_bounds_are_the_binomial_order_statistics() -> None:
    """Distribution-free 95 % bounds, as the tables give them: the median of 10 lies
    between the 2nd and 9th values, of 100 between the 40th and 61st; a P95 of 30 has
    a lower bound only (its upper one needs 73 values)."""
    assert quantile_bounds(list(range(1, 11)), 50) == (2, 9)
    assert quantile_bounds(list(range(1, 101)), 50) == (40, 61)
    assert quantile_bounds(list(range(1, 31)), 95) == (26, None)
    assert quantile_bounds(list(range(1, 74)), 95) == (65, 73)
    assert quantile_bounds([5.0], 95) == (None, None)
