"""Saving a streaming answer as it arrives, without ever delaying a token; then its
end, who answered, and the request's figures and stages (the metrics store).

Tokens are only added to a buffer on the loop; a timer flushes the buffer to SQLite
on the database's worker thread at most every `interval_s`, so if the app is killed
mid-stream at most the last interval of text is lost, and a token is never held
back by a write. The final flush and the end state go in one last call. A tool call
(its card: the call, its state, its result) is buffered the same way and written with
the text, in the same transaction, so a crash keeps the two in step.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from client.core.conversation import ChatRequest
from client.core.events import TokenKind
from client.core.timeline import RequestTimeline
from client.services.chat.session_events import Finished, Stage
from client.services.chat.turn_store import Turn, name_fallback, name_pool_server
from client.services.events import AnswerFinished
from client.services.knowledge.retrieval import Retrieval
from client.services.planning.planner import RequestPlan, Route
from client.services.storage import full_disk as saving
from client.store.conversations.history import HistoryStore, MessageState
from client.store.conversations.tool_calls import StoredToolCall, ToolCallStore
from client.store.metrics_store import MetricsStore
from client.store.stage_records import (
    SourcePlace,
    StageRecord,
    StoredStage,
    encode_stages,
    stage_from_counts,
)

log = logging.getLogger(__name__)

# Issue 3: at most 250 ms of text may be lost on a crash. The interval runs from when
# a flush takes its text, and a write can queue behind other database work, so keep
# a margin below 250 ms.
FLUSH_INTERVAL_S = 0.15


class AnswerWriter:
    def __init__(
        self, history: HistoryStore, message_id: int, interval_s: float = FLUSH_INTERVAL_S
    ) -> None:
        self.history = history
        self.message_id = message_id
        self.interval_s = interval_s
        self.flushes = 0  # completed intermediate writes (tests and diagnostics)
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls: dict[tuple[int, int], StoredToolCall] = {}  # by (round, place): the last
        self._loop = asyncio.get_running_loop()
        self._last_flush = self._loop.time()
        self._timer: asyncio.TimerHandle | None = None
        self._flushing: asyncio.Future[None] | None = None
        self._finished = False
        self.gone = False  # the message was deleted while streaming

    def add(self, text: str, kind: TokenKind = TokenKind.ANSWER) -> None:
        """Buffer a token's text; cheap and synchronous, safe on the paint path."""
        (self._thinking if kind is TokenKind.THINKING else self._text).append(text)
        if self._timer is None and self._flushing is None:
            self._schedule()

    def tool_call(self, call: StoredToolCall) -> None:
        """Buffer a tool call's latest state (written with the next flush)."""
        self._calls[(call.round, call.position)] = call
        if self._timer is None and self._flushing is None:
            self._schedule()

    def _schedule(self) -> None:
        if self._finished or self._timer is not None or self._flushing is not None:
            return  # the running flush reschedules when it ends
        delay = max(0.0, self._last_flush + self.interval_s - self._loop.time())
        self._timer = self._loop.call_later(delay, self._start_flush)

    def _take(self) -> tuple[str, str, list[StoredToolCall]]:
        text, thinking = "".join(self._text), "".join(self._thinking)
        calls = list(self._calls.values())
        self._text.clear()
        self._thinking.clear()
        self._calls.clear()
        return text, thinking, calls

    def _start_flush(self) -> None:
        self._timer = None
        text, thinking, calls = self._take()
        if not text and not thinking and not calls:
            return
        self._last_flush = self._loop.time()  # the text at risk is counted from here
        self._flushing = asyncio.ensure_future(self._write(text, thinking, calls))
        self._flushing.add_done_callback(self._flushed)

    async def _write(self, text: str, thinking: str, calls: list[StoredToolCall]) -> None:
        try:
            await self.history.db.run(_append, self.history, self.message_id, text, thinking,
                                      calls)  # fmt: skip
        except KeyError:
            self.gone = self._finished = True  # the message was deleted: nowhere to save
        except Exception as error:
            # Keep the words for the next flush rather than lose them.
            if saving.is_saving_trouble(error):
                saving.report_trouble(error)  # a full disk: said once, not every flush
            else:
                log.exception("could not save the streaming answer; will try again")
            self._text.insert(0, text)
            self._thinking.insert(0, thinking)
            for call in calls:  # a newer state of the same call wins
                self._calls.setdefault((call.round, call.position), call)
        else:
            self.flushes += 1
            saving.report_saved()

    def _flushed(self, _: asyncio.Future[None]) -> None:
        self._flushing = None
        if self._text or self._thinking or self._calls:
            self._schedule()

    async def finish(self, state: MessageState, error_message: str = "") -> None:
        """Write what is left and the end state. Safe to call while cancelled: the
        write is shielded, so a second Stop cannot leave the message half saved."""
        self._finished = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending = self._flushing
        await asyncio.shield(self._finish(pending, state, error_message))

    async def _finish(
        self, pending: asyncio.Future[None] | None, state: MessageState, error_message: str
    ) -> None:
        if pending is not None:
            await asyncio.wait({pending})
        text, thinking, calls = self._take()
        if self.gone:
            return
        args = (self.history, self.message_id, text, thinking, state, error_message, calls)
        try:
            await self.history.db.run(_append_and_set_state, *args)
        except Exception as error:
            if not saving.is_saving_trouble(error):
                raise
            # No room: the answer is on screen; it is saved once there is room.
            saving.report_trouble(error)
            saving.save_when_possible(self.history.db, _append_and_set_state, *args)


