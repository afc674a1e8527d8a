"""Runs one Generation (Qt-free session) into the Qt widgets: the thin adapter.

One generation = one asyncio Task kept here, so Stop / Esc can cancel it. The first
chunk (reasoning or answer) is painted synchronously in the turn it arrives and stamped with
`timeline.mark_painted()`; later chunks go through the chat view's frame-rate flush.
While nothing has arrived, the stage line follows the waiting rules (waiting.py).
"""

from __future__ import annotations

import asyncio
import itertools
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel

from client.core.events import Token, TokenKind
from client.core.timeline import now_ns
from client.services.chat.generation import Generation
from client.services.chat.session_events import SlowStart, Stage, StageChanged
from client.services.chat.tool_step import ToolCallShown
from client.services.chat.turn_state import TurnState
from client.services.images.cost import reads_image
from client.services.knowledge.knowledge_stage import Retrieved
from client.ui.chat.render.chat_view import ChatView
from client.ui.chat.stage_line import seconds_left, stalled_text, waiting_text
from client.ui.common.async_errors import spawn

WAITING_TICK_MS = 100
# A burst of buffered tokens is consumed without the loop running in between; after
# this long, the runner lets the loop paint and serve its timers before going on.
YIELD_AFTER_NS = 4_000_000
_temporary_keys = itertools.count(-1, -1)


def temporary_key() -> int:
    """A key for a message shown before it has a stored id (negative, never an id)."""
    return next(_temporary_keys)


