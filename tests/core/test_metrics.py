from __future__ import annotations

import pytest

from client.backends.kinds.registry import timings_of
from client.core.events import DoneReason, TokenKind, Usage
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
    ollama = timings_of("ollama", {"eval_count": 5, "prompt_eval_count": 7})
    metrics = compute_metrics(timeline, None, [ollama])
    assert (metrics.output_tokens, metrics.prompt_tokens) == (5, 7)
    assert metrics.server["ollama"].values["eval_count"] == 5
    llama = timings_of("llamacpp", {"predicted_n": 9, "prompt_n": 4})
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


def _finished(reason: DoneReason, at_ms: int, *tokens_at_ms: int) -> RequestTimeline:
    timeline = _timeline(*((at, TokenKind.ANSWER) for at in tokens_at_ms))
    timeline.mark_finished(reason, (1_000 + at_ms) * MS)
    return timeline


def test_a_stop_chunk_without_text_ends_e2el_when_the_server_counts_it() -> None:
    """vLLM and llama.cpp count the end-of-sequence token, sent as a chunk with no text
    and finish_reason "stop": 4 tokens are 3 gaps, the last ending at that chunk."""
    timeline = _finished(DoneReason.STOP, 130, 50, 70, 90)
    metrics = compute_metrics(timeline, Usage(prompt_tokens=5, completion_tokens=4))
    assert metrics.e2el_ms == 130
    assert metrics.tpot_ms == pytest.approx((130 - 50) / 3)
    assert metrics.itl_ms == [20, 20]  # gaps between chunks with text, as before


def test_a_length_finish_or_a_chunk_count_ends_at_the_last_text() -> None:
    timeline = _finished(DoneReason.LENGTH, 130, 50, 70, 90)
    metrics = compute_metrics(timeline, Usage(completion_tokens=3))
    assert (metrics.e2el_ms, metrics.tpot_ms) == (90, pytest.approx(20))
    estimated = compute_metrics(_finished(DoneReason.STOP, 130, 50, 70, 90))
    assert estimated.output_tokens_estimated and estimated.e2el_ms == 90


def test_ollama_and_llamacpp_timings_without_a_finish_chunk_are_unchanged() -> None:
    timeline = _timeline((10, TokenKind.ANSWER), (30, TokenKind.ANSWER))
    for timings in (
        timings_of("ollama", {"eval_count": 3}),
        timings_of("llamacpp", {"predicted_n": 3}),
    ):
        metrics = compute_metrics(timeline, None, [timings])
        assert (metrics.e2el_ms, metrics.tpot_ms) == (30, pytest.approx(10))
