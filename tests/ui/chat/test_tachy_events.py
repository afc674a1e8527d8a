"""The thin Qt adapter of the root's events: each typed event as a signal."""

from __future__ import annotations

from typing import Any

from client.core.metrics import RequestMetrics
from client.services.events import AnswerFinished, EventBus, ServerStateChanged, TurnStarted
from client.ui.chat.run_listener import TachyEvents


def test_the_window_hears_the_bus_as_signals(qtbot: Any) -> None:
    bus = EventBus()
    events = TachyEvents(bus)
    started, finished, servers = [], [], []
    events.turnStarted.connect(started.append)
    events.answerFinished.connect(finished.append)
    events.serverStateChanged.connect(servers.append)
    answer = AnswerFinished(RequestMetrics(), None, "complete")
    bus.publish(TurnStarted("ask", "hi"))
    bus.publish(answer)
    bus.publish(ServerStateChanged("Lab", "m", "warm"))
    assert started == [TurnStarted("ask", "hi")] and finished == [answer]
    assert servers == [ServerStateChanged("Lab", "m", "warm")]
    events.close()  # the widgets go: the bus no longer reaches them
    bus.publish(TurnStarted("ask", "again"))
    assert len(started) == 1
