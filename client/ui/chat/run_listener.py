"""What hears about each generation the runner plays (client/ui/chat/generation_runner.py):
the answer's glance (client/ui/view/answer_glance.py) hears its token stamps (a chunk's,
on the hot path); and the thin Qt adapter of the root's events (client/services/events.py),
TachyEvents, for the window's widgets that follow turns and servers (the HUD hears the
same events through client/services/hud/hud_feed.py)."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, Signal

from client.core.events import TokenKind
from client.services.chat.generation import Generation
from client.services.chat.turn_state import StateChanged
from client.services.events import AnswerFinished, EventBus, ServerStateChanged, TurnStarted


class RunListener(Protocol):
    def request_started(self, generation: Generation) -> None: ...

    def token(self, kind: TokenKind, chars: int, at_ns: int) -> None: ...

    def request_finished(self, generation: Generation) -> None: ...


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
