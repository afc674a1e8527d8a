"""The current answer at a glance: its time to first token and its rate, for the
folded latency strip and Present's tier word. The runner's listener (client/ui/chat/
run_listener.py); per token only arithmetic, no Qt work: the
views read `figures()` on their own timer."""

from __future__ import annotations

from dataclasses import dataclass

from client.core.events import TokenKind
from client.core.timeline import RequestTimeline, now_ns
from client.services.chat.generation import Generation

NS_PER_MS = 1_000_000


@dataclass(frozen=True, slots=True)
class Glance:
    ttft_ms: float | None = None  # None: no first token (yet)
    tokens_per_s: float | None = None
    answering: bool = False


class AnswerGlance:
    def __init__(self) -> None:
        self._timeline: RequestTimeline | None = None
        self._first_ns: int | None = None
        self._chunks = 0
        self._last_ns = 0
        self._final: Glance = Glance()
        self.changes = 0  # bumped on every change (the views repaint only then)

    def request_started(self, generation: Generation) -> None:
        self._timeline = generation.timeline
        self._first_ns, self._chunks = None, 0
        self._final = Glance(answering=True)
        self.changes += 1

    def token(self, _kind: TokenKind, _chars: int, at_ns: int) -> None:
        if self._first_ns is None:
            self._first_ns = at_ns
        self._chunks += 1
        self._last_ns = at_ns
        self.changes += 1

    def request_finished(self, generation: Generation) -> None:
        finished = generation.finished
        live = self.figures()
        if finished is not None:
            metrics = finished.metrics
            ttft = metrics.ttft_ms if metrics.ttft_ms is not None else live.ttft_ms
            rate = metrics.tokens_per_s or live.tokens_per_s
            live = Glance(ttft, rate)
        self._final = Glance(live.ttft_ms, live.tokens_per_s)
        self._timeline = None
        self.changes += 1

    def figures(self) -> Glance:
        timeline = self._timeline
        if timeline is None:
            return self._final
        written = timeline.request_written_ns
        first = self._first_ns
        if first is None or written is None:
            return Glance(answering=True)
        ttft = (first - written) / NS_PER_MS
        elapsed_s = (max(self._last_ns, now_ns()) - first) / 1e9
        rate = (self._chunks - 1) / elapsed_s if self._chunks > 1 and elapsed_s > 0 else None
        return Glance(ttft, rate, answering=True)
