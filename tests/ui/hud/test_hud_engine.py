"""The HUD fed by real chat sessions against the local engine: every request shown as
measured, the waterfall and the tier of the last one. How close its figures come to
`tachy bench`'s is a benchmark (tests/perf/test_hud_engine.py)."""

from __future__ import annotations

from typing import Any

import pytest

from client.backends import make_backend
from client.backends.engine.local_engine import LocalEngine
from client.core.events import Token
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Outcome
from client.ui.hud import LatencyHud

REQUESTS = 3
MAX_TOKENS = 12


@pytest.mark.engine
async def test_the_hud_shows_each_local_engine_request_as_measured(
    qtbot: Any, local_engine: LocalEngine
) -> None:
    hud = LatencyHud()
    qtbot.addWidget(hud)
    hud.show()
    backend = await make_backend(local_engine.url, "openai")
    session = ChatSession(backend, local_engine.model, server_name="local")
    session.settings.options.max_tokens = MAX_TOKENS
    try:
        for _ in range(REQUESTS):
            await one_reply(hud, session, "Name a colour.")
    finally:
        session.close()
        await backend.aclose()
    ours = hud.book.stats(hud.shown_records()).summaries["ttft_ms"]
    assert ours is not None and ours.n == REQUESTS and ours.median > 0
    fall = hud.waterfall.waterfall
    assert fall is not None and [r.label for r in fall.rows][:2] == [
        "request written",
        "response headers",
    ]
    assert hud.tier.shown_tier() is not None


async def one_reply(hud: LatencyHud, session: ChatSession, prompt: str) -> None:
    """What the window's HUD link does for one generation: at each Token, every chunk
    stamped since the last (one network read may carry several)."""
    generation = session.generate(None, prompt)
    hud.request_started(generation.timeline, session.model, "local", False)
    told = 0
    async for event in generation:
        if isinstance(event, Token):
            for stamp in generation.timeline.tokens[told:]:
                hud.token(stamp.kind, stamp.chars, stamp.at_ns)
            told = len(generation.timeline.tokens)
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.COMPLETE
    hud.request_finished(
        finished.metrics, generation.timeline, finished.outcome, message_id=finished.message_id
    )
    assert hud.book.records[-1].ttft_ms == finished.metrics.ttft_ms  # shown as measured
    assert hud.stream.tokens == len(generation.timeline.tokens)
