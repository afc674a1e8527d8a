"""A continued answer's footer figures are the whole message's."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from client.core.metrics import RequestMetrics
from client.services.chat.answer_figures import WholeAnswer, stored_tool_time, whole_answer
from client.services.tools.call_records import ToolTime
from client.store.stage_records import TOOL_CALL, StageRecord, ToolCallPart


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


@dataclass
class Stored:
    """A stored request as the share in tools reads it (a MetricsRecord's records)."""

    stage_records: list[StageRecord]


def _tool_turn(start: float, run: tuple[float, float], end: float) -> Stored:
    call = ToolCallPart(1, "add", "demo", None, None, run, 3)
    return Stored([
        StageRecord("answering", start, end),
        StageRecord(TOOL_CALL, run[0], run[1], tool_call=call),
    ])  # fmt: skip


def test_a_stored_answers_share_in_tools_adds_up_its_requests() -> None:
    first = _tool_turn(0.0, (100.0, 400.0), 1000.0)
    continued = _tool_turn(0.0, (100.0, 200.0), 1000.0)  # a Continue that called again
    assert stored_tool_time([Stored([StageRecord("answering", 0.0, 9.0)])]) is None
    assert stored_tool_time([first]) == ToolTime(1000.0, 300.0, 0.0)
    assert stored_tool_time([first, continued]) == ToolTime(2000.0, 400.0, 0.0)
