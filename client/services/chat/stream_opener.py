"""Opening a model call's stream: one StreamOpener, chosen once from the plan.

    opener = opener_for(plan, 10.0, 60.0)        # plain, cascade (its fallback) or pool
    stream = LoadingRetryStream(opener, request, timeouts, within_s)
    async with stream:
        async for event in stream: ...            # Started, Prefill, Token ..., Done | Failed
    opener.answered_by(stream)                    # a pool's server and model, else None

A plain route's opener is its backend's own `chat` (no hop per token); a cascade's is
its FallbackStream (client/services/cascade/fallback.py), a pool's its FleetStream
(client/services/fleet). A race runs one turn per column, each with its opener.

The loading retry wraps every stream. llama.cpp's server opens its port before its
model is loaded and answers every request 503 "Loading model" meanwhile
(client.backends: ModelLoading). Such an answer before any token is a wait, not a
failure: the same request is asked again every `poll_s`, for up to `within_s` (the
first token's limit), and `server_loading` says so (the generation's loading stage:
"Loading the model…") until the server takes the request. Past `within_s` the last
answer ends the stream as it would have (a failure saying how long it waited).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from client.backends.base import Backend
from client.backends.errors import ModelLoading
from client.backends.forwarding import AnswerParts, Forwarding
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatRequest
from client.core.events import Failed, Started, StreamEvent
from client.core.timeline import RequestTimeline
from client.services.cascade.cascade import first_token_limit
from client.services.cascade.fallback import CascadeOpener
from client.services.fleet.pool_backend import PoolBackend, PoolOpener
from client.services.planning.planner import RequestPlan

if TYPE_CHECKING:
    from client.services.cascade.fallback import FellBack

POLL_S = 0.25  # asking again: a server on this machine or network answers a 503 at once


class AnswerStream(AnswerParts, Protocol):
    """What a model call reads: a server's ChatStream, a cascade's or a pool's."""

    async def __aenter__(self) -> AnswerStream: ...
    async def __aexit__(self, *exc: object) -> None: ...
    def __aiter__(self) -> AsyncIterator[StreamEvent]: ...


class StreamOpener(Protocol):
    """How a plan's request is sent: opened once per model call (again for a retry)."""

    def open(self, request: ChatRequest, timeouts: StreamTimeouts) -> AnswerStream: ...

    @property
    def fell_back(self) -> FellBack | None:
        """A cascade's other model answers (None: the plan's route does)."""
        ...

    def answered_by(self) -> tuple[str, str] | None:
        """A pool's answer: the server that gave it and its model (None otherwise)."""
        ...


class PlainOpener:
    """One server's own stream: the route's backend, asked directly."""

    fell_back: FellBack | None = None

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def open(self, request: ChatRequest, timeouts: StreamTimeouts) -> AnswerStream:
        return self._backend.chat(request, timeouts)

    def answered_by(self) -> tuple[str, str] | None:
        return None


def opener_for(
    plan: RequestPlan, fallback_after_s: float, first_token_limit_s: float | None
) -> StreamOpener:
    """The plan's opener, chosen once: a cascade's (its route gets `fallback_after_s`,
    longer when the plan predicts a long wait, never past `first_token_limit_s`, for its
    first token; then the fallback answers), a pool's, or the server's own."""
    if plan.fallback is not None:
        limit = first_token_limit(plan, fallback_after_s, first_token_limit_s)
        return CascadeOpener(plan, limit)
    backend = plan.route.backend
    if isinstance(backend, PoolBackend):
        return PoolOpener(backend)
    return PlainOpener(backend)


class LoadingRetryStream(Forwarding[AnswerStream]):
    def __init__(
        self,
        opener: StreamOpener,
        request: ChatRequest,
        timeouts: StreamTimeouts,
        within_s: float | None,
        poll_s: float = POLL_S,
    ) -> None:
        self._opener = opener
        self._request = request
        self._timeouts = timeouts
        self._within_s = within_s
        self._poll_s = poll_s
        self._current = opener.open(request, timeouts)
        self.asked = 1  # requests sent, this one included
        self.server_loading = False  # the server answers "Loading model" for now
        # A command's printer says the loading state as it changes (the window's turn
        # reads server_loading on its own clock instead).
        self.on_loading: Callable[[bool], None] | None = None

    # ---- the stream -----------------------------------------------------------------------
    async def __aenter__(self) -> LoadingRetryStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._current.__aexit__(None, None, None)

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[StreamEvent]:
        started = asyncio.get_running_loop().time()
        while True:
            stream, again = self._current, False
            async with stream:
                async for event in stream:
                    if isinstance(event, Failed) and self._waits(event, stream, started):
                        again = True
                        break
                    if isinstance(event, Failed) and self.server_loading:  # past within_s
                        event = self._waited_too_long(event, started)
                    if isinstance(event, Started) and self.server_loading:  # it took it
                        self._loading(False)
                    yield event
            if not again:
                return
            if not self.server_loading:
                self._loading(True)
            await asyncio.sleep(min(self._poll_s, self._left(started) or self._poll_s))
            self._ask_again(stream.timeline)

    def _loading(self, on: bool) -> None:
        self.server_loading = on
        if self.on_loading is not None:
            self.on_loading(on)

    def _waits(self, failed: Failed, stream: AnswerStream, started: float) -> bool:
        """A "Loading model" answer before any text, with time left to wait."""
        if not isinstance(failed.error, ModelLoading) or stream.text:
            return False
        left = self._left(started)
        return left is None or left > 0

    @staticmethod
    def _waited_too_long(failed: Failed, started: float) -> Failed:
        error = failed.error
        if not isinstance(error, ModelLoading):
            return failed
        waited = asyncio.get_running_loop().time() - started
        told = ModelLoading(error.server_message, error.status or 503, waited)
        told.__cause__ = error
        return Failed(told, failed.partial_text, failed.partial_thinking)

    def _left(self, started: float) -> float | None:
        if self._within_s is None:
            return None
        return self._within_s - (asyncio.get_running_loop().time() - started)

    def _ask_again(self, timeline: RequestTimeline) -> None:
        # The 503's stamps were no answer: the next request's headers and bytes are.
        # "Written" stays the first request's: the wait counts from the question.
        timeline.headers_ns = timeline.first_byte_ns = timeline.done_ns = None
        self._current = self._opener.open(replace(self._request), self._timeouts)
        self._current.timeline = timeline
        self.asked += 1
