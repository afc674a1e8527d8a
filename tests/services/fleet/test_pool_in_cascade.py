"""A pool as a cascade's route: its answer comes by the pool's policy (a server of the
pool that fails is followed by the next one), and the cascade falls back to its other
route only when the whole pool failed."""

from __future__ import annotations

from typing import Any

from client.backends import backend_for
from client.lab import LabServer, scenario_from_dict
from client.services.cascade.cascade import cascade_routes
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Finished, Outcome
from client.services.fleet.pool import Policy
from client.services.planning.planner import Route
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from tests.services.fleet.test_fleet_stream import close, pool_of, refused_url

POOLED: dict[str, Any] = {"ttft": 5, "tpot_ms": 1, "output_tokens": 6, "seed": 1}
STRONG: dict[str, Any] = {"model": "strong-lab:7b", "ttft": 5, "tpot_ms": 1, "output_tokens": 6}


async def _ask(db: Database, pool_urls: list[str]) -> tuple[Any, Finished, LabServer]:
    strong_lab = LabServer(scenario_from_dict(STRONG))
    strong = backend_for(await strong_lab.start(), "openai")
    fleet = pool_of(pool_urls, Policy.FAILOVER)
    fast = Route(fleet, "tachy-lab", "test pool")
    session = ChatSession(fleet, "tachy-lab", HistoryStore(db), MetricsStore(db))
    session.use_routes(cascade_routes(fast, Route(strong, "strong-lab:7b", "lab")))
    try:
        generation = session.generate(None, "hi")
        events = [event async for event in generation]
    finally:
        await close(fleet)
        await strong.aclose()
        await strong_lab.stop()
    finished = events[-1]
    assert isinstance(finished, Finished)
    return generation, finished, strong_lab


async def test_a_pool_route_fails_over_inside_the_pool_before_the_cascade_falls_back(
    db: Database,
) -> None:
    second = LabServer(scenario_from_dict(POOLED))
    try:
        generation, finished, strong_lab = await _ask(db, [refused_url(), await second.start()])
    finally:
        await second.stop()
    assert finished.outcome is Outcome.COMPLETE and finished.text
    assert generation.fell_back is None  # the pool's second server answered
    assert generation.answered_by == ("server 2", "tachy-lab")
    assert second.stats.requests == 1 and strong_lab.stats.requests == 0


async def test_a_pool_route_whose_servers_all_fail_falls_back_to_the_other_route(
    db: Database,
) -> None:
    generation, finished, strong_lab = await _ask(db, [refused_url(), refused_url()])
    assert finished.outcome is Outcome.COMPLETE and finished.text
    assert generation.fell_back is not None and generation.fell_back.failed_tier == "fast"
    assert strong_lab.stats.requests == 1
