"""The thin Qt adapter of the root's events (client/services/events.py), TachyEvents,
for the window's widgets that follow turns and servers as Qt signals. Nothing hears the
runner's generations token by token: the HUD (client/services/hud/hud_feed.py) and the
answer's glance read each turn's timeline, given by its TurnStarted."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from client.services.chat.turn_state import StateChanged
from client.services.events import AnswerFinished, EventBus, ServerStateChanged, TurnStarted


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
