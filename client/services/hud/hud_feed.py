"""The HUD's turns from the root's events (client/services/events.py), without Qt.

Tachy owns one `HudFeed` on its bus: each turn's start (the model in use, its
timeline), its state and its answer (the metrics, who answered) reach the HUD the same
way whoever asked: the window's chat, or any caller of the same Tachy. The window's
HUD (client/ui/hud/hud_controller.py) adapts it; `last` is the last answer's record.

    feed = HudFeed(tachy.events)
    feed.views.append(view)         # turn_started(turn), answer_finished(turn, answer)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from client.core.timeline import RequestTimeline
from client.services.chat.session_events import TurnState
from client.services.chat.turn_state import StateChanged
from client.services.events import AnswerFinished, EventBus, TurnStarted
from client.services.hud.hud_model import HudRecord, record_from_request


@dataclass(slots=True)
class HudTurn:
    """A turn under way as the HUD follows it."""

    at: float  # unix seconds, when it began
    model: str  # the model in use then
    server: str
    timeline: RequestTimeline | None
    state: TurnState | None = None  # the last StateChanged's
    loaded: bool = False  # it entered the loading state: a cold start


class HudView(Protocol):
    def turn_started(self, turn: HudTurn) -> None: ...

    def answer_finished(self, turn: HudTurn, answer: AnswerFinished) -> None: ...


class HudFeed:
    def __init__(self, bus: EventBus) -> None:
        self.turn: HudTurn | None = None  # the turn under way
        self.last: HudRecord | None = None  # the last answer, as the HUD records it
        self.views: list[HudView] = []
        self._leave: list[Callable[[], None]] = [
            bus.subscribe(TurnStarted, self._started),
            bus.subscribe(StateChanged, self._state),
            bus.subscribe(AnswerFinished, self._finished),
        ]

    def close(self) -> None:
        leave, self._leave = self._leave, []
        for unsubscribe in leave:
            unsubscribe()

    def _started(self, event: TurnStarted) -> None:
        turn = self.turn = HudTurn(time.time(), event.model, event.server, event.timeline)
        for view in list(self.views):
            view.turn_started(turn)

    def _state(self, event: StateChanged) -> None:
        if self.turn is not None:
            self.turn.state = event.state
            self.turn.loaded = self.turn.loaded or event.state is TurnState.LOADING

    def _finished(self, event: AnswerFinished) -> None:
        turn = self.turn
        if turn is None:  # an answer with no turn heard (a command's own stream)
            turn = HudTurn(time.time(), "", "", event.timeline)
        self.turn = None  # (an answer after it, with no turn of its own, is not its)
        self.last = record_of(turn, event)
        for view in list(self.views):
            view.answer_finished(turn, event)


def answered_by(turn: HudTurn, answer: AnswerFinished) -> tuple[str, str]:
    """(model, server) that answered: the plan's route (a cascade's, or its other model
    after a fallback), else the model in use when the turn began."""
    route = answer.route
    return (route.model, route.server_name) if route is not None else (turn.model, turn.server)


def record_of(turn: HudTurn, answer: AnswerFinished) -> HudRecord:
    model, server = answered_by(turn, answer)
    return record_from_request(
        answer.metrics,
        answer.timeline,
        at=turn.at,
        model=model,
        server=server,
        cold=answer.cold or turn.loaded,
        outcome=answer.outcome,
        message_id=answer.message_id,
        calls=answer.calls,
    )
