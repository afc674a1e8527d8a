"""A continued answer's footer figures are the whole message's."""

from __future__ import annotations

import pytest

from client.core.metrics import RequestMetrics
from client.services.chat.answer_figures import WholeAnswer, whole_answer


def request(ttft: float | None, tokens: int | None, tpot: float | None, tier: str | None):
    rate = 1000 / tpot if tpot else None
    return RequestMetrics(
        ttft_ms=ttft, output_tokens=tokens, tpot_ms=tpot, tokens_per_s=rate, tier=tier
    )


def test_one_request_is_its_own_figures() -> None:
    only = request(212.0, 312, 20.0, "fast")
    assert whole_answer([only]) == WholeAnswer(212.0, 50.0, 312, "fast", parts=1)
    assert whole_answer([]) is None


def test_a_continued_answer_counts_every_token_and_its_first_one() -> None:
    stopped = request(212.0, 11, 20.0, "fast")  # 10 gaps in 200 ms
    continued = request(15.0, 31, 10.0, "instant")  # 30 gaps in 300 ms
    whole = whole_answer([stopped, continued])
    assert whole is not None
    assert (whole.ttft_ms, whole.tier) == (212.0, "fast")  # the answer's first token
    assert whole.output_tokens == 42 and whole.parts == 2
    assert whole.tokens_per_s == pytest.approx(1000 * 40 / 500)


def test_a_request_that_wrote_nothing_is_no_part() -> None:
    # Stopped before its first token, then Continue asked the question again.
    nothing = request(None, None, None, None)
    answered = request(300.0, 20, 25.0, "typing")
    assert whole_answer([nothing, answered]) == WholeAnswer(300.0, 40.0, 20, "typing", parts=1)


def test_a_part_without_a_rate_still_counts_its_tokens() -> None:
    one_token = request(90.0, 1, None, "instant")
    rest = request(12.0, 21, 20.0, "instant")
    whole = whole_answer([one_token, rest])
    assert whole is not None and whole.output_tokens == 22 and whole.parts == 2
    assert whole.tokens_per_s == pytest.approx(50.0)
