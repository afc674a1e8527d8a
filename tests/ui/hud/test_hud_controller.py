"""The window's HUD adapts the root's HUD feed (client/ui/hud/hud_controller.py): a
turn asked through the same bus, by whoever, shows in it with its live stamps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from client.services.chat.session import ChatSession
from client.services.events import EventBus
from client.services.hud.hud_feed import HudFeed
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from client.ui.hud import LatencyHud
from client.ui.hud.hud_controller import HudController
from tests.services.scripted_server import MODEL, ScriptedServer, ollama_done, ollama_token

pytestmark = pytest.mark.timeout(120)


async def test_a_turn_on_the_bus_shows_in_the_hud(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path))
    db = Database()
    hud = LatencyHud()
    qtbot.addWidget(hud)
    hud.show()
    bus = EventBus()
    HudController(hud, HudFeed(bus))
    tokens = [ollama_token(word) for word in ("Blue", " sky", ".")]
    server = ScriptedServer().add(0.01, *tokens, ollama_done())
    session = ChatSession(server.backend(), MODEL, HistoryStore(db), MetricsStore(db), "scripted")
    session.events = bus  # as Tachy.use sets it: no window listener involved
    generation = session.generate(None, "Why is the sky blue?")
    async for _event in generation:
        pass
    session.close()
    db.close()
    [record] = hud.book.records
    assert record.message_id == generation.assistant_message_id
    assert (record.model, record.server) == (MODEL, "scripted")
    assert hud.stream.tokens == len(generation.timeline.tokens)  # read from its timeline
    qtbot.waitUntil(lambda: hud.tier.shown_tier() is not None, timeout=5000)


def test_an_answer_asked_past_the_window_shows_in_its_hud(
    make_app: Any, run: Any, server: Any
) -> None:
    """Another caller of the window's own Tachy (not the chat page): the same events."""
    app = make_app(server.url)
    hud, session = app.hud, app.tachy.session
    assert hud is not None and session is not None
    before = len(hud.book.records)

    async def ask() -> int | None:
        generation = session.generate(None, "Asked by a script")
        async for _event in generation:
            pass
        return generation.assistant_message_id

    answer_id = run(ask())
    assert len(hud.book.records) == before + 1
    assert hud.book.records[-1].message_id == answer_id
