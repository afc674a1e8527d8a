"""The HUD's server view against a scripted loopback server, on the qasync loop the app uses."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import qasync
from aiohttp import web

from client.backends.kinds.ollama.figures import parse_ollama_ps
from client.ui.hud import LatencyHud
from tests.services.hud.test_server_stats import VLLM_METRICS


async def _wait_until(condition: Callable[[], bool], timeout_s: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def _run_on_qasync(qapp: Any, scenario: Callable[[], Awaitable[None]]) -> None:
    loop = qasync.QEventLoop(qapp, already_running=False)
    try:
        loop.run_until_complete(scenario())
    finally:
        loop.close()
        asyncio.set_event_loop(None)


@pytest.fixture
def hud(qtbot: Any) -> LatencyHud:
    widget = LatencyHud()
    qtbot.addWidget(widget)
    return widget


def test_polls_at_most_once_a_second_and_only_while_visible(qapp: Any, hud: LatencyHud) -> None:
    hits: list[float] = []  # when the server saw a request
    starts: list[float] = []  # when the HUD began a poll

    async def metrics(_request: web.Request) -> web.Response:
        hits.append(asyncio.get_running_loop().time())
        return web.Response(text=VLLM_METRICS)

    async def scenario() -> None:
        app = web.Application()
        app.router.add_get("/metrics", metrics)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        try:
            hud.set_server(f"http://127.0.0.1:{runner.addresses[0][1]}", "openai")
            poller = hud.server.poller
            assert poller is not None
            real_poll = poller.poll

            async def timed_poll():
                starts.append(asyncio.get_running_loop().time())
                return await real_poll()

            poller.poll = timed_poll  # type: ignore[method-assign]
            await asyncio.sleep(1.2)  # hidden: asserting that nothing happens takes a wait
            assert hits == []
            hud.show()
            await _wait_until(lambda: hud.server.polls >= 3)
            gaps = [b - a for a, b in itertools.pairwise(starts)]
            assert len(hits) == len(starts) and all(gap >= 0.99 for gap in gaps), gaps
            assert hud.server.figures["running"].text() == "3"
            assert hud.server.figures["kv cache"].text() == "25.0 %"
            assert hud.server.figures["server TTFT"].text() == "P50 55 ms · P95 90 ms (n=100)"
            assert hud.server.figures["draft acceptance"].text() == "75.0 %"
            hud.hide()
            seen = len(starts)
            await asyncio.sleep(1.3)
            assert len(starts) == seen
            hud.show()  # shown again at once: still no second poll within a second
            await _wait_until(lambda: len(starts) > seen)
            assert starts[-1] - starts[-2] >= 0.99
        finally:
            await hud.aclose()
            await runner.cleanup()

    _run_on_qasync(qapp, scenario)


def test_ollama_models_count_down_to_unload(hud: LatencyHud) -> None:
    soon = (datetime.now(UTC) + timedelta(seconds=95)).isoformat()
    snap = parse_ollama_ps(
        {
            "models": [
                {"name": "llama3.2", "size_vram": 3 * 2**30, "expires_at": soon},
                {"name": "pinned", "size_vram": 2**30, "expires_at": "2318-01-01T00:00:00Z"},
            ]
        }
    )
    hud.server.show_snapshot(snap)
    table = hud.server.models
    assert [_text(table, r, 0) for r in range(2)] == ["llama3.2", "pinned"]
    assert _text(table, 0, 1) == "3.00 GiB"
    assert _text(table, 0, 2) in {"1:34", "1:35"}
    assert _text(table, 1, 2) == "stays loaded"


def test_a_server_without_metrics_says_so(hud: LatencyHud) -> None:
    from client.services.hud.server_stats import ServerSnapshot

    hud.server.show_snapshot(ServerSnapshot("", error="This server does not offer /metrics."))
    assert "does not offer" in hud.server.status.text()
    assert hud.server.figures["running"].text() == "–"


def _text(table: Any, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None, (row, column)
    return str(item.text())


def test_closing_the_hud_ends_a_poll_under_way(qapp: Any, hud: LatencyHud) -> None:
    """aclose() waits for the cancelled poll: one left pending was stepped by Qt after
    its loop had stopped ("no running event loop", printed at the end of a CI run)."""
    asked = asyncio.Event()

    async def metrics(_request: web.Request) -> web.Response:
        asked.set()
        await asyncio.sleep(30)  # a server that does not answer in time
        return web.Response(text=VLLM_METRICS)

    async def scenario() -> None:
        app = web.Application()
        app.router.add_get("/metrics", metrics)
        runner = web.AppRunner(app, shutdown_timeout=0.1)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        try:
            hud.set_server(f"http://127.0.0.1:{runner.addresses[0][1]}", "openai")
            hud.show()
            await asyncio.wait_for(asked.wait(), 60)
            task = hud.server._in_flight
            assert task is not None and not task.done()
            await hud.aclose()
            assert task.done()
        finally:
            await runner.cleanup()

    _run_on_qasync(qapp, scenario)
