"""The question sent on Enter goes to the llama.cpp slot of the last type-ahead read
when that read is its start on the same server and model (TypeAhead.slot_for, asked by
TurnSteps as the session's slot hint); only llama.cpp's body says the slot. On the real
local engine, the sent request finds the read's tokens in that slot."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any, cast

import pytest

from client.backends import OpenAICompatBackend
from client.backends.base import Backend
from client.backends.kinds.registry import KINDS
from client.core.conversation import ChatMessage, ChatRequest
from client.services.chat.session import ChatSession
from client.services.chat.turn_steps import TurnAsk, TurnKind
from client.services.warming.type_ahead import READ_SLOT, SentRead, TypeAhead, read_figures
from client.store.conversations.history import HistoryStore
from client.store.db import Database

MODEL = "smol"
DRAFT = "Explain how a prompt cache works, step by"
QUESTION = DRAFT + " step, with an example."
WELL_INTO = 120  # tokens the engine computed of the read before Enter


class FakeBackend:
    """Only what the hint looks at (no read is made)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url


def at(base_url: str) -> Backend:
    return cast(Backend, FakeBackend(base_url))


def asked(text: str, model: str = MODEL, before: tuple[str, ...] = ()) -> ChatRequest:
    history = [ChatMessage("user" if i % 2 == 0 else "assistant", t) for i, t in enumerate(before)]
    return ChatRequest(
        model, [ChatMessage("system", "Be brief."), *history, ChatMessage("user", text)]
    )


def read_of(request: ChatRequest, base_url: str = "http://127.0.0.1:1") -> TypeAhead:
    """A TypeAhead whose last read sent `request` (as `_read` notes it)."""
    ahead = TypeAhead()
    ahead._sent = SentRead(base_url, request.model, READ_SLOT, request)
    return ahead


def test_the_hint_names_the_reads_slot_only_for_the_question_it_began() -> None:
    here, there = at("http://127.0.0.1:1"), at("http://127.0.0.1:2")
    ahead = read_of(asked(DRAFT))
    assert ahead.slot_for(here, asked(QUESTION)) == READ_SLOT  # the draft grew
    assert ahead.slot_for(here, asked(DRAFT)) == READ_SLOT  # sent as read
    assert ahead.slot_for(there, asked(QUESTION)) is None  # another server
    assert ahead.slot_for(here, asked(QUESTION, model="other")) is None  # another model
    assert ahead.slot_for(here, asked("Explain how a cache works")) is None  # edited
    assert ahead.slot_for(here, asked("What is 2 + 2?")) is None  # cleared, another one
    other = asked(QUESTION, before=("Hi", "Hello!"))
    assert ahead.slot_for(here, other) is None  # another conversation
    tools = replace(asked(QUESTION), tools=(object(),))  # type: ignore[arg-type]
    assert ahead.slot_for(here, tools) is None  # another prompt start
    ahead.forget()  # another conversation or server chosen
    assert ahead.slot_for(here, asked(QUESTION)) is None
    again = read_of(asked(DRAFT))
    again.request_finished(None)  # the question was answered: its pin is spent
    assert again.slot_for(here, asked(QUESTION)) is None
    assert TypeAhead().slot_for(here, asked(QUESTION)) is None  # nothing read
    empty = read_of(asked(""))
    assert empty.slot_for(here, asked(QUESTION)) is None  # an empty read began nothing


async def test_the_session_sends_the_question_to_the_hinted_slot(db: Database) -> None:
    backend = OpenAICompatBackend("http://127.0.0.1:9")
    session = ChatSession(backend, MODEL, HistoryStore(db), server_name="Here")
    seen: list[ChatRequest] = []

    class Hint:
        def slot_for(self, backend: Any, request: ChatRequest) -> int | None:
            seen.append(request)
            return 1

    session.slot_hint = Hint()
    generation = session._generation(_ask(QUESTION))
    steps = generation._steps
    chosen = await steps.decide_route(generation.ask)
    turn = await db.run(steps.store_question, generation.ask, chosen)
    outgoing = await steps.plan(turn, None, chosen)
    assert outgoing.request.slot == 1
    assert seen and seen[0].messages[-1].content == QUESTION
    session.slot_hint = None  # no hint: the server picks
    generation = session._generation(_ask(QUESTION))
    turn = await db.run(generation._steps.store_question, generation.ask, chosen)
    assert (await generation._steps.plan(turn, None, chosen)).request.slot is None
    await backend.aclose()


def _ask(question: str) -> TurnAsk:
    return TurnAsk(TurnKind.ASK, None, question=question)


def test_only_llamacpps_body_carries_the_slot() -> None:
    request = replace(asked(QUESTION), slot=1)
    for kind in KINDS:
        body = kind.body(request)
        if kind.name == "llamacpp":
            assert body["id_slot"] == 1
            assert "id_slot" not in kind.body(asked(QUESTION))
        else:
            assert "id_slot" not in body and "slot" not in body, kind.name


@pytest.mark.engine
@pytest.mark.timeout(600)
async def test_on_the_engine_the_question_lands_in_the_reads_slot(local_engine: Any) -> None:
    """A read cancelled mid-prefill at Enter: the question, pinned to the read's slot,
    finds the read's tokens cached there (without the pin the server may give it the
    other, idle slot, which holds none of them)."""
    backend = OpenAICompatBackend(local_engine.url)
    model = local_engine.model
    stamp = str(time.time_ns())  # nothing of it is in any prompt cache
    draft = stamp + " " + " ".join(["river stone light green window"] * 60)
    question = ChatRequest(model, [ChatMessage("user", draft + " and paper?")])
    progress = asyncio.Event()
    processed: list[int] = []  # the read's progress, its cached start included

    def on_change() -> None:
        under_way = ahead._progress
        if under_way is not None and under_way[1].computed >= WELL_INTO:
            processed.append(under_way[1].processed)
            progress.set()

    ahead = TypeAhead(on_change=on_change)
    try:
        await backend.list_models()  # learns llama.cpp: progress chunks are asked for
        ahead.read(backend, ChatRequest(model, [ChatMessage("user", draft)]), draft)
        await asyncio.wait_for(progress.wait(), 300)  # well into the read
        ahead.request_started()  # Enter: the read is cancelled
        slot = ahead.slot_for(backend, question)
        assert slot == READ_SLOT
        sent = replace(question, options=replace(question.options, max_tokens=2), slot=slot)
        async with backend.chat(sent) as stream:
            async for _event in stream:
                pass
        figures = read_figures(stream.metrics())
    finally:
        await ahead.aclose()
        await backend.aclose()
    # The other slot holds at most the template's start (a few dozen tokens).
    assert figures.cached is not None and figures.cached >= processed[0], (figures, processed)