class GenerationRunner(QObject):
    busyChanged = Signal(bool)
    slowStart = Signal(object)  # SlowStart
    ended = Signal(object, int)  # (the Generation, the answer's key in the chat view)
    conversationKnown = Signal(int)  # the generation's conversation has its stored id
    answerStarted = Signal()  # the first answer text was painted (a slow start is over)
    retrieved = Signal(object, object)  # (the Generation, knowledge_stage.Retrieved)

    def __init__(self, view: ChatView, stage_label: QLabel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.stage_label = stage_label
        self.task: asyncio.Task[Any] | None = None
        self.generation: Generation | None = None
        self.answer_key: int | None = None  # the message streaming into the view
        self._stage: str | None = None
        self._waiting_since_ns = 0
        self._got_answer = False
        self._announced = False
        self._stall_said = False  # the stage line says "No token for 6 s…"
        self._waiting_timer = QTimer(self)
        self._waiting_timer.setInterval(WAITING_TICK_MS)
        self._waiting_timer.timeout.connect(self._show_waiting)
        # Said before the waiting text until the answer starts ("Searching your notes…
        # 12 ms"); set by the knowledge link on `retrieved`, cleared at each start.
        self.note = ""

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self, generation: Generation, answer_key: int | None = None) -> asyncio.Task[Any]:
        """Consume `generation` into the view; answer_key: an existing message to
        append to (Continue), else a new answer message is added on the first token."""
        if self.busy:
            raise RuntimeError("a generation is already running")
        self.generation = generation
        self.answer_key = answer_key
        self._stage = None
        self._got_answer = False
        self._announced = False  # conversationKnown emitted for this generation
        self._waiting_since_ns = now_ns()
        self.note = ""
        self.stage_label.setText("")
        self._waiting_timer.start()
        self.task = spawn(self._consume(generation), name="generation")
        if answer_key is None:
            # After the request is on its way (the task runs first): lay out the empty
            # answer now, so the first token is only text inserted and one frame painted.
            QTimer.singleShot(0, partial(self._reserve_answer, self.task))
        self.busyChanged.emit(True)
        return self.task

    def stop(self) -> bool:
        """Cancel the running generation (the session closes the stream). True if one ran."""
        if not self.busy:
            return False
        assert self.task is not None
        self.task.cancel()
        return True

    async def _consume(self, generation: Generation) -> None:
        ran_since = now_ns()
        try:
            async for event in generation:
                self._handle(generation, event)  # before any yield: Stop keeps it
                if now_ns() - ran_since > YIELD_AFTER_NS:
                    await self._let_the_loop_run()
                    ran_since = now_ns()
        except asyncio.CancelledError:
            # Stop while this task yielded to the loop between two events: the
            # generation never saw the cancel, so it is told (it ends as stopped,
            # closed and saved before this task ends and the window says so).
            await generation.abandon()
            raise
        finally:
            # Runs on completion, on error and on cancel (Stop): the session has set
            # generation.finished by now; the CancelledError goes on up untouched.
            self._waiting_timer.stop()
            self._finish(generation)

    def _handle(self, generation: Generation, event: object) -> None:
        if not self._announced:
            self._announce_conversation(generation)
        if isinstance(event, Token):
            self._on_token(generation, event)
        elif isinstance(event, StageChanged):
            self._stage = event.stage.value
            if self._got_answer or event.stage is Stage.ANSWERING:
                self.stage_label.setText("")
        elif isinstance(event, SlowStart):
            self.slowStart.emit(event)
        elif isinstance(event, Retrieved):
            self.retrieved.emit(generation, event)
        elif isinstance(event, ToolCallShown):  # a tool call's card, between the words
            self.view.show_tool_calls(self._ensure_answer_message(generation), [event.call])

    async def _let_the_loop_run(self) -> None:
        """After a burst of buffered tokens: paints and timers run (Stop may come here)."""
        await asyncio.sleep(0)

    def _announce_conversation(self, generation: Generation) -> None:
        """Once the question is stored, say which conversation it is in, so a new one
        shows in the list while the answer is awaited (checked on every event and on
        every waiting tick). Emitted in a later turn: never delays a paint."""
        conversation_id = generation.conversation_id
        if conversation_id is not None:
            self._announced = True
            QTimer.singleShot(0, partial(self.conversationKnown.emit, conversation_id))

    def _on_token(self, generation: Generation, token: Token) -> None:
        if token.kind is TokenKind.THINKING:
            # Shown above the answer, never part of its text; the first chunk of either
            # is the first token painted (paint_ms counts from the first token).
            key = self._ensure_answer_message(generation)
            if self.view.append_thinking(key, token.text):
                generation.timeline.mark_painted()
            self._stage = Stage.THINKING.value
            return
        shown = self.answer_key
        if self._got_answer and shown is not None and self.view.append_streamed(shown, token.text):
            # The hot path (every answer chunk after the first): a list append in the
            # view; the view paints once per frame (the HUD reads the turn's timeline).
            return
        key = self._ensure_answer_message(generation)
        if self.view.append_token(key, token.text):
            generation.timeline.mark_painted()
        if not self._got_answer:
            self._got_answer = True
            self.stage_label.setText("")
            QTimer.singleShot(0, self.answerStarted.emit)  # after this paint, not before

    def _reserve_answer(self, task: asyncio.Task[Any]) -> None:
        if task is self.task and self.answer_key is None:
            self.answer_key = temporary_key()
            self.view.reserve_answer(self.answer_key)

    def _ensure_answer_message(self, generation: Generation) -> int:
        if self.answer_key is None:
            stored = generation.assistant_message_id
            self.answer_key = stored if stored is not None else temporary_key()
        if not self.view.has_message(self.answer_key) or (
            self.view.message(self.answer_key).state != "streaming"
        ):
            self.view.begin_stream(self.answer_key)
        return self.answer_key

    def _finish(self, generation: Generation) -> None:
        finished = generation.finished
        key = self.answer_key
        if finished is not None:
            if key is None and (
                finished.text or finished.thinking or finished.outcome.value != "complete"
            ):
                key = self._ensure_answer_message(generation)
            if key is not None:
                self.view.show_tool_calls(key, list(generation.tool_calls))  # as they ended
                shown = self.view.message(key)
                text = None if shown.text else finished.text
                thinking = None if shown.thinking else finished.thinking
                if thinking:  # reasoning the view missed (kept as the stream left it)
                    self.view.end_stream(key, finished.outcome.value, text, thinking=thinking)
                else:
                    self.view.end_stream(key, finished.outcome.value, text)
                if finished.message_id is not None and finished.message_id != key:
                    self.view.rekey(key, finished.message_id)
                    key = finished.message_id
        elif key is not None and self.view.has_message(key):
            self.view.end_stream(key, "interrupted")
        self.answer_key = None
        self.task = None
        self.busyChanged.emit(False)
        self.ended.emit(generation, key if key is not None else 0)

    def _show_stall(self) -> None:
        """Mid-answer, tokens stopped: the turn's state says so on this timer (and the
        line goes with the next token's tick)."""
        generation = self.generation
        stalled = generation is not None and generation.state is TurnState.STALLED
        text = stalled_text(generation.timeline, now_ns()) if generation and stalled else ""
        if text or self._stall_said:
            self.stage_label.setText(text)
        self._stall_said = bool(text)

    def _show_waiting(self) -> None:
        if not self._announced and self.generation is not None:
            self._announce_conversation(self.generation)
        if self._got_answer:
            self._show_stall()
            return
        since = self._waiting_since_ns
        timeline = self.generation.timeline if self.generation is not None else None
        if timeline is not None and timeline.stages:
            # The session's own stamps: when the request began and the stage it is in.
            since = timeline.stages[0].start_ns
            self._stage = timeline.stages[-1].name
        # What the turn is doing, from its real signals (no byte back: waiting).
        state = self.generation.state if self.generation is not None else self._stage
        tools_starting = self.generation is not None and self.generation.tools_starting_since_ns
        if state in (TurnState.APPROVAL, TurnState.USING_TOOL) or tools_starting:
            return  # said with the tool's own time (client/ui/tools/tool_turn_view.py)
        now = now_ns()
        elapsed_ms = (now - since) / 1e6
        prefill = timeline.prefill if timeline is not None else None  # the server's progress
        left = None if timeline is None else seconds_left(timeline, now)
        text = waiting_text(elapsed_ms, state, prefill, left, with_image=reads_image(timeline))
        if self.note:
            text = f"{self.note} · {text}" if text else self.note
        self.stage_label.setText(text)
