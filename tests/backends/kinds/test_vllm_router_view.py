"""The server view of a real vLLM router in front of two lab workers: its workers with
health, requests running and load; its own metrics (the names it really exports) as
totals beside the last minute; a worker turning unhealthy said in one sentence; and, for a
policy that spreads requests, that warming cannot help."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import httpx
import pytest
from pytestqt.qtbot import QtBot

from client.backends.kinds.vllm_router import figures as router_figures
from client.backends.kinds.vllm_router.figures import metrics_candidates
from client.backends.kinds.vllm_router.metrics import parse_router_metrics
from client.lab import RunningLab, run_in_thread, scenario_from_dict
from client.services.hud.server_stats import (
    ServerFigures,
    ServerSnapshot,
    ServerStatsPoller,
    turned_unhealthy,
    warming_helps,
)
from client.ui.hud.tabs.router_workers import RouterWorkers
from client.ui.hud.tabs.server_view import ServerView
from tests.backends.kinds.routers import running_router

# As a running vllm-router exported them (cut down), read from its --prometheus-port.
REAL_METRICS = """\
# TYPE vllm_router_processed_requests_total counter
vllm_router_processed_requests_total{worker="http://a:1"} 3
# TYPE vllm_router_policy_decisions_total counter
vllm_router_policy_decisions_total{policy="cache_aware",worker="http://a:1"} 3
# TYPE vllm_router_cb_outcomes_total counter
vllm_router_cb_outcomes_total{worker="http://a:1",outcome="success"} 3
# TYPE vllm_router_running_requests gauge
vllm_router_running_requests{worker="http://a:1"} 0
# TYPE vllm_router_cb_state gauge
vllm_router_cb_state{worker="http://a:1"} 1
# TYPE vllm_router_active_workers gauge
vllm_router_active_workers 2
# TYPE vllm_router_worker_health gauge
vllm_router_worker_health{worker="http://a:1"} 1
vllm_router_worker_health{worker="http://b:2"} 0
"""


@pytest.fixture
def labs() -> Iterator[list[RunningLab]]:
    running = [run_in_thread(scenario_from_dict({"seed": 1, "ttft": 5, "tpot_ms": 1}))]
    running.append(run_in_thread(scenario_from_dict({"seed": 2, "ttft": 5, "tpot_ms": 1})))
    try:
        yield running
    finally:
        for lab in running:
            lab.stop()


def test_the_routers_own_metric_names_are_read() -> None:
    found = parse_router_metrics(REAL_METRICS)
    assert found.processed == {"http://a:1": 3}
    assert found.decisions == {("cache_aware", "http://a:1"): 3}
    assert found.breaker == {"http://a:1": "open"}
    assert found.healthy == {"http://a:1": True, "http://b:2": False}
    assert metrics_candidates("http://10.0.0.5:8000/") == ["http://10.0.0.5:29000"]


def _cell(view: RouterWorkers, row: int, column: int) -> str:
    item = view.table.item(row, column)
    return item.text() if item is not None else ""


def _ask(url: str, count: int) -> None:
    body = {"model": "tachy-lab", "messages": [{"role": "user", "content": "hi"}]}
    for _ in range(count):
        assert httpx.post(f"{url}/v1/chat/completions", json=body | {"max_tokens": 2}).is_success


async def _two_polls(url: str, metrics_url: str | None, between: int) -> list[ServerSnapshot]:
    """A reading, `between` requests, and a reading 30 s later by the poller's clock."""
    now = [1000.0]
    figures = ServerFigures()
    try:
        poller = ServerStatsPoller(figures, url, "openai", metrics_url=metrics_url)
        poller.clock = lambda: now[0]
        first = await poller.poll()
        await asyncio.to_thread(_ask, url, between)
        now[0] += 30.0
        return [first, await poller.poll()]
    finally:
        await figures.aclose()


