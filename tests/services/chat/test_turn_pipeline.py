"""The turn as one pipeline (client/services/chat/turn_steps.py, generation.py): typed
steps in order, the request built once, one opener chosen from the plan, the model
call's typed end, and the root's events published on the way."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest

from client.core.events import Done
from client.services.chat import turn_store
from client.services.chat.model_call import AnswerEnded
from client.services.chat.session import ChatSession
from client.services.chat.stream_opener import PlainOpener, opener_for
from client.services.chat.turn_state import StateChanged, TurnState
from client.services.events import AnswerFinished, EventBus, TurnStarted
from client.services.planning.planner import RequestPlan
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from tests.services.scripted_server import MODEL, ScriptedServer, ollama_done, ollama_token

pytestmark = pytest.mark.timeout(120)


def _session(db: Database) -> tuple[ChatSession, ScriptedServer]:
    server = ScriptedServer().add(0.01, ollama_token("Blue"), ollama_token("."), ollama_done())
    session = ChatSession(server.backend(), MODEL, HistoryStore(db), MetricsStore(db), "scripted")
    return session, server


@contextmanager
def _modules_called() -> Iterator[set[str]]:
    """The files of every Python function called meanwhile (this thread: the loop's)."""
    called: set[str] = set()

    def note(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            called.add(frame.f_code.co_filename.replace("\\", "/"))

    sys.setprofile(note)
    try:
        yield called
    finally:
        sys.setprofile(None)


async def test_a_plain_chat_touches_no_cascade_or_fleet_code(db: Database) -> None:
    session, _server = _session(db)
    generation = session.generate(None, "Why is the sky blue?")
    with _modules_called() as called:
        async for _event in generation:
            pass
    assert generation.finished is not None and generation.finished.text == "Blue."
    passed = sorted(f for f in called if "/services/cascade/" in f or "/services/fleet/" in f)
    assert passed == []
    # (The hook saw the pipeline itself: its steps and its opener.)
    assert any(f.endswith("services/chat/turn_steps.py") for f in called)
    assert any(f.endswith("services/chat/stream_opener.py") for f in called)
    assert isinstance(opener_for(generation.plan, 10.0, 60.0), PlainOpener)  # type: ignore[arg-type]


async def test_the_request_is_built_once_and_is_what_was_sent(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[RequestPlan] = []
    request = RequestPlan.request

    def counted(plan: RequestPlan) -> Any:
        built.append(plan)
        return request(plan)

    monkeypatch.setattr(RequestPlan, "request", counted)
    session, server = _session(db)
    generation = session.generate(None, "Why is the sky blue?")
    async for _event in generation:
        pass
    assert len(built) == 1
    assert generation.request is not None
    assert server.requests[0]["messages"] == [
        {"role": m.role, "content": m.content} for m in generation.request.messages
    ]


async def test_one_model_call_ends_the_turn_without_tools(db: Database) -> None:
    session, _server = _session(db)
    generation = session.generate(None, "Why is the sky blue?")
    async for _event in generation:
        pass
    [call] = generation.model_calls
    assert isinstance(call, AnswerEnded) and isinstance(call.outcome, Done)


async def test_the_turn_publishes_on_the_root_s_bus(db: Database) -> None:
    session, _server = _session(db)
    heard: list[object] = []
    bus = session.events = EventBus()
    for kind in (TurnStarted, StateChanged, AnswerFinished):
        bus.subscribe(kind, heard.append)
    generation = session.generate(None, "Why is the sky blue?")
    async for _event in generation:
        pass
    started = TurnStarted("ask", "Why is the sky blue?", MODEL, "scripted", generation.timeline)
    assert heard[0] == started
    states = [e.state for e in heard if isinstance(e, StateChanged)]
    assert states[-2:] == [TurnState.ANSWERING, TurnState.DONE]
    finished = heard[-1]
    assert isinstance(finished, AnswerFinished)
    assert finished.outcome == "complete" and finished.route == generation.route
    assert finished.metrics.ttft_ms is not None and finished.server_answered


async def test_a_subscriber_that_fails_never_stops_the_turn(db: Database) -> None:
    session, _server = _session(db)
    bus = session.events = EventBus()

    def broken(_event: object) -> None:
        raise RuntimeError("a policy's bug")

    bus.subscribe(AnswerFinished, broken)
    generation = session.generate(None, "Why is the sky blue?")
    async for _event in generation:
        pass
    assert generation.finished is not None and generation.finished.text == "Blue."


async def test_an_edit_s_question_flows_forward_like_an_ask_s(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, server = _session(db)
    server.add(0.01, ollama_token("Red"), ollama_done())
    first = session.generate(None, "Why is the sky blue?")
    async for _event in first:
        pass
    read_back: list[int | None] = []
    read_context = turn_store.read_context

    def noted(history: HistoryStore, path: list[Any]) -> Any:
        read_back.extend(m.id for m in path)
        return read_context(history, path)

    monkeypatch.setattr(turn_store, "read_context", noted)
    assert first.user_message_id is not None
    edit = session.edit_and_resend(first.user_message_id, "Why is the sunset red?")
    async for _event in edit:
        pass
    assert edit.user_message_id is not None and edit.user_message_id not in read_back
    assert server.requests[-1]["messages"][-1]["content"] == "Why is the sunset red?"
