"""RequestTimeline: perf_counter_ns stamps taken in this process for one request.

Only stamps from this process are ever subtracted (monotonic clocks differ between
processes). Servers' own timings are kept separately (see events.ServerTimings).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from client.core.events import DoneReason, Prefill, TokenKind

# No token for this long after tokens came is a stall: the turn's state says so while it
# lasts (client/services/chat/turn_state.py) and the HUD counts it (services/hud/hud_live.py).
STALL_AFTER_MS = 2000.0


def now_ns() -> int:
    return time.perf_counter_ns()


@dataclass(slots=True)
class TokenStamp:
    at_ns: int
    kind: TokenKind
    chars: int


@dataclass(slots=True)
class StageStamp:
    name: str  # understanding | retrieving | thinking | answering | loading
    start_ns: int
    end_ns: int | None = None
    # What the stage produced or decided, e.g. retrieving: {"passages": 3, "tokens": 420};
    # a cascade's route decision (client/services/cascade/route_record.py)
    counts: dict[str, int | float | str] | None = None


@dataclass(slots=True)
class RequestTimeline:
    request_written_ns: int | None = None
    headers_ns: int | None = None
    first_byte_ns: int | None = None
    tokens: list[TokenStamp] = field(default_factory=list)
    done_ns: int | None = None
    painted_ns: int | None = None  # first token painted (ui only)
    stages: list[StageStamp] = field(default_factory=list)
    prefill: Prefill | None = None  # the server's latest prompt progress, if it sends any
    prefill_ns: int | None = None  # when that progress arrived
    finished_ns: int | None = None  # the chunk naming why the answer ended (finish_reason)
    finish_reason: DoneReason | None = None

    def mark_written(self, at_ns: int | None = None) -> None:
        self.request_written_ns = at_ns if at_ns is not None else now_ns()

    def mark_headers(self, at_ns: int | None = None) -> None:
        self.headers_ns = at_ns if at_ns is not None else now_ns()

    def mark_first_byte(self, at_ns: int | None = None) -> None:
        if self.first_byte_ns is None:
            self.first_byte_ns = at_ns if at_ns is not None else now_ns()

    def mark_token(self, kind: TokenKind, chars: int, at_ns: int | None = None) -> None:
        if chars > 0:
            self.tokens.append(TokenStamp(at_ns if at_ns is not None else now_ns(), kind, chars))

    def mark_prefill(self, progress: Prefill, at_ns: int | None = None) -> None:
        self.prefill = progress
        self.prefill_ns = at_ns if at_ns is not None else now_ns()

    def prefill_seconds_left(self, at_ns: int | None = None) -> float | None:
        """The prefill's time left at `at_ns`: the rest at the server's measured rate
        when its progress arrived, less the time since (never below zero); None when
        unknown."""
        progress, since = self.prefill, self.prefill_ns
        left = progress.seconds_left() if progress is not None else None
        if left is None or since is None:
            return None
        now = at_ns if at_ns is not None else now_ns()
        return max(left - (now - since) / 1e9, 0.0)

    def mark_finished(self, reason: DoneReason, at_ns: int | None = None) -> None:
        if self.finished_ns is None:
            self.finished_ns = at_ns if at_ns is not None else now_ns()
            self.finish_reason = reason

    def counted_end_ns(self) -> int | None:
        """When the last token the server counts arrived: the finish chunk for "stop" (it
        carries the end-of-sequence token: vLLM, llama.cpp, Ollama's final line), else the
        last chunk with text."""
        last = self.last_token_ns
        finished = self.finished_ns
        if last is None or finished is None or self.finish_reason is not DoneReason.STOP:
            return last
        return max(last, finished)

    def mark_done(self, at_ns: int | None = None) -> None:
        self.done_ns = at_ns if at_ns is not None else now_ns()

    def mark_painted(self, at_ns: int | None = None) -> None:
        if self.painted_ns is None:
            self.painted_ns = at_ns if at_ns is not None else now_ns()

    def enter_stage(self, name: str, at_ns: int | None = None) -> None:
        at = at_ns if at_ns is not None else now_ns()
        if self.stages and self.stages[-1].end_ns is None:
            if self.stages[-1].name == name:
                return
            self.stages[-1].end_ns = at
        self.stages.append(StageStamp(name, at))

    def close_stages(self, at_ns: int | None = None) -> None:
        if self.stages and self.stages[-1].end_ns is None:
            self.stages[-1].end_ns = at_ns if at_ns is not None else now_ns()

    @property
    def first_token_ns(self) -> int | None:
        return self.tokens[0].at_ns if self.tokens else None

    @property
    def first_answer_ns(self) -> int | None:
        return next((t.at_ns for t in self.tokens if t.kind is TokenKind.ANSWER), None)

    @property
    def last_token_ns(self) -> int | None:
        return self.tokens[-1].at_ns if self.tokens else None
