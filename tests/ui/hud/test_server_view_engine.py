"""The HUD's server view on the real local engine: its /metrics, /slots and /props."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from client.backends.engine.engine_settings import EngineSettings
from client.backends.engine.local_engine import LocalEngine
from client.services.hud.server_stats import ServerFigures, ServerStatsPoller
from client.ui.hud.tabs.server_view import ServerView

pytestmark = pytest.mark.engine


async def _ask(engine: LocalEngine, text: str) -> None:
    body = {"messages": [{"role": "user", "content": text}], "max_tokens": 4}
    async with httpx.AsyncClient(timeout=120, trust_env=False) as client:
        assert (await client.post(f"{engine.url}/v1/chat/completions", json=body)).is_success


async def test_the_engines_counters_and_slots(local_engine: LocalEngine) -> None:
    figures = ServerFigures()
    poller = ServerStatsPoller(figures, local_engine.url, "openai", local_engine.model)
    try:
        question = "Name " + " ".join(f"thing{i}" for i in range(40))
        await _ask(local_engine, question)
        first = await poller.poll()
        await _ask(local_engine, question + " please")  # nearly all from the prompt cache
        second = await poller.poll()
    finally:
        await figures.aclose()
    assert first.kind == second.kind == "llamacpp" and not second.error
    assert first.prompt_tokens_per_s and first.prompt_tokens_per_s > 1
    assert first.decode_tokens_per_s and first.decode_tokens_per_s > 1
    assert second.cache_hit_rate is not None and second.cache_hit_rate > (
        first.cache_hit_rate or 0.0
    )
    settings = local_engine.settings
    assert second.total_slots == settings.n_parallel and second.busy_slots == 0
    assert second.slot_ctx == settings.n_ctx and second.sleeping is False


async def test_the_view_shows_them_with_the_engine_settings(
    qtbot: Any, local_engine: LocalEngine
) -> None:
    view = ServerView()
    qtbot.addWidget(view)
    view.set_server(local_engine.url, "openai", local_engine.model)
    view.show_engine(local_engine.settings)
    await _ask(local_engine, "Say one word.")
    view.start()
    try:
        for _ in range(1200):  # a minute at most
            if view.snapshot is not None:
                break
            await asyncio.sleep(0.05)
    finally:
        await view.aclose()
    assert view.snapshot is not None and view.snapshot.kind == "llamacpp"
    assert view.figures["decode tokens/s"].text() != "–"
    assert view.figures["busy slots"].text().startswith("0 / ")
    engine_text = view.figures["engine"].text()
    assert f"batch {local_engine.settings.n_batch}" in engine_text
    assert "unload after idle: never" in engine_text
    view.show_engine(None)  # another server: no engine settings
    assert view.figures["engine"].text() == "–"
    assert EngineSettings.default().n_batch == local_engine.settings.n_batch
