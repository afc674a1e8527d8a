"""Andes' QoE (client/core/qoe.py): the cases the paper's definition must get right."""

from __future__ import annotations

import math

import pytest

from client.core.events import TokenKind
from client.core.metrics import compute_metrics
from client.core.qoe import Arrival, Reader, arrivals_of, qoe, timeline_qoe
from client.core.timeline import RequestTimeline

NS = 1_000_000_000


def steady(count: int, ttft_s: float, per_s: float) -> list[Arrival]:
    return [Arrival(ttft_s + i / per_s, 1.0) for i in range(count)]


def bursty(count: int, ttft_s: float, per_s: float, burst_s: float) -> list[Arrival]:
    """The same tokens held and let go every burst_s (the first at once)."""
    return [
        Arrival(ttft_s + math.ceil(i / per_s / burst_s - 1e-9) * burst_s, 1.0) for i in range(count)
    ]


def test_an_answer_ahead_of_the_reader_scores_one() -> None:
    assert qoe(steady(60, 0.2, 30)) == pytest.approx(1.0)
    assert qoe(steady(60, 0.2, 6)) == pytest.approx(1.0)  # exactly at the reader's pace


def test_tokens_faster_than_the_reader_add_nothing() -> None:
    assert qoe(steady(60, 0.2, 6)) == pytest.approx(qoe(steady(60, 0.2, 600)))


def test_a_slower_answer_scores_less() -> None:
    slower = qoe(steady(60, 0.2, 4))
    assert slower is not None and 0.7 < slower < 0.9


def test_bursts_score_less_than_the_same_mean_rate_steady() -> None:
    smooth = qoe(steady(61, 0.2, 6))
    lumpy = qoe(bursty(61, 0.2, 6, 3.0))
    assert smooth == pytest.approx(1.0)
    assert lumpy is not None and lumpy < 0.9


def test_a_long_first_token_wait_costs() -> None:
    late = qoe(steady(60, 3.0, 30))
    assert late is not None and late < 0.95
    assert qoe([Arrival(20.0, 100.0)]) == 0.0  # all of it after the reader gave up


def test_the_reader_can_be_changed() -> None:
    answer = steady(60, 0.2, 4)
    assert qoe(answer, Reader(tokens_per_s=4)) == pytest.approx(1.0)
    assert qoe(answer, Reader(tokens_per_s=8)) < qoe(answer)  # type: ignore[operator]


def test_no_tokens_no_figure() -> None:
    assert qoe([]) is None
    assert timeline_qoe(RequestTimeline()) is None


def test_chunks_carry_the_servers_extra_tokens_by_their_characters() -> None:
    timeline = RequestTimeline(request_written_ns=0)
    timeline.mark_token(TokenKind.ANSWER, 30, at_ns=NS // 2)
    timeline.mark_token(TokenKind.ANSWER, 10, at_ns=NS)
    arrivals = arrivals_of(timeline, server_tokens=10)
    assert [(a.at_s, a.tokens) for a in arrivals] == [(0.5, 7.0), (1.0, 3.0)]
    assert [a.tokens for a in arrivals_of(timeline)] == [1.0, 1.0]  # no count: a chunk each
    assert [a.tokens for a in arrivals_of(timeline, 2)] == [1.0, 1.0]  # a token a chunk


def test_compute_metrics_fills_qoe() -> None:
    timeline = RequestTimeline(request_written_ns=0)
    for i in range(20):
        timeline.mark_token(TokenKind.ANSWER, 4, at_ns=NS // 5 + i * NS // 10)
    metrics = compute_metrics(timeline)
    assert metrics.qoe == pytest.approx(1.0)
