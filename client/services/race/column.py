"""One column of a race: its generation, its text so far and its figures.

The figures come from the generation's own timeline (the same stamps the chat and the
HUD use): time to first token from the request written, the rate (tokens in the last
second while streaming, the decode rate once finished), the tier and the moment the
column finished, counted from the race's start.
"""

from __future__ import annotations

from dataclasses import dataclass

from client.core.events import Token, TokenKind
from client.core.metrics import NS_PER_MS
from client.core.tiers import Tier, tier_of
from client.core.timeline import RequestTimeline
from client.services.chat.generation import Generation, SessionEvent
from client.services.chat.session_events import Finished, Outcome

RATE_WINDOW_NS = 1_000_000_000  # the live rate: tokens in the last second


@dataclass(frozen=True, slots=True)
class ColumnFigures:
    """What a column shows under its answer, and the HUD beside the others."""

    name: str
    ttft_ms: float | None
    tokens_per_s: float | None
    tier: Tier | None
    finished_at_ms: float | None  # since the race started; None while it runs
    outcome: Outcome | None
    first_token: bool = False  # this column's first token came first
    first_finish: bool = False  # this column finished first
    qoe: float | None = None  # Andes' QoE once finished (client/core/qoe.py)


class RaceColumn:
    def __init__(self, index: int, name: str) -> None:
        self.index = index
        self.name = name
        self.generation: Generation | None = None
        self.text_parts: list[str] = []
        self.finished: Finished | None = None
        self.ended_ns: int | None = None
        self.finished_at_ms: float | None = None

    def take(self, event: SessionEvent, at_ns: int) -> None:
        """Note an event of this column's generation, received at `at_ns`."""
        if isinstance(event, Token) and event.kind is TokenKind.ANSWER:
            self.text_parts.append(event.text)  # (the reasoning is not the answer)
        elif isinstance(event, Finished) and self.finished is None:
            self.finished, self.ended_ns = event, at_ns

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def timeline(self) -> RequestTimeline | None:
        return self.generation.timeline if self.generation is not None else None

    @property
    def first_token_ns(self) -> int | None:
        timeline = self.timeline
        return timeline.first_token_ns if timeline is not None else None

    def ttft_ms(self) -> float | None:
        if self.finished is not None and self.finished.metrics.ttft_ms is not None:
            return self.finished.metrics.ttft_ms
        timeline = self.timeline
        if timeline is None or timeline.request_written_ns is None:
            return None
        first = timeline.first_token_ns
        return None if first is None else (first - timeline.request_written_ns) / NS_PER_MS

    def tokens_per_s(self, now_ns: int) -> float | None:
        """The decode rate once finished; while streaming, tokens in the last second."""
        if self.finished is not None:
            return self.finished.metrics.tokens_per_s
        timeline = self.timeline
        if timeline is None or not timeline.tokens:
            return None
        since = now_ns - RATE_WINDOW_NS
        return float(sum(1 for stamp in timeline.tokens if stamp.at_ns >= since))

    def figures(self, now_ns: int, first_token: bool, first_finish: bool) -> ColumnFigures:
        ttft = self.ttft_ms()
        return ColumnFigures(
            name=self.name,
            ttft_ms=ttft,
            tokens_per_s=self.tokens_per_s(now_ns),
            tier=tier_of(ttft) if ttft is not None else None,
            finished_at_ms=self.finished_at_ms,
            outcome=self.finished.outcome if self.finished is not None else None,
            first_token=first_token,
            first_finish=first_finish,
            qoe=self.finished.metrics.qoe if self.finished is not None else None,
        )
