"""A cascade's answer stream: the plan's route, and its fallback when that route fails
before its first token (client/services/cascade/cascade.py says which failures).

    stream = FallbackStream(plan, timeouts, on_fallback, first_token_s=10.0)
    opener = CascadeOpener(plan, 10.0)          # the same, as the turn pipeline opens it
    async with stream:
        async for event in stream:   # the chosen route's events, or the fallback's
            ...

The chosen route has `first_token_s` for its first token (client/services/cascade/cascade.py,
`first_token_limit`); past it its request is closed and the other route answers, with
the lone model's `timeouts`. The failure before the first token is not passed on:
`on_fallback` is told (the generation then names the route that answers), the timeline
closes the first attempt's stage and opens a second "understanding" stage marked
`attempt: 2`, so the waterfall shows both attempts, and the time to first token still
counts from the first request (the timeline keeps its first "request written" stamp).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace

from client.backends.errors import FirstByteTimeout, TachyError
from client.backends.forwarding import Forwarding
from client.backends.stream import ChatStream, StreamTimeouts
from client.core.conversation import ChatRequest
from client.core.events import (
    Done,
    Failed,
    Started,
    StreamEvent,
    Token,
)
from client.services.cascade.cascade import falls_back
from client.services.cascade.route_record import mark_fallback
from client.services.fleet.fleet_stream import FleetStream
from client.services.fleet.pool_backend import answer_stream_of
from client.services.planning.planner import RequestPlan


@dataclass(frozen=True, slots=True)
class FellBack:
    """What the answer says: which model failed, why, and which one answered."""

    failed_tier: str
    failed_model: str
    error: str
    plan: RequestPlan  # the fallback's plan, now answering
    request: ChatRequest  # what it sent (built once from that plan)

    @property
    def note(self) -> str:
        route = self.plan.route
        return (
            f"The {self.failed_tier} model ({self.failed_model}) failed before answering "
            f"({self.error}); the {route.tier} model ({route.model}) answered."
        )


OnFallback = Callable[[FellBack], None]


class CascadeOpener:
    """A cascade's StreamOpener (client/services/chat/stream_opener.py): the plan's
    route with `first_token_s` for its first token, then its fallback."""

    def __init__(self, plan: RequestPlan, first_token_s: float | None = None) -> None:
        self._plan = plan
        self._first_token_s = first_token_s
        self.stream: FallbackStream | None = None  # the one opened last

    def open(self, request: ChatRequest, timeouts: StreamTimeouts) -> FallbackStream:
        self.stream = FallbackStream(self._plan, timeouts, None, self._first_token_s, request)
        return self.stream

    @property
    def fell_back(self) -> FellBack | None:
        return self.stream.fell_back if self.stream is not None else None

    def answered_by(self) -> tuple[str, str] | None:
        """A pool as the cascade's route: the server of it that answered."""
        current = self.stream.current if self.stream is not None else None
        if isinstance(current, FleetStream) and current.winner is not None:
            return current.winner_name, current.winner_model
        return None


class FallbackStream(Forwarding[ChatStream | FleetStream]):
    def __init__(
        self,
        plan: RequestPlan,
        timeouts: StreamTimeouts,
        on_fallback: OnFallback | None = None,
        first_token_s: float | None = None,
        request: ChatRequest | None = None,  # the plan's, when built already
    ) -> None:
        self._plan = plan
        self._timeouts = timeouts
        self._on_fallback = on_fallback
        self.fell_back: FellBack | None = None  # the other model answers
        first = replace(timeouts, first_byte_s=first_token_s)
        # A pool as a route answers by its policy, as it does outside a cascade.
        sent = request if request is not None else plan.request()
        self._current = answer_stream_of(plan.route.backend, sent, first)

    async def __aenter__(self) -> FallbackStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._current.aclose()

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[StreamEvent]:
        got_token = False
        async with self._current as first:
            async for event in first:
                got_token = got_token or isinstance(event, Token)
                if isinstance(event, Failed) and self._falls_back(event, got_token):
                    break
                yield event
        if not self._falls_back(first.outcome, got_token):
            return
        written = first.timeline.request_written_ns
        second = self._switch(first)
        async with second:
            async for event in second:
                if isinstance(event, Started) and written is not None:
                    # The second request stamped its own; the wait counts from the first.
                    second.timeline.request_written_ns = written
                yield event

    def _falls_back(self, outcome: Done | Failed | None, got_token: bool) -> bool:
        return self._plan.fallback is not None and falls_back(outcome, got_token)

    def _switch(self, first: ChatStream | FleetStream) -> ChatStream | FleetStream:
        assert isinstance(first.outcome, Failed) and self._plan.fallback is not None
        failed = self._plan.route
        messages = self._plan.fallback_messages or self._plan.messages  # a text model's
        plan = replace(
            self._plan,
            route=self._plan.fallback,
            fallback=None,
            messages=messages,
            fallback_messages=None,
        )
        plan = replace(plan, why=f"{plan.route.tier}: the {failed.tier} model failed")
        timeline = first.timeline
        timeline.close_stages()
        timeline.enter_stage("understanding")
        mark_fallback(timeline, plan.route, failed)  # attempt 2, and which model takes over
        request = plan.request()
        second = answer_stream_of(plan.route.backend, request, self._timeouts)
        second.timeline = timeline
        self._current = second
        why = failure_sentence(first.outcome.error)
        self.fell_back = FellBack(failed.tier, failed.model, why, plan, request)
        if self._on_fallback is not None:
            self._on_fallback(self.fell_back)
        return second


def failure_sentence(error: Exception) -> str:
    """Why a route fell back, in a sentence."""
    if isinstance(error, FirstByteTimeout):  # its sentence says to keep waiting: moot here
        return f"No first token came within {error.seconds:g} s."
    return error.user_message if isinstance(error, TachyError) else str(error)
