"""One state for a turn (client/services/chat/turn_state.py), entered on real signals."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client.backends import backend_for
from client.lab import LabServer, scenario_from_dict
from client.services.chat.session import ChatSession, SessionSettings
from client.services.chat.session_events import Finished, Outcome, SlowStart
from client.services.chat.turn_state import StateChanged, TurnState
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from tests.services.scripted_server import ScriptedServer, ollama_done, ollama_token

pytestmark = pytest.mark.timeout(20)

DIALS = {"ttft": 5, "tpot_ms": 1, "output_tokens": 4, "seed": 1}


def states(events: list[Any]) -> list[TurnState]:
    return [e.state for e in events if isinstance(e, StateChanged)]


def session(
    backend: Any, db: Database, model: str = "scripted-model", **settings: Any
) -> ChatSession:
    own = SessionSettings(**settings)
    return ChatSession(backend, model, HistoryStore(db), MetricsStore(db), settings=own)


async def test_a_server_that_sends_nothing_is_waited_for_not_reading(db: Database) -> None:
    """The request went out and no byte came back: "waiting", never "reading"; Keep
    waiting comes after slow_start_after_s; Cancel says the time really waited."""
    lab = LabServer(scenario_from_dict({**DIALS, "fault": {"kind": "never_answer"}}))
    url = await lab.start()
    backend = backend_for(url, "ollama")
    try:
        generation = session(backend, db, lab.scenario.model, slow_start_after_s=0.3).generate(
            None, "Hi"
        )
        seen: list[Any] = []
        slow = asyncio.Event()

        async def consume() -> None:
            async for event in generation:
                seen.append(event)
                if isinstance(event, SlowStart):
                    assert generation.state is TurnState.WAITING
                    slow.set()

        task = asyncio.ensure_future(consume())
        await slow.wait()
        await asyncio.sleep(0.2)  # the user reads the bar, then presses Cancel
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        await backend.aclose()
        await lab.stop()
    told = states(seen)
    assert told[0] is TurnState.QUEUED and TurnState.WAITING in told
    assert TurnState.READING not in told and TurnState.LOADING not in told
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.TIMED_OUT
    waited = float(finished.error_message.split(" in ")[1].split(" s")[0])
    assert waited >= 0.5  # the real wait (0.3 s to the bar, then 0.2 s), not the setting
    assert generation.state is TurnState.STOPPED  # the user cancelled: nothing failed


async def test_an_answer_goes_from_reading_to_answering_to_done(db: Database) -> None:
    server = ScriptedServer().add(0.05, ollama_token("Hi"), ollama_done())
    events = [e async for e in session(server.backend(), db).generate(None, "Q")]
    assert states(events)[-3:] == [TurnState.READING, TurnState.ANSWERING, TurnState.DONE]
    assert isinstance(events[-1], Finished)


async def test_a_reasoning_model_is_thinking_before_it_answers(db: Database) -> None:
    server = ScriptedServer().add(ollama_token(thinking="Hmm"), ollama_token("Yes"), ollama_done())
    events = [e async for e in session(server.backend(), db).generate(None, "Q")]
    told = states(events)
    assert told.index(TurnState.THINKING) < told.index(TurnState.ANSWERING)


def test_a_stream_waiting_out_a_loading_model_is_in_the_loading_state() -> None:
    """`tachy chat --json`'s states (StreamStates): a 503 "Loading model" answer, even
    with its headers in, is the loading state, not "reading" (issue 39, item 6)."""
    from client.core.timeline import RequestTimeline
    from client.services.chat.turn_state import StreamStates

    timeline = RequestTimeline()
    timeline.request_written_ns, timeline.headers_ns = 1, 2  # the 503's headers
    states = StreamStates(timeline)
    assert states.loading(True) is TurnState.LOADING
    assert states.after(None) is None  # still loading while time passes
    assert states.loading(False) is TurnState.READING  # the server took the request
