"""The loading stage: a request says it waits for its model to load while the app knows
or learns (from the warmer) that the model is cold, until the server reports reading
the prompt or the first token; its learned load time rides on the stage."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from client.core.events import Prefill
from client.services.chat.answer_writer import stage_record
from client.services.chat.loading_stage import EXPECTED_MS, LoadingWatch
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Stage, StageChanged
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from tests.services.scripted_server import (
    MODEL,
    ScriptedServer,
    ollama_done,
    ollama_token,
    sse_done,
    sse_token,
)

pytestmark = pytest.mark.timeout(120)


def stages(events: list[Any]) -> list[Stage]:
    return [e.stage for e in events if isinstance(e, StageChanged)]


def prompt_progress(processed: int, total: int = 400) -> bytes:
    """llama.cpp's prompt_progress chunk (sent before the first token)."""
    chunk = {
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}],
        "prompt_progress": {"total": total, "cache": 0, "processed": processed, "time_ms": 50},
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def session_on(server: ScriptedServer, db: Database, state: dict[str, Any]) -> ChatSession:
    session = ChatSession(
        server.backend(), MODEL, HistoryStore(db), MetricsStore(db), server_name="scripted"
    )
    session.model_state_provider = lambda: state["now"]  # what the warming policy attaches
    return session


# ---- what a request knows of its model -----------------------------------------------


def test_the_stage_follows_the_model_state_until_the_prompt_is_read() -> None:
    state: dict[str, Any] = {"now": None}
    watch = LoadingWatch(lambda: state["now"])
    assert watch.polls and watch.stage() is Stage.UNDERSTANDING and not watch.cold
    state["now"] = "loading"
    assert watch.stage() is Stage.LOADING and watch.cold
    state["now"] = "warm"
    assert watch.stage() is Stage.UNDERSTANDING and watch.cold  # it did wait for a load
    state["now"] = "cold"
    watch.prompt_started = True  # the server reads the prompt: the model is in memory
    assert watch.stage() is Stage.UNDERSTANDING


def test_without_a_warmer_nothing_is_guessed() -> None:
    watch = LoadingWatch(None)
    assert not watch.polls and watch.stage() is Stage.UNDERSTANDING
    assert watch.expected_counts() is None
    watch.server_loaded(12.0)  # Ollama's few ms of load_duration when warm
    assert not watch.cold
    watch.server_loaded(2100.0)  # a real load, reported afterwards
    assert watch.cold


def test_a_broken_provider_never_stops_the_request() -> None:
    def broken() -> str:
        raise RuntimeError("warmer bug")

    watch = LoadingWatch(broken, broken)  # type: ignore[arg-type]
    assert watch.stage() is Stage.UNDERSTANDING and watch.expected_counts() is None


def test_the_learned_load_time_is_the_stages_expectation() -> None:
    assert LoadingWatch(lambda: "cold", lambda: 2012.34).expected_counts() == {EXPECTED_MS: 2012.3}
    assert LoadingWatch(lambda: "cold", lambda: None).expected_counts() is None
    assert LoadingWatch(lambda: "cold", lambda: 0.0).expected_counts() is None


# ---- in a chat session ---------------------------------------------------------------------


async def test_a_cold_model_loads_then_the_server_reads_the_prompt(db: Database) -> None:
    # The local engine asleep (warmer: cold): llama-server reloads the model, then
    # reports its prompt progress; the stage line goes from loading to reading.
    server = ScriptedServer("openai")
    server.add(0.3, prompt_progress(0), 0.2, prompt_progress(400), sse_token("Hi"), sse_done())
    state = {"now": "loading"}  # the warmer says so until the first token
    session = session_on(server, db, state)
    session.load_estimate = lambda: 300.0
    generation = session.generate(None, "Hello")
    events = [event async for event in generation]

    assert stages(events) == [Stage.LOADING, Stage.UNDERSTANDING, Stage.ANSWERING]
    loading, understanding, answering = generation.timeline.stages
    assert loading.counts == {EXPECTED_MS: 300.0}
    first_progress = understanding.start_ns
    assert loading.end_ns == first_progress < answering.start_ns
    assert (first_progress - loading.start_ns) / 1e6 >= 250  # after the scripted load
    assert generation.cold
    [record] = MetricsStore(db).query()
    assert record.cold
    stored = stage_record(generation.timeline, None)
    assert [s["stage"] for s in stored] == ["loading", "understanding", "answering"]
    assert stored[0][EXPECTED_MS] == 300.0


