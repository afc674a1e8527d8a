"""An answer stream that waits out a server still loading its model.

llama.cpp's server opens its port before its model is loaded and answers every request
503 "Loading model" meanwhile (client.backends: ModelLoading). Such an answer before any
token is a wait, not a failure: the same request is asked again every `poll_s`, for up
to `within_s` (the first token's limit), and `on_loading(True)` says so at the first
such answer (the generation's loading stage: "Loading the model…"), `on_loading(False)`
when the server takes the request. Past `within_s` the last answer ends the stream as
it would have (a failure saying how long it waited).

    stream = LoadingRetryStream(lambda: answer_stream(plan, ...), 60.0, on_loading)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from client.backends.errors import ModelLoading
from client.backends.stream import ChatStream
from client.core.events import Failed, Started, StreamEvent
from client.core.timeline import RequestTimeline
from client.services.cascade.fallback import FallbackStream
from client.services.cascade.forwarding import Forwarding
from client.services.fleet.fleet_stream import FleetStream

POLL_S = 0.25  # asking again: a server on this machine or network answers a 503 at once
AnswerStream = ChatStream | FallbackStream | FleetStream
OnLoading = Callable[[bool], None]


class LoadingRetryStream(Forwarding[AnswerStream]):
    def __init__(
        self,
        open_stream: Callable[[], AnswerStream],
        within_s: float | None,
        on_loading: OnLoading,
        poll_s: float = POLL_S,
    ) -> None:
        self._open = open_stream
        self._within_s = within_s
        self._on_loading = on_loading
        self._poll_s = poll_s
        self._current = open_stream()
        self.asked = 1  # requests sent, this one included

    async def __aenter__(self) -> LoadingRetryStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._current.__aexit__(None, None, None)

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[StreamEvent]:
        started = asyncio.get_running_loop().time()
        loading = False
        while True:
            stream, again = self._current, False
            async with stream:
                async for event in stream:
                    if isinstance(event, Failed) and self._waits(event, stream, started):
                        again = True
                        break
                    if isinstance(event, Failed) and loading:  # waited past within_s
                        event = self._waited_too_long(event, started)
                    if loading and isinstance(event, Started):  # the server took it
                        loading = False
                        self._on_loading(False)
                    yield event
            if not again:
                return
            if not loading:
                loading = True
                self._on_loading(True)
            await asyncio.sleep(min(self._poll_s, self._left(started) or self._poll_s))
            self._ask_again(stream.timeline)

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
        self._current = self._open()
        self._current.timeline = timeline
        self.asked += 1
