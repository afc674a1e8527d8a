"""What hears about each generation the runner plays (client/ui/chat/generation_runner.py):
the HUD (client/ui/hud/hud_controller.py) hears its token stamps (a chunk's, on the hot
path); and the thin Qt adapter of the root's events (client/services/events.py),
TachyEvents, for the window's widgets that follow turns and servers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from client.core.events import TokenKind
from client.services.chat.generation import Generation
from client.services.chat.turn_state import StateChanged
from client.services.events import AnswerFinished, EventBus, ServerStateChanged, TurnStarted
from client.ui.common.async_errors import report


class RunListener(Protocol):
    def request_started(self, generation: Generation) -> None: ...

    def token(self, kind: TokenKind, chars: int, at_ns: int) -> None: ...

    def request_finished(self, generation: Generation) -> None: ...


class ChainedListener:
    """`first` hears each call before `then` (the runner's earlier listener); a failure
    of `first` is reported and never reaches the chat or `then`."""

    def __init__(self, first: RunListener, then: RunListener | None, doing: str) -> None:
        self.first = first
        self.then = then
        self._doing = doing  # for the report: "keeping the model warm"

    def request_started(self, generation: Generation) -> None:
        self._guard(self.first.request_started, generation)
        if self.then is not None:
            self.then.request_started(generation)

    def token(self, kind: TokenKind, chars: int, at_ns: int) -> None:
        self.first.token(kind, chars, at_ns)
        if self.then is not None:
            self.then.token(kind, chars, at_ns)

    def request_finished(self, generation: Generation) -> None:
        self._guard(self.first.request_finished, generation)
        if self.then is not None:
            self.then.request_finished(generation)

    def _guard(self, call: Callable[[Generation], None], generation: Generation) -> None:
        try:
            call(generation)
        except Exception as error:  # the listener must never break the chat
            report(error, self._doing)


class TachyEvents(QObject):
    """The root's typed events as Qt signals (the events themselves are the arguments);
    the policies subscribe in services, widgets connect here."""

    turnStarted = Signal(object)  # TurnStarted
    stateChanged = Signal(object)  # StateChanged
    answerFinished = Signal(object)  # AnswerFinished
    serverStateChanged = Signal(object)  # ServerStateChanged

    def __init__(self, bus: EventBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._leave = [
            bus.subscribe(TurnStarted, self.turnStarted.emit),
            bus.subscribe(StateChanged, self.stateChanged.emit),
            bus.subscribe(AnswerFinished, self.answerFinished.emit),
            bus.subscribe(ServerStateChanged, self.serverStateChanged.emit),
        ]

    def close(self) -> None:
        """Stop hearing the bus (before the widgets go)."""
        leave, self._leave = self._leave, []
        for unsubscribe in leave:
            unsubscribe()
