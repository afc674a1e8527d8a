"""A hedge between two real local engines: the losing engine stops working as after a
Stop. The first engine reads a long question no cache holds; the hedge goes out after
its P95 (made short) to the second, whose cache holds the question, so the second gives
the first token; the first's request is closed then, and its engine goes idle (its
/slots) having done only one or two batches more. Counted in CPU work, not timed
(tests/perf/test_fleet_hedging.py times the disconnect against the lab)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from client.backends import OpenAICompatBackend, make_backend
from client.backends.base import Backend
from client.backends.engine.local_engine import LocalEngine
from client.backends.kinds.llamacpp import LLAMACPP
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Done, Token
from client.services.fleet.pool import Policy, PoolMember, ServerPool
from client.services.fleet.pool_backend import PoolBackend
from client.services.servers.servers import ServerChoice
from tests.engine_work import cpu_ticks, wait_until_idle, work_after_stop
from tests.services.fleet.test_fleet_stream import primed, until

pytestmark = pytest.mark.engine
WORDS = "river stone light green window paper music garden silver morning table winter".split()
ANSWER_TOKENS = 8


@pytest.fixture
async def second_engine() -> AsyncIterator[LocalEngine]:
    engine = LocalEngine()
    await engine.start()
    try:
        yield engine
    finally:
        await engine.stop()


def _question(tokens: int = ANSWER_TOKENS) -> ChatRequest:
    stamp = str(time.time_ns())  # a question no earlier test sent: no cache holds it
    words = " ".join(WORDS[(i * 7) % len(WORDS)] for i in range(1200))
    text = f"{stamp} {words}\n\nWhich of these words is a colour? Answer in one sentence."
    options = GenerationOptions(max_tokens=tokens, temperature=0.0)
    return ChatRequest("", [ChatMessage("user", text)], options=options)


async def _ask(backend: Backend, request: ChatRequest) -> int:
    """The prompt's tokens, once the answer ended."""
    async with backend.chat(request) as stream:
        async for _event in stream:
            pass
    assert isinstance(stream.outcome, Done), stream.outcome
    assert stream.usage is not None and stream.usage.prompt_tokens
    return stream.usage.prompt_tokens


async def _ticks_per_prompt_token(
    engine: LocalEngine, backend: Backend, request: ChatRequest
) -> float:
    """What reading the question costs the engine, from reading it once (put in its
    cache so); over-counted by its one answer token."""
    assert engine.pid is not None
    await _ask(backend, ChatRequest(engine.model, [ChatMessage("user", "Hi")]))  # set up
    await asyncio.to_thread(wait_until_idle, engine.url)
    before = cpu_ticks(engine.pid)
    one_token = ChatRequest(engine.model, request.messages, GenerationOptions(max_tokens=1))
    tokens = await _ask(backend, one_token)
    await asyncio.to_thread(wait_until_idle, engine.url)
    return (cpu_ticks(engine.pid) - before) / tokens


def _pool(winner: LocalEngine, loser: LocalEngine, backends: list[Backend]) -> PoolBackend:
    """The winner first in the user's order, the loser first in the hedge's (so only
    the pool's asking every server tells the loser's backend it is llama.cpp)."""
    members = tuple(
        PoolMember(ServerChoice(name, engine.url, "openai"))
        for name, engine in (("box 1", winner), ("box 2", loser))
    )
    pool = ServerPool("engines", members, Policy.HEDGED, winner.model)
    fleet = PoolBackend(pool, backends)
    primed(fleet, 1, 200.0)  # the loser goes first, and the hedge goes out after 200 ms
    primed(fleet, 0, 1000.0)
    return fleet


async def test_the_losing_engine_goes_idle_as_after_a_stop(
    local_engine: LocalEngine, second_engine: LocalEngine
) -> None:
    loser, winner = local_engine, second_engine
    assert loser.pid is not None
    # As the app makes them: llama.cpp is asked for its prompt progress.
    made = [await make_backend(e.url, "openai") for e in (winner, loser)]
    backends: list[Backend] = list(made)
    request = _question()
    fleet = _pool(winner, loser, backends)
    try:
        await fleet.list_models()  # as the app asks when the pool is chosen
        await until(
            lambda: all(isinstance(b, OpenAICompatBackend) and b.kind is LLAMACPP for b in made)
        )
        per_token = await _ticks_per_prompt_token(winner, backends[0], request)
        await asyncio.to_thread(wait_until_idle, loser.url)
        before = cpu_ticks(loser.pid)
        cut_at = 0
        async with fleet.answer(request) as stream:
            async for event in stream:
                if isinstance(event, Token) and not cut_at:
                    cut_at = cpu_ticks(loser.pid)  # the first token: the loser is closed
            first = stream.attempts[0].stream.timeline.prefill  # the loser's (sent first)
        assert isinstance(stream.outcome, Done)
        assert stream.winner is not None and stream.winner_name == "box 1"
        assert stream.hedged and stream.sent == 2
    finally:
        await fleet.aclose()
        for backend in backends:
            await backend.aclose()
    after = await asyncio.to_thread(work_after_stop, loser.pid, loser.url, cut_at)
    total = first.total if first is not None else 0
    read = first.processed if first is not None else 0
    rest = per_token * (total - read)
    print(f"\nloser: {after} ticks after the cut; the rest of its question ~{rest:.0f} ticks")
    assert first is not None, "the losing engine never said it was reading"
    assert cut_at > before, "the losing engine was not working"
    assert after < rest / 2, "the losing engine read on after the winner's first token"
