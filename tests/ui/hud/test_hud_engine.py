"""The HUD fed by real chat sessions against the local engine, beside `tachy bench`'s
measurement of the same server in the same run."""

from __future__ import annotations

from typing import Any

import pytest

from client.backends import make_backend
from client.backends.local_engine import LocalEngine
from client.core.events import Token
from client.core.stats import summarize
from client.services.bench.runner import BenchSettings, run_bench
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Outcome
from client.ui.hud import LatencyHud

REQUESTS = 8
MAX_TOKENS = 12
TOLERANCE_MS = 30.0  # separate requests on a shared, loaded 2-core machine: medians of 8 wander


@pytest.mark.engine
async def test_hud_matches_bench_against_the_local_engine(
    qtbot: Any, local_engine: LocalEngine
) -> None:
    """Bench requests and chat-session requests alternate, with the same prompt, so both
    see the same server and machine load; the HUD's TTFT median must match bench's."""
    hud = LatencyHud()
    qtbot.addWidget(hud)
    hud.show()
    backend = await make_backend(local_engine.url, "openai")
    session = ChatSession(backend, local_engine.model, server_name="local")
    session.settings.options.max_tokens = MAX_TOKENS
    settings = BenchSettings(model=local_engine.model, n=1, warmup=0, max_tokens=MAX_TOKENS)
    bench_ttft: list[float | None] = []
    try:
        await run_bench(backend, settings)  # warm the engine up
        for _ in range(REQUESTS):
            report = await run_bench(backend, settings)
            bench_ttft.extend(r.metrics.ttft_ms for r in report.results)
            await _one_reply(hud, session, settings.prompt)
    finally:
        session.close()
        await backend.aclose()
    ours = hud.book.stats(hud.shown_records()).summaries["ttft_ms"]
    theirs = summarize(bench_ttft)
    assert ours is not None and theirs is not None and ours.n == theirs.n == REQUESTS
    print(
        f"\nlocal engine TTFT median: HUD {ours.median:.1f} ms, bench {theirs.median:.1f} ms "
        f"(n={ours.n} each, alternating)"
    )
    assert abs(ours.median - theirs.median) < max(TOLERANCE_MS, 0.35 * theirs.median)
    fall = hud.waterfall.waterfall
    assert fall is not None and [r.label for r in fall.rows][:2] == [
        "request written",
        "response headers",
    ]
    assert hud.tier.shown_tier() is not None


async def _one_reply(hud: LatencyHud, session: ChatSession, prompt: str) -> None:
    """What the window's HUD link does for one generation."""
    generation = session.generate(None, prompt)
    hud.request_started(generation.timeline, session.model, "local", False)
    async for event in generation:
        if isinstance(event, Token):
            hud.token(event.kind, len(event.text), generation.timeline.tokens[-1].at_ns)
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.COMPLETE
    hud.request_finished(
        finished.metrics, generation.timeline, finished.outcome, message_id=finished.message_id
    )
    assert hud.book.records[-1].ttft_ms == finished.metrics.ttft_ms  # shown as measured
    assert hud.stream.tokens == len(generation.timeline.tokens)
