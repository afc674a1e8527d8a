"""Saving a streaming answer as it arrives, without ever delaying a token.

Tokens are only added to a buffer on the loop; a timer flushes the buffer to SQLite
on the database's worker thread at most every `interval_s`, so if the app is killed
mid-stream at most the last interval of text is lost, and a token is never held
back by a write. The final flush and the end state go in one last call.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from client.core.events import TokenKind
from client.services.chat.session_events import Finished
from client.services.chat.turn_store import name_fallback, name_pool_server
from client.services.planning.planner import Route
from client.services.storage import full_disk as saving
from client.store.history import HistoryStore, MessageState
from client.store.metrics_store import MetricsStore

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

    def _schedule(self) -> None:
        if self._finished or self._timer is not None or self._flushing is not None:
            return  # the running flush reschedules when it ends
        delay = max(0.0, self._last_flush + self.interval_s - self._loop.time())
        self._timer = self._loop.call_later(delay, self._start_flush)

    def _take(self) -> tuple[str, str]:
        text, thinking = "".join(self._text), "".join(self._thinking)
        self._text.clear()
        self._thinking.clear()
        return text, thinking

    def _start_flush(self) -> None:
        self._timer = None
        text, thinking = self._take()
        if not text and not thinking:
            return
        self._last_flush = self._loop.time()  # the text at risk is counted from here
        self._flushing = asyncio.ensure_future(self._write(text, thinking))
        self._flushing.add_done_callback(self._flushed)

    async def _write(self, text: str, thinking: str) -> None:
        try:
            await self.history.db.run(self.history.append_text, self.message_id, text, thinking)
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
        else:
            self.flushes += 1
            saving.report_saved()

    def _flushed(self, _: asyncio.Future[None]) -> None:
        self._flushing = None
        if self._text or self._thinking:
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
        text, thinking = self._take()
        if self.gone:
            return
        args = (self.history, self.message_id, text, thinking, state, error_message)
        try:
            await self.history.db.run(_append_and_set_state, *args)
        except Exception as error:
            if not saving.is_saving_trouble(error):
                raise
            # No room: the answer is on screen; it is saved once there is room.
            saving.report_trouble(error)
            saving.save_when_possible(self.history.db, _append_and_set_state, *args)


def _append_and_set_state(
    history: HistoryStore,
    message_id: int,
    text: str,
    thinking: str,
    state: MessageState,
    error_message: str,
) -> None:
    with history.db.transaction():
        history.append_text(message_id, text, thinking)
        history.set_state(message_id, state, error_message)


async def name_who_answered(
    history: HistoryStore,
    answer_id: int,
    fallback: Route | None,
    answered_by: tuple[str, str] | None,
) -> None:
    """The stored answer names the route that gave it: a cascade's second attempt, or
    the server of a pool (and its model)."""
    if fallback is not None:
        await history.db.run(name_fallback, history, answer_id, fallback)
    if answered_by is not None:
        await history.db.run(name_pool_server, history, answer_id, *answered_by)


async def record_metrics(
    store: MetricsStore | None,
    finished: Finished,
    *,
    server: str,
    model: str,
    message_id: int | None,
    cold: bool,
    stages: list[dict[str, Any]],
) -> int | None:
    """The request's figures in the metrics store: its record's id, or None (no store;
    a full disk keeps them until there is room)."""
    if store is None:
        return None
    record = functools.partial(
        store.record,
        finished.metrics,
        server=server,
        model=model,
        outcome=finished.outcome.value,
        message_id=message_id,
        cold=cold,
        stages=stages,
    )
    return await saving.run_or_keep(store.db, record)
