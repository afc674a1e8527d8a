"""A chat answer from a pool names the server that gave it: stored with the turn, and
in its metrics."""

from __future__ import annotations

from typing import Any

from client.lab import LabServer, scenario_from_dict
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Finished, Outcome
from client.services.chat.turn_store import POOL_ROUTE
from client.services.fleet.pool import Policy
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from tests.services.fleet.test_fleet_stream import close, pool_of, primed, refused_url

DIALS: dict[str, Any] = {"ttft": 20, "tpot_ms": 2, "output_tokens": 6}


async def test_the_answer_names_the_server_of_the_pool_that_gave_it(db: Database) -> None:
    history, metrics = HistoryStore(db), MetricsStore(db)
    stalled = LabServer(
        scenario_from_dict({**DIALS, "fault": {"kind": "stall", "after_tokens": 0, "seconds": 30}})
    )
    fast = LabServer(scenario_from_dict(DIALS))
    # server 1 refuses; server 2 goes first (it looks fastest) and stalls past its P95
    urls = [refused_url(), await stalled.start(), await fast.start()]
    fleet = pool_of(urls, Policy.HEDGED)
    primed(fleet, 1, 20.0)
    primed(fleet, 2, 30.0)
    primed(fleet, 0, 40.0)
    try:
        session = ChatSession(fleet, "tachy-lab", history, metrics, "test pool")
        generation = session.generate(None, "Hi")
        events = [event async for event in generation]
    finally:
        await close(fleet)
        await stalled.stop()
        await fast.stop()
    finished = events[-1]
    assert isinstance(finished, Finished) and finished.outcome is Outcome.COMPLETE
    assert generation.answered_by == ("server 3", "tachy-lab")
    stored = history.get_message(generation.assistant_message_id or 0)
    assert stored is not None and (stored.server, stored.route) == ("server 3", POOL_ROUTE)
    records = metrics.for_messages([generation.assistant_message_id or 0])
    assert [r.server for r in records[generation.assistant_message_id or 0]] == ["server 3"]
