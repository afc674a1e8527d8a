"""The current answer at a glance: its time to first token and its rate, for the
folded latency strip and Present's tier word. It hears the root's events
(client/services/events.py: a turn's start with its timeline, the answer's figures),
whoever asked; nothing runs per token: the views read `figures()` on their own timer,
and that reads the turn's timeline."""

from __future__ import annotations

from dataclasses import dataclass

from client.core.timeline import RequestTimeline, now_ns
from client.services.events import AnswerFinished, EventBus, TurnStarted

NS_PER_MS = 1_000_000


@dataclass(frozen=True, slots=True)
class Glance:
    ttft_ms: float | None = None  # None: no first token (yet)
    tokens_per_s: float | None = None
    answering: bool = False


class AnswerGlance:
    def __init__(self, bus: EventBus) -> None:
        self._timeline: RequestTimeline | None = None
        self._final: Glance = Glance()
        self.leave = [
            bus.subscribe(TurnStarted, self.turn_started),
            bus.subscribe(AnswerFinished, self.answer_finished),
        ]

    def turn_started(self, event: TurnStarted) -> None:
        self._timeline = event.timeline
        self._final = Glance(answering=True)

    def answer_finished(self, event: AnswerFinished) -> None:
        live = self.figures()
        metrics = event.metrics
        ttft = metrics.ttft_ms if metrics.ttft_ms is not None else live.ttft_ms
        self._final = Glance(ttft, metrics.tokens_per_s or live.tokens_per_s)
        self._timeline = None

    def figures(self) -> Glance:
        timeline = self._timeline
        if timeline is None:
            return self._final
        written, stamps = timeline.request_written_ns, timeline.tokens
        if not stamps or written is None:
            return Glance(answering=True)
        first, last, chunks = stamps[0].at_ns, stamps[-1].at_ns, len(stamps)
        ttft = (first - written) / NS_PER_MS
        elapsed_s = (max(last, now_ns()) - first) / 1e9
        rate = (chunks - 1) / elapsed_s if chunks > 1 and elapsed_s > 0 else None
        return Glance(ttft, rate, answering=True)