def _append(
    history: HistoryStore,
    message_id: int,
    text: str,
    thinking: str,
    calls: Sequence[StoredToolCall],
) -> None:
    with history.db.transaction():
        history.append_text(message_id, text, thinking)
        ToolCallStore(history.db).save(calls)


def _append_and_set_state(
    history: HistoryStore,
    message_id: int,
    text: str,
    thinking: str,
    state: MessageState,
    error_message: str,
    calls: Sequence[StoredToolCall] = (),
) -> None:
    with history.db.transaction():
        history.append_text(message_id, text, thinking)
        ToolCallStore(history.db).save(calls)
        history.set_state(message_id, state, error_message)


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """What the record step keeps of a turn that ended."""

    finished: Finished
    turn: Turn | None  # None: Stop came before the question was stored
    kind: str
    plan: RequestPlan | None  # None: nothing was planned
    request: ChatRequest | None
    fallback: Route | None  # a cascade's second attempt answered
    answered_by: tuple[str, str] | None  # a pool's server and model
    cold: bool
    server_answered: bool  # a header or a byte came back
    stages: list[StageRecord] | None  # None: nothing was sent, nothing to measure

    @property
    def route(self) -> Route | None:
        return self.plan.route if self.plan is not None else None

    def answer_finished(
        self, timeline: RequestTimeline | None = None, record_id: int | None = None
    ) -> AnswerFinished:
        """The root's event for it (the TTFT predictor, warming and the HUD hear it);
        `record_id`: the row record_turn stored its figures in."""
        plan = self.plan
        return AnswerFinished(
            metrics=self.finished.metrics,
            route=self.route,
            outcome=self.finished.outcome.value,
            kind=self.kind,
            plan=plan,
            request=self.request,
            predicted_ttft_ms=plan.predicted_ttft_ms if plan is not None else None,
            cold=self.cold,
            server_answered=self.server_answered,
            timeline=timeline,
            message_id=self.finished.message_id,
            calls=tuple(r for r in self.stages or () if r.is_call),
            record_id=record_id,
        )


async def record_turn(
    history: HistoryStore,
    store: MetricsStore | None,
    writer: AnswerWriter | None,
    record: TurnRecord,
) -> int | None:
    """The record step: the answer's end state, who answered, then the request's
    figures in the metrics store (its record's id, or None: no store, nothing sent,
    or a full disk keeps them until there is room)."""
    finished, turn = record.finished, record.turn
    if writer is not None:
        await writer.finish(stored_state(finished, turn), finished.error_message)
        if turn is not None:
            answer_id = turn.assistant_message_id
            if record.fallback is not None:
                await history.db.run(name_fallback, history, answer_id, record.fallback)
            if record.answered_by is not None:
                await history.db.run(name_pool_server, history, answer_id, *record.answered_by)
    route = record.route
    if store is None or record.stages is None or route is None:
        return None
    answered_by = record.answered_by
    keep = functools.partial(
        store.record,
        finished.metrics,
        server=answered_by[0] if answered_by else route.server_name,
        model=route.model,
        outcome=finished.outcome.value,
        message_id=finished.message_id,
        cold=record.cold,
        stages=record.stages,
    )
    return await saving.run_or_keep(store.db, keep)


def stored_state(finished: Finished, turn: Turn | None) -> MessageState:
    state = MessageState.for_outcome(finished.outcome.value)
    if state is MessageState.FAILED and turn is not None and turn.prior_state is not None:
        if turn.prior_text or turn.prior_thinking:
            return turn.prior_state  # a failed Continue leaves the answer as it was
    return state


def stage_record(timeline: RequestTimeline, retrieval: Retrieval | None) -> list[StoredStage]:
    """The stages as the metrics store keeps them (JSON: the waterfall redraws them)."""
    return encode_stages(stage_records(timeline, retrieval))


def stage_records(timeline: RequestTimeline, retrieval: Retrieval | None) -> list[StageRecord]:
    """One StageRecord per stage, in ms since the request was written (the part before
    is negative), with its typed parts (client/store/stage_records.py); the retrieving
    stage names the answer's sources, for when it is reopened."""
    origin = timeline.request_written_ns
    if origin is None and timeline.stages:
        origin = timeline.stages[0].start_ns
    records = [
        stage_from_counts(
            s.name,
            (s.start_ns - (origin or 0)) / 1e6,
            None if s.end_ns is None else (s.end_ns - (origin or 0)) / 1e6,
            s.counts or {},
        )
        for s in timeline.stages
    ]
    if retrieval is None:
        return records
    sources = tuple(
        SourcePlace(h.path, h.line_start, h.line_end, h.unit) for h in retrieval.passages
    )
    return [
        replace(r, retrieval=replace(r.retrieval, sources=sources))
        if r.stage == Stage.RETRIEVING.value and r.retrieval is not None
        else r
        for r in records
    ]
