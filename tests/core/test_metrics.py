from __future__ import annotations

import pytest

from client.core.events import ServerTimings, TokenKind, Usage
from client.core.metrics import compute_metrics
from client.core.timeline import RequestTimeline

MS = 1_000_000


def _timeline(*tokens: tuple[int, TokenKind]) -> RequestTimeline:
    timeline = RequestTimeline()
    timeline.mark_written(1_000 * MS)
    timeline.mark_headers(1_005 * MS)
    for at_ms, kind in tokens:
        timeline.mark_token(kind, 3, (1_000 + at_ms) * MS)
    last = tokens[-1][0] if tokens else 0
    timeline.mark_done((1_000 + last + 1) * MS)
    return timeline


def test_ttft_tpot_and_rate_from_chunks() -> None:
    timeline = _timeline((50, TokenKind.ANSWER), (70, TokenKind.ANSWER), (90, TokenKind.ANSWER))
    metrics = compute_metrics(timeline)
    assert metrics.ttft_ms == 50
    assert metrics.ttfo_ms == 50
    assert metrics.itl_ms == [20, 20]
    assert metrics.e2el_ms == 90
    assert metrics.output_tokens == 3 and metrics.output_tokens_estimated
    assert metrics.tpot_ms == pytest.approx(20)
    assert metrics.tokens_per_s == pytest.approx(50)
    assert metrics.tier == "instant"
    assert metrics.headers_ms == 5


def test_server_count_wins_over_chunks() -> None:
    timeline = _timeline((200, TokenKind.ANSWER), (400, TokenKind.ANSWER))
    metrics = compute_metrics(timeline, Usage(prompt_tokens=12, completion_tokens=11))
    assert metrics.output_tokens == 11 and not metrics.output_tokens_estimated
    assert metrics.tpot_ms == pytest.approx(20)  # (400 - 200) / (11 - 1)
    assert metrics.prompt_tokens == 12
    assert metrics.tier == "fast"


def test_ollama_and_llamacpp_counts() -> None:
    timeline = _timeline((10, TokenKind.ANSWER), (30, TokenKind.ANSWER))
    ollama = ServerTimings("ollama", {"eval_count": 5, "prompt_eval_count": 7})
    metrics = compute_metrics(timeline, None, [ollama])
    assert (metrics.output_tokens, metrics.prompt_tokens) == (5, 7)
    assert metrics.server["ollama"]["eval_count"] == 5
    llama = ServerTimings("llamacpp", {"predicted_n": 9, "prompt_n": 4})
    metrics = compute_metrics(timeline, None, [llama])
    assert (metrics.output_tokens, metrics.prompt_tokens) == (9, 4)


def test_thinking_counts_for_ttft_not_ttfo() -> None:
    timeline = _timeline((40, TokenKind.THINKING), (500, TokenKind.ANSWER))
    metrics = compute_metrics(timeline)
    assert metrics.ttft_ms == 40
    assert metrics.ttfo_ms == 500


def test_no_tokens() -> None:
    metrics = compute_metrics(_timeline())
    assert metrics.ttft_ms is None and metrics.tpot_ms is None and metrics.tier is None
    assert metrics.e2el_ms == 1
    assert metrics.output_tokens is None


def test_empty_token_is_not_stamped() -> None:
    timeline = RequestTimeline()
    timeline.mark_token(TokenKind.ANSWER, 0)
    assert timeline.tokens == []


def test_stages_close_each_other() -> None:
    timeline = RequestTimeline()
    timeline.enter_stage("understanding", 1)
    timeline.enter_stage("understanding", 2)
    timeline.enter_stage("answering", 5)
    timeline.close_stages(9)
    assert [(s.name, s.start_ns, s.end_ns) for s in timeline.stages] == [
        ("understanding", 1, 5),
        ("answering", 5, 9),
    ]
