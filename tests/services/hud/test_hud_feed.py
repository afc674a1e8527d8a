"""The HUD's turns come from the root's events (client/services/hud/hud_feed.py):
a turn's start with its timeline, and its answer's record, whoever asked."""

from __future__ import annotations

import pytest

from client.services.chat.session import ChatSession
from client.services.events import AnswerFinished, EventBus
from client.services.hud.hud_feed import HudFeed, HudTurn
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from tests.services.scripted_server import MODEL, ScriptedServer, ollama_done, ollama_token

pytestmark = pytest.mark.timeout(120)


class Seen:
    def __init__(self) -> None:
        self.started: list[HudTurn] = []
        self.finished: list[AnswerFinished] = []

    def turn_started(self, turn: HudTurn) -> None:
        self.started.append(turn)

    def answer_finished(self, turn: HudTurn, answer: AnswerFinished) -> None:
        self.finished.append(answer)


async def test_a_turn_reaches_the_hud_feed_through_the_bus(db: Database) -> None:
    server = ScriptedServer().add(0.01, ollama_token("Blue"), ollama_token("."), ollama_done())
    session = ChatSession(server.backend(), MODEL, HistoryStore(db), MetricsStore(db), "scripted")
    bus = EventBus()
    session.events = bus
    feed, seen = HudFeed(bus), Seen()
    feed.views.append(seen)
    generation = session.generate(None, "Why is the sky blue?")
    async for _event in generation:
        pass
    [turn] = seen.started
    assert turn.timeline is generation.timeline  # the live plot reads its stamps
    assert (turn.model, turn.server) == (MODEL, "scripted")
    [answer] = seen.finished
    record = feed.last
    assert record is not None and answer.message_id == generation.assistant_message_id
    assert record.message_id == generation.assistant_message_id
    assert record.ttft_ms == answer.metrics.ttft_ms and record.ttft_ms is not None
    assert (record.model, record.server, record.outcome) == (MODEL, "scripted", "complete")
    assert record.stages  # the waterfall's rows, from the turn's timeline
    feed.close()
    session.close()
