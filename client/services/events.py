"""The root's typed events (Qt-free): the turn pipeline and the servers publish, the
root's policies subscribe, and the window's widgets hear them through a thin Qt
adapter.

    bus = EventBus()                                   # Tachy owns one: tachy.events
    bus.subscribe(AnswerFinished, learning.on_answer)
    bus.publish(AnswerFinished(...))                   # each handler, in order

The events: TurnStarted, StateChanged (client/services/chat/turn_state.py: the turn's
one state), AnswerFinished (its metrics, route and predicted wait) and
ServerStateChanged (a server unreachable or reachable again; its model cold, loading,
warm). A handler's failure is
logged and never reaches the publisher: a policy's bug must not stop a chat.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from client.core.conversation import ChatRequest
from client.core.metrics import RequestMetrics
from client.core.timeline import RequestTimeline
from client.services.planning.planner import RequestPlan, Route
from client.store.stage_records import StageRecord

log = logging.getLogger(__name__)

E = TypeVar("E")


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A turn began: `kind` ask | regenerate | retry | edit | continue | race."""

    kind: str
    question: str = ""  # the text typed (ask, edit, race); "": a stored question's
    model: str = ""  # the model in use when it began (a cascade's route is decided later)
    server: str = ""
    # The turn's stamps as they are written (the HUD's live plot reads its tokens).
    timeline: RequestTimeline | None = None


@dataclass(frozen=True, slots=True)
class AnswerFinished:
    """A model call ended: its figures, where it went and what was predicted.
    `tachy chat`, `tachy bench` and the window publish the same event."""

    metrics: RequestMetrics
    route: Route | None  # None: nothing was sent
    outcome: str  # complete | stopped | interrupted | failed | unreachable | timed_out
    kind: str = "ask"
    plan: RequestPlan | None = None
    request: ChatRequest | None = None  # as sent
    predicted_ttft_ms: float | None = None  # the plan's
    cold: bool = False  # the model loaded for it
    server_answered: bool = False  # a header or a byte came back
    timeline: RequestTimeline | None = None  # its stamps (the HUD's waterfall)
    message_id: int | None = None  # the stored answer (None: not stored)
    # A turn with tools: its model calls and tool calls (the HUD's tool row, the waterfall)
    calls: tuple[StageRecord, ...] = ()
    record_id: int | None = None  # its figures' row in the metrics store (None: not stored)

    @property
    def prompt_tokens(self) -> int | None:
        """The prompt as the plan counted it (the unit the prediction used)."""
        return self.plan.prompt_tokens if self.plan is not None else None


@dataclass(frozen=True, slots=True)
class ServerStateChanged:
    """A server or its model changed state: the warmer's model states (its /api/ps),
    and Tachy.reach's while the chosen server does not answer, then answers."""

    server: str
    model: str  # "": the server as a whole (reachable, unreachable)
    state: str  # cold | loading | warm | unknown | unreachable | reachable


class EventBus:
    def __init__(self) -> None:
        self._handlers: dict[type, list[Callable[[Any], None]]] = {}

    def subscribe(self, kind: type[E], handler: Callable[[E], None]) -> Callable[[], None]:
        """Call `handler` with every event of `kind` published; returns the unsubscribe."""
        handlers = self._handlers.setdefault(kind, [])
        handlers.append(handler)
        return lambda: handlers.remove(handler) if handler in handlers else None

    def publish(self, event: object) -> None:
        for handler in list(self._handlers.get(type(event), ())):
            try:
                handler(event)
            except Exception:  # a subscriber's bug never stops the turn
                log.exception("a subscriber to %s failed", type(event).__name__)
