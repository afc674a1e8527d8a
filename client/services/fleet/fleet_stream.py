"""One answer from a pool: the stream the generation and the bench read, like a
server's own ChatStream.

    async with fleet.answer(request, timeouts) as stream:
        async for event in stream:      # Started, Prefill ..., Token ..., Done | Failed
            ...
    stream.winner                       # the member that answered (None: all failed)

Each request to a member reads until its first token (or, `tied`, its server's prompt
progress) in a task of its own, on a timeline of its own. The first to get there wins:
every other request is cancelled at once, as Stop cancels one (its response is closed,
the connection drops, the server stops), and the winner's stamps move onto the
answer's timeline, which from then on the winner's stream stamps itself; its events
are then read straight from its stream (no task, no queue between it and the reader).
The time to first token counts from the first request written.

A member that fails before its first token is not shown: the next one is asked, until
none is left; then the last failure is the answer's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from client.backends.errors import StreamInterrupted
from client.backends.stream import ChatStream, StreamTimeouts
from client.core.conversation import ChatRequest
from client.core.events import (
    Done,
    Failed,
    Prefill,
    ServerTimings,
    Started,
    StreamEvent,
    Token,
    Usage,
)
from client.core.metrics import RequestMetrics, compute_metrics
from client.core.timeline import RequestTimeline, now_ns
from client.services.fleet.pool import Policy

if TYPE_CHECKING:
    from client.services.fleet.members import PoolMembers

MAX_IN_FLIGHT = 3  # the first request and up to two hedges, each after the last one's P95

Report = tuple["Attempt", StreamEvent]


@dataclass(eq=False, slots=True)
class Attempt:
    member: int
    stream: ChatStream
    events: AsyncIterator[StreamEvent]
    launched_ns: int
    hedge: bool = False
    task: asyncio.Task[None] | None = None
    failure: Failed | None = None  # how it failed before its first token
    closed: bool = False
    # What it said before it won (an empty answer's Usage and timings come before its
    # Done): passed on if it wins.
    held: list[StreamEvent] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.failure is not None


class FleetStream:
    def __init__(
        self, fleet: PoolMembers, request: ChatRequest, timeouts: StreamTimeouts | None
    ) -> None:
        self._fleet = fleet
        self._request = request
        self._timeouts = timeouts
        self.timeline = RequestTimeline()  # the answer's (the generation puts its own)
        self.attempts: list[Attempt] = []
        self.winner: Attempt | None = None
        self.hedged = False  # another request was sent because the first was slow
        self._last: Attempt | None = None  # the one whose figures the answer shows
        self._reports: asyncio.Queue[Report] = asyncio.Queue()
        self._closing: list[asyncio.Task[None]] = []
        self._started_told = False

    # ---- what readers of a stream read: the answering request's -------------------------
    @property
    def answering(self) -> ChatStream | None:
        return self._last.stream if self._last is not None else None

    @property
    def usage(self) -> Usage | None:
        return self.answering.usage if self.answering else None

    @property
    def server_timings(self) -> list[ServerTimings]:
        return self.answering.server_timings if self.answering else []

    @property
    def outcome(self) -> Done | Failed | None:
        if self.winner is None and self._last is not None and self._last.failure is not None:
            return self._last.failure  # no server answered
        return self.answering.outcome if self.answering else None

    @property
    def text(self) -> str:
        return self.answering.text if self.answering else ""

    @property
    def winner_name(self) -> str:
        return self._fleet.member_name(self.winner.member) if self.winner else ""

    @property
    def winner_model(self) -> str:
        if self.winner is None:
            return ""
        return self._fleet.model_of(self.winner.member) or self._request.model

    @property
    def sent(self) -> int:
        """Requests sent for this answer (1 unless a hedge or a failover sent more)."""
        return len(self.attempts)

    def metrics(self) -> RequestMetrics:
        return compute_metrics(self.timeline, self.usage, self.server_timings)

    async def __aenter__(self) -> FleetStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for attempt in self.attempts:
            self._close_soon(attempt)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._events()

    # ---- the race ---------------------------------------------------------------------
    async def _events(self) -> AsyncIterator[StreamEvent]:
        fleet = self._fleet
        try:
            waiting = await fleet.order()
            fleet.book.requests += 1
            hedging = fleet.pool.policy is Policy.HEDGED and len(waiting) > 1
            hedge_at_ns = self._hedge_at(self._launch(waiting.pop(0), hedge=False))
            while self.winner is None:
                live = [a for a in self.attempts if not a.failed]
                if not live:
                    if not waiting:
                        break
                    hedge_at_ns = self._hedge_at(self._launch(waiting.pop(0), hedge=False))
                    continue
                timeout = None
                if hedging and waiting and len(live) < MAX_IN_FLIGHT:
                    timeout = max(hedge_at_ns - now_ns(), 0) / 1e9
                try:
                    attempt, event = await asyncio.wait_for(self._reports.get(), timeout)
                except TimeoutError:
                    if not self.hedged:
                        fleet.book.hedged += 1
                        self.hedged = True
                    hedge_at_ns = self._hedge_at(self._launch(waiting.pop(0), hedge=True))
                    continue
                for out in self._on_report(attempt, event):
                    yield out
            if self.winner is None:  # every member failed: the last failure is the answer
                assert self._last is not None and self._last.failure is not None
                yield self._last.failure
                return
            async for event in self.winner.events:  # the hot path: straight from its stream
                yield event
        finally:
            await self.aclose()

    def _hedge_at(self, attempt: Attempt) -> int:
        """When the next request goes out: after this one's server's P95 wait."""
        wait_ms = self._fleet.book.hedge_after_ms(attempt.member)
        return attempt.launched_ns + int(wait_ms * 1e6)

    def _launch(self, member: int, hedge: bool) -> Attempt:
        fleet = self._fleet
        request = replace(self._request, model=fleet.model_of(member) or self._request.model)
        stream = fleet.member_backend(member).chat(request, self._timeouts)
        attempt = Attempt(member, stream, aiter(stream), now_ns(), hedge)
        attempt.task = asyncio.ensure_future(self._read_until_started(attempt))
        self.attempts.append(attempt)
        self._last = self._last or attempt
        fleet.book.sent(member)
        return attempt

    async def _read_until_started(self, attempt: Attempt) -> None:
        tied = self._fleet.pool.tied
        while True:
            try:
                event = await anext(attempt.events, None)
            except Exception as error:  # a stream ends with Failed, not raising; be safe
                event = Failed(error)
            if event is None:  # a stream always ends with Done or Failed; be safe anyway
                event = Failed(StreamInterrupted("the server closed the stream before it began"))
            await self._reports.put((attempt, event))
            if isinstance(event, Token | Done | Failed) or (tied and isinstance(event, Prefill)):
                return

    def _on_report(self, attempt: Attempt, event: StreamEvent) -> list[StreamEvent]:
        if isinstance(event, Started):
            if self._started_told:
                return []
            self._started_told = True
            self.timeline.request_written_ns = self._first_written()
            return [event]
        if isinstance(event, Failed):
            attempt.failure = event
            self._last = attempt
            self._fleet.book.failed(attempt.member)
            self._close_soon(attempt)
            return []
        tied = self._fleet.pool.tied
        if isinstance(event, Prefill) and not tied:
            self.timeline.mark_prefill(event)
            return [event]
        if not isinstance(event, Token | Done | Prefill):  # not a start: kept till it wins
            attempt.held.append(event)
            return []
        self._win(attempt)
        return [*attempt.held, event]

    def _win(self, attempt: Attempt) -> None:
        book = self._fleet.book
        self.winner = self._last = attempt
        own = attempt.stream.timeline
        started = own.first_token_ns or own.prefill_ns or now_ns()
        # Waits count from the launch, as the hedge's deadline does.
        if own.first_token_ns is not None:
            book.first_token(attempt.member, (own.first_token_ns - attempt.launched_ns) / 1e6)
        book.won(attempt.member)
        for other in self.attempts:
            if other is not attempt and not other.failed:
                book.cut_short(other.member, (started - other.launched_ns) / 1e6, started)
                self._close_soon(other)
        _adopt(self.timeline, own, self._first_written())
        attempt.stream.timeline = self.timeline

    def _first_written(self) -> int | None:
        written = [a.stream.timeline.request_written_ns for a in self.attempts]
        return min((ns for ns in written if ns is not None), default=None)

    def _close_soon(self, attempt: Attempt) -> None:
        """Cancel its reading now (the response closes as the loop next runs); its
        closing is awaited when the answer ends."""
        if attempt.closed:
            return
        attempt.closed = True
        if attempt.task is not None and not attempt.task.done():
            attempt.task.cancel()
        self._closing.append(asyncio.ensure_future(self._close_and_count(attempt)))

    async def _close_and_count(self, attempt: Attempt) -> None:
        try:
            await _close(attempt)
        finally:
            self._fleet.book.ended(attempt.member)


async def _close(attempt: Attempt) -> None:
    if attempt.task is not None:
        await asyncio.gather(attempt.task, return_exceptions=True)
    close = getattr(attempt.events, "aclose", None)
    if close is not None:
        await close()
    await attempt.stream.aclose()


def _adopt(answer: RequestTimeline, own: RequestTimeline, written: int | None) -> None:
    """The winner's wire stamps onto the answer's timeline (its stages stay; the time
    to first token still counts from the first request written)."""
    answer.request_written_ns = written if written is not None else own.request_written_ns
    answer.headers_ns = own.headers_ns
    answer.first_byte_ns = own.first_byte_ns
    answer.tokens.extend(own.tokens)
    if own.prefill is not None:
        answer.prefill, answer.prefill_ns = own.prefill, own.prefill_ns
    answer.finished_ns, answer.finish_reason = own.finished_ns, own.finish_reason
    answer.done_ns = own.done_ns
