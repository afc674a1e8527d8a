"""The model call: open the stream -> stream, a step that may repeat within one turn.

    result = ...   # AnswerEnded | ToolCallsWanted, one per model call
    # AnswerEnded: the turn records and ends. ToolCallsWanted: the calls are run and the
    # model is called again with their results, up to RunSettings.max_model_calls.

Generation (client/services/chat/generation.py) runs the calls; this module holds the
typed shape of a call's result and the call's wait for its first token (FirstTokenWait):
the stream's next event, or a notice when a timer fires first (Keep waiting / Cancel,
the model's load, the request's own stamps).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

from client.core.events import Done, Failed, StreamEvent
from client.core.tools import ToolCall
from client.services.chat.loading_stage import MODEL_STATE_POLL_S, LoadingWatch
from client.services.chat.session_events import SlowStart, Stage, StageChanged
from client.services.chat.stream_opener import LoadingRetryStream
from client.services.chat.turn_state import StateChanged, TurnState
from client.services.chat.turn_steps import RunSettings

STATE_POLL_S = 0.1  # before the headers: how often the request's stamps are read
Item = StreamEvent | SlowStart | StageChanged | StateChanged | None  # what the run loop handles


@dataclass(frozen=True, slots=True)
class AnswerEnded:
    """The call ended the answer (done, failed, or nothing more)."""

    outcome: Done | Failed | None


@dataclass(frozen=True, slots=True)
class ToolCallsWanted:
    """The call ended asking for tools: run them, then call the model again."""

    done: Done  # its message: the words and the complete calls (done.tool_calls)

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return self.done.tool_calls


ModelCallResult = AnswerEnded | ToolCallsWanted


class FirstTokenWait:
    """The Generation's part that waits for the first token without cancelling a read."""

    _settings: RunSettings
    _loading: LoadingWatch
    _stream: LoadingRetryStream | None
    _pending: asyncio.Future[StreamEvent | None] | None
    _stage: Stage | None
    _waiting_since: float
    _slow_start_sent: bool
    _sending: bool

    @property
    def state(self) -> TurnState:
        raise NotImplementedError

    def _enter(self, stage: Stage, at_ns: int | None = None) -> StageChanged:
        raise NotImplementedError

    def _restate(self, at_ns: int | None = None) -> list[StateChanged]:
        raise NotImplementedError

    async def _wait_for_item(self, events: AsyncIterator[StreamEvent]) -> Item:
        """Before the first token: the next stream event (None at its end), or a notice
        when a timer fires first: SlowStart, or a stage change reported by the warmer.
        The read runs in a task so that a timer never cancels it."""
        while True:
            if self._pending is None:
                self._pending = asyncio.ensure_future(anext(events, None))
            done, _ = await asyncio.wait({self._pending}, timeout=self._wait_step())
            if done:
                pending, self._pending = self._pending, None
                return pending.result()
            notice = self._notice_while_waiting()
            if notice is not None:
                return notice

    def _hear_server_loading(self) -> None:
        """The loading retry says whether the server answers "Loading model" now."""
        if self._stream is not None:
            self._loading.server_loading = self._stream.server_loading

    def _wait_step(self) -> float | None:
        self._hear_server_loading()
        steps: list[float] = []
        if not self._slow_start_sent:
            elapsed = asyncio.get_running_loop().time() - self._waiting_since
            steps.append(max(0.0, self._settings.slow_start_after_s - elapsed))
        if self._loading.polls:
            steps.append(MODEL_STATE_POLL_S)
        if self.state in (TurnState.CONNECTING, TurnState.WAITING):
            steps.append(STATE_POLL_S)  # the request's stamps: written, headers
        return min(steps) if steps else None

    def _notice_while_waiting(self) -> SlowStart | StageChanged | StateChanged | None:
        self._hear_server_loading()
        waited = asyncio.get_running_loop().time() - self._waiting_since
        if not self._slow_start_sent and waited >= self._settings.slow_start_after_s:
            self._slow_start_sent = True
            return SlowStart(waited)
        if self._loading.polls:
            stage = self._loading.stage()
            if stage is not self._stage:
                return self._enter(stage)
        told = self._restate()
        return told[0] if told else None

    def waited_s(self) -> float:
        """Seconds since the request (or its fallback) went out, as the loop counts."""
        if not self._sending:
            return 0.0
        return asyncio.get_running_loop().time() - self._waiting_since

    async def _cancel_pending(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None and not pending.done():
            pending.cancel()  # the stream sees CancelledError and closes the response
            await asyncio.wait({pending})


async def aclose_events(iterator: AsyncIterator[StreamEvent]) -> None:
    """Close a stream's event iterator (the response is closed in its `finally`)."""
    close = getattr(iterator, "aclose", None)
    if close is not None:
        await close()
