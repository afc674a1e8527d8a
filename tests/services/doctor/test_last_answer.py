"""The doctor hears the root's answers: its report says the last one's server and
time to first token (client/services/doctor/last_answer.py)."""

from __future__ import annotations

from client.core.metrics import RequestMetrics
from client.services.doctor.last_answer import LastAnswer
from client.services.doctor.report import Status
from client.services.events import AnswerFinished, EventBus
from client.services.planning.planner import Route


def _answer(ttft_ms: float | None) -> AnswerFinished:
    metrics = RequestMetrics(ttft_ms=ttft_ms)
    return AnswerFinished(metrics, Route(None, "small", "Local"), "complete")  # type: ignore[arg-type]


def test_the_report_says_the_last_answer_heard_on_the_bus() -> None:
    bus = EventBus()
    answers = LastAnswer(bus)
    assert answers.check().line() == "info  last answer: none yet since Tachy started"
    bus.publish(_answer(None))
    assert answers.check().line() == "info  last answer: small at Local: no first token"
    bus.publish(_answer(212.4))
    check = answers.check()
    assert check.status is Status.OK
    assert check.detail == "small at Local: first token in 212 ms"
