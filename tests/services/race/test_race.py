"""A race against two lab servers: the columns stream at once, the first-token and
first-finish marks go to the right column, Stop closes every connection (each lab sees
its client leave), and the race is stored as one turn with one version per column."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from client.backends import backend_for
from client.core.events import Token
from client.lab import LabServer, scenario_from_dict
from client.services.chat.session_events import Finished, Outcome
from client.services.planning.planner import Route
from client.services.race.race import Race, RaceError, RaceEvent, RaceRoute
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore

QUICK = {"model": "quick-lab", "ttft": 5, "tpot_ms": 15, "output_tokens": 20, "seed": 1}
LATE = {"model": "late-lab", "ttft": 120, "tpot_ms": 15, "output_tokens": 20, "seed": 2}
ENDLESS = {"ttft": 5, "tpot_ms": 40, "output_tokens": 2000, "seed": 3}


class Labs:
    def __init__(self, db: Database) -> None:
        self.history = HistoryStore(db)
        self.metrics = MetricsStore(db)
        self.labs: list[LabServer] = []
        self.backends: list[Any] = []

    async def route(self, dials: dict[str, Any], name: str) -> RaceRoute:
        lab = LabServer(scenario_from_dict(dials))
        self.labs.append(lab)
        backend = backend_for(await lab.start(), "openai")
        self.backends.append(backend)
        return RaceRoute((Route(backend, dials.get("model", "tachy-lab"), name),))

    async def close(self) -> None:
        for backend in self.backends:
            await backend.aclose()
        for lab in self.labs:
            await lab.stop()


@pytest.fixture
async def labs(db: Database) -> AsyncIterator[Labs]:
    made = Labs(db)
    yield made
    await made.close()


async def until(condition: Callable[[], object], timeout_s: float = 60.0) -> None:
    """Wait for a condition; the deadline is a safety net for a machine 5x slower."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.005)


async def test_columns_stream_at_once_and_the_marks_go_to_the_right_columns(labs: Labs) -> None:
    routes = [await labs.route(LATE, "late lab"), await labs.route(QUICK, "quick lab")]
    race = Race(labs.history, labs.metrics, routes, "Why is the sky blue?")
    events: list[RaceEvent] = [event async for event in race]

    first_tokens = [_first_index(events, c, Token) for c in (0, 1)]
    finishes = [_first_index(events, c, Finished) for c in (0, 1)]
    # The late column's first token came while the quick one was still streaming.
    assert first_tokens[1] < first_tokens[0] < finishes[1]
    assert race.first_token == 1 and race.first_finish == 1
    figures = race.figures()
    assert figures[1].first_token and figures[1].first_finish
    assert not figures[0].first_token and not figures[0].first_finish
    for column in figures:
        assert column.outcome is Outcome.COMPLETE
        assert column.ttft_ms is not None and column.tokens_per_s is not None
        assert column.finished_at_ms is not None and column.tier is not None
    assert figures[1].ttft_ms < figures[0].ttft_ms  # type: ignore[operator]
    assert figures[1].finished_at_ms < figures[0].finished_at_ms  # type: ignore[operator]


async def test_the_race_is_one_turn_with_a_version_per_column(labs: Labs) -> None:
    routes = [await labs.route(QUICK, "quick lab"), await labs.route(LATE, "late lab")]
    race = Race(labs.history, labs.metrics, routes, "Why is the sky blue?")
    async for _ in race:
        pass
    answers = [c.finished.message_id for c in race.columns if c.finished is not None]
    assert len(answers) == 2 and None not in answers
    stored = [labs.history.get_message(a) for a in answers if a is not None]
    assert {m.parent_id for m in stored if m is not None} == {race.user_message_id}
    assert [m.model for m in stored if m is not None] == ["quick-lab", "late-lab"]
    assert [m.content for m in stored if m is not None] == [c.text for c in race.columns]
    assert race.conversation_id is not None
    versions = labs.history.siblings(answers[0])  # type: ignore[arg-type]
    assert len(versions) == 2
    path = labs.history.active_path(race.conversation_id)
    assert [m.role for m in path] == ["user", "assistant"]  # one turn
    assert path[-1].id == race.columns[race.first_finish or 0].finished.message_id  # type: ignore[union-attr]


async def test_stop_closes_every_connection_and_keeps_each_answer(labs: Labs) -> None:
    routes = [await labs.route(ENDLESS, "lab one"), await labs.route(ENDLESS, "lab two")]
    race = Race(labs.history, labs.metrics, routes, "Tell me everything.")
    seen: list[RaceEvent] = []

    async def watch() -> None:
        async for event in race:
            seen.append(event)

    task = asyncio.create_task(watch())
    await until(lambda: all(c.text for c in race.columns))
    await race.stop()
    await task
    assert [c.finished.outcome for c in race.columns] == [Outcome.STOPPED] * 2  # type: ignore[union-attr]
    await until(lambda: all(lab.stats.disconnected == 1 for lab in labs.labs))
    assert all(lab.stats.completed == 0 for lab in labs.labs)
    for column in race.columns:
        assert column.finished is not None and column.finished.message_id is not None
        await until(lambda c=column: _stored_text(labs, c.finished.message_id))  # type: ignore[misc]
        stored = labs.history.get_message(column.finished.message_id)
        assert stored is not None and stored.state.value == "stopped"
        assert column.text.startswith(stored.content) and stored.content


async def test_cancelling_the_consumer_stops_the_race(labs: Labs) -> None:
    routes = [await labs.route(ENDLESS, "lab one"), await labs.route(ENDLESS, "lab two")]
    race = Race(labs.history, labs.metrics, routes, "Tell me everything.")

    async def watch() -> None:
        async for _ in race:
            pass

    task = asyncio.create_task(watch())
    await until(lambda: all(c.text for c in race.columns))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(lambda: all(lab.stats.disconnected == 1 for lab in labs.labs))
    assert race.done


async def test_a_race_needs_two_to_four_routes(labs: Labs) -> None:
    one = await labs.route(QUICK, "quick lab")
    with pytest.raises(RaceError):
        Race(labs.history, labs.metrics, [one], "hi")
    with pytest.raises(RaceError):
        Race(labs.history, labs.metrics, [one] * 5, "hi")


def _first_index(events: list[RaceEvent], column: int, kind: type) -> int:
    return next(i for i, e in enumerate(events) if e.column == column and isinstance(e.event, kind))


def _stored_text(labs: Labs, message_id: int) -> bool:
    stored = labs.history.get_message(message_id)
    return stored is not None and stored.state.value != "streaming"