async def test_the_warmer_learning_of_a_load_while_waiting_switches_to_loading(
    db: Database,
) -> None:
    # State not known when sent (the app-start warm-up had not asked /api/ps yet);
    # its answer says the model is not loaded: the request is loading it.
    server = ScriptedServer()
    server.add(0.8, ollama_token("ok"), ollama_done(load_ms=780.0))
    state: dict[str, Any] = {"now": None}
    session = session_on(server, db, state)
    generation = session.generate(None, "Hi")
    seen: list[Any] = []

    async def consume() -> None:
        async for event in generation:
            seen.append(event)

    task = asyncio.create_task(consume())
    for _ in range(12_000):  # until the request is at the server: it waits for a token
        if server.requests:
            break
        await asyncio.sleep(0.005)
    state["now"] = "loading"
    await task
    assert stages(seen) == [Stage.UNDERSTANDING, Stage.LOADING, Stage.ANSWERING]
    assert generation.cold
    # The model was loading all along: the stage under way becomes the load, from its start.
    first, relabelled = (e for e in seen if isinstance(e, StageChanged) and e.stage != "answering")
    loading, answering = generation.timeline.stages
    assert (loading.name, answering.name) == ("loading", "answering")
    assert loading.start_ns == first.at_ns == relabelled.at_ns


async def test_progress_on_a_warm_model_changes_nothing(db: Database) -> None:
    server = ScriptedServer("openai")
    server.add(prompt_progress(0), prompt_progress(400), sse_token("Hi"), sse_done())
    session = session_on(server, db, {"now": "warm"})
    generation = session.generate(None, "Hello")
    events = [event async for event in generation]
    assert stages(events) == [Stage.UNDERSTANDING, Stage.ANSWERING]
    assert not generation.cold
    assert generation.timeline.prefill == Prefill(400, 400, 0, 50.0)


async def test_a_loading_model_answer_during_a_request_is_waited_out(db: Database) -> None:
    """llama-server opens its port before its model is loaded and answers 503 "Loading
    model" meanwhile (the lab's starts_loading: the load begins with this request). The
    request is the loading stage ("Loading the model…"), asked again until the server
    takes it, then read and answered: not a failure."""
    from client.backends import backend_for
    from client.lab import run_in_thread, scenario_from_dict
    from client.services.chat.session_events import Outcome
    from client.services.chat.turn_state import StateChanged, TurnState

    settings = {"ttft": 5, "tpot_ms": 1, "output_tokens": 6, "seed": 1, "server": "llamacpp"}
    lab = run_in_thread(scenario_from_dict({**settings, "starts_loading": True, "load_ms": 600}))
    try:
        backend = backend_for(lab.url, "openai")
        session = ChatSession(backend, "tachy-lab", HistoryStore(db), MetricsStore(db))
        generation = session.generate(None, "Hello")
        events = [event async for event in generation]
        await backend.aclose()
    finally:
        lab.stop()
    assert generation.finished is not None
    assert generation.finished.outcome is Outcome.COMPLETE, generation.finished.error_message
    said = [e.state for e in events if isinstance(e, StateChanged)]
    assert TurnState.LOADING in said and TurnState.FAILED not in said
    assert said.index(TurnState.LOADING) < said.index(TurnState.ANSWERING)
    assert Stage.LOADING in stages(events)
    assert generation.cold and generation.finished.text
    assert generation.timeline.stages[0].name == "loading"


async def test_a_model_that_never_finishes_loading_fails_in_the_first_token_s_time(
    db: Database,
) -> None:
    from client.backends import backend_for
    from client.lab import run_in_thread, scenario_from_dict
    from client.services.chat.session_events import Outcome

    settings = {"ttft": 5, "tpot_ms": 1, "output_tokens": 6, "seed": 1, "server": "llamacpp"}
    lab = run_in_thread(scenario_from_dict({**settings, "starts_loading": True, "load_ms": 60_000}))
    try:
        backend = backend_for(lab.url, "openai")
        session = ChatSession(backend, "tachy-lab", HistoryStore(db), MetricsStore(db))
        session.configure(first_token_timeout_s=0.6)
        generation = session.generate(None, "Hello")
        events = [event async for event in generation]
        await backend.aclose()
    finally:
        lab.stop()
    assert Stage.LOADING in stages(events)
    assert generation.finished is not None and generation.finished.outcome is Outcome.FAILED
    assert "still loading its model after" in generation.finished.error_message