def test_workers_requests_and_decisions_as_totals_and_the_last_minute(
    labs: list[RunningLab], qtbot: QtBot
) -> None:
    with running_router([lab.url for lab in labs], "round_robin") as router:
        _ask(router.url, 2)  # totals before the window
        first, snap = asyncio.run(_two_polls(router.url, router.metrics_url, 4))
    assert first.metrics_url == router.metrics_url and first.recent_s is None
    assert snap.recent_s == 30.0 and not snap.error
    assert sorted(w.url for w in snap.workers) == sorted(lab.url for lab in labs)
    assert all(w.healthy and w.load == 0 and w.breaker == "closed" for w in snap.workers)
    assert sum(w.processed or 0 for w in snap.workers) == 6
    assert sum(w.processed_recent or 0 for w in snap.workers) == 4
    assert {d.policy for d in snap.decisions} == {"round_robin"}
    assert sum(d.total for d in snap.decisions) == 6
    assert sum(d.recent or 0 for d in snap.decisions) == 4
    assert warming_helps(snap) is False  # round_robin spreads requests
    server = ServerView()
    qtbot.addWidget(server)
    server.show_snapshot(snap)
    view = server.router
    assert not view.isHidden() and view.table.rowCount() == 2
    served = [_cell(view, row, 4) for row in range(2)]
    assert all(text.endswith(" in all") and " in the last 30 s · " in text for text in served)
    assert "round_robin chose " in view.decisions.text()
    assert view.warming.text().startswith("The router spreads requests (round_robin)")
    assert "warming cannot help" in view.warming.text()


def test_a_cache_aware_router_is_not_said_to_defeat_warming(labs: list[RunningLab]) -> None:
    with running_router([lab.url for lab in labs], "cache_aware") as router:
        _, snap = asyncio.run(_two_polls(router.url, router.metrics_url, 1))
    assert {d.policy for d in snap.decisions} == {"cache_aware"} and warming_helps(snap)


def test_without_its_metrics_the_view_says_where_to_find_them(
    labs: list[RunningLab], qtbot: QtBot
) -> None:
    with running_router([lab.url for lab in labs]) as router:
        _, snap = asyncio.run(_two_polls(router.url, None, 0))  # not given; not on 29000
    assert snap.workers and snap.metrics_url is None and not snap.decisions
    assert warming_helps(snap) is None  # the policy is not known: nothing claimed
    view = RouterWorkers()
    qtbot.addWidget(view)
    view.show_snapshot(snap)
    assert "--prometheus-port" in view.decisions.text() and not view.warming.text()


def test_its_metrics_are_found_only_where_they_name_its_workers(
    labs: list[RunningLab], monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        running_router([lab.url for lab in labs]) as router,
        running_router([labs[0].url]) as other,
    ):
        looked = [other.metrics_url, router.metrics_url]  # another router's first
        monkeypatch.setattr(router_figures, "metrics_candidates", lambda url: looked)
        _, snap = asyncio.run(_two_polls(router.url, None, 1))
    assert snap.metrics_url == router.metrics_url
    assert sum(w.processed_recent or 0 for w in snap.workers) == 1


async def _until_unhealthy(url: str, metrics_url: str, worker: str) -> list[ServerSnapshot]:
    figures = ServerFigures()
    seen: list[ServerSnapshot] = []
    try:
        poller = ServerStatsPoller(figures, url, "openai", metrics_url=metrics_url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            seen.append(await poller.poll())
            if any(w.url == worker and w.healthy is False for w in seen[-1].workers):
                return seen
            await asyncio.sleep(0.2)  # the router's own health check decides when
    finally:
        await figures.aclose()
    pytest.fail("the router never said the stopped worker was unhealthy", pytrace=False)


def test_a_worker_that_turns_unhealthy_is_said_once_in_a_sentence(
    labs: list[RunningLab], qtbot: QtBot
) -> None:
    checks = ["--health-check-interval-secs", "1", "--health-failure-threshold", "1"]
    with running_router([lab.url for lab in labs], "round_robin", *checks) as router:
        labs[1].stop()
        seen = asyncio.run(_until_unhealthy(router.url, router.metrics_url, labs[1].url))
    before, after = seen[-2] if len(seen) > 1 else None, seen[-1]
    assert turned_unhealthy(before, after) == [labs[1].url]
    assert turned_unhealthy(after, after) == []  # said when it turns, not every poll
    view = RouterWorkers()
    qtbot.addWidget(view)
    for snap in seen:
        view.show_snapshot(snap)
    assert view.alert.text() == (
        f"{labs[1].url} is unhealthy: the router sends it no requests until it passes "
        "its health check again."
    )
    unhealthy = [_cell(view, row, 1) for row in range(view.table.rowCount())]
    assert sorted(unhealthy) == ["healthy", "unhealthy"]
