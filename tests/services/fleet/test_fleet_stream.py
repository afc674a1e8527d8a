"""A pool's answer against lab servers: failover, least-loaded, hedged, and which
server gave it. Waits for events, never for time; asserts no speed."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from client.backends import backend_for
from client.backends.base import Backend
from client.core.conversation import ChatMessage, ChatRequest
from client.core.events import Done, Failed, StreamEvent, Token, Usage
from client.lab import LabServer, scenario_from_dict
from client.services.fleet.fleet_stream import FleetStream
from client.services.fleet.pool import Policy, PoolMember, ServerPool
from client.services.fleet.pool_backend import PoolBackend
from client.services.hud.server_load import ServerLoads
from client.services.servers.servers import ServerChoice

DIALS: dict[str, Any] = {"ttft": 20, "tpot_ms": 2, "output_tokens": 6}
STALL = {"fault": {"kind": "stall", "after_tokens": 0, "seconds": 30}}


async def until(condition: Callable[[], object], timeout_s: float = 60.0) -> None:
    """A safety net only: returns as soon as the condition holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not condition():
        assert loop.time() < deadline, "the condition never held"
        await asyncio.sleep(0.01)


def refused_url() -> str:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def request() -> ChatRequest:
    return ChatRequest("tachy-lab", [ChatMessage("user", "Hi")])


def pool_of(
    urls: list[str], policy: Policy, read_loads: bool = False, **kwargs: Any
) -> PoolBackend:
    members = tuple(
        PoolMember(ServerChoice(f"server {i + 1}", url, "openai")) for i, url in enumerate(urls)
    )
    pool = ServerPool("test pool", members, policy, "tachy-lab", **kwargs)
    backends: list[Backend] = [backend_for(url, "openai") for url in urls]
    return PoolBackend(pool, backends, ServerLoads(pool) if read_loads else None)


async def read_all(stream: FleetStream) -> list[StreamEvent]:
    async with stream:
        return [event async for event in stream]


@pytest.fixture
async def labs() -> AsyncIterator[Callable[..., Any]]:
    started: list[LabServer] = []

    async def start(**dials: Any) -> tuple[LabServer, str]:
        lab = LabServer(scenario_from_dict({**DIALS, **dials}))
        started.append(lab)
        return lab, await lab.start()

    yield start
    for lab in started:
        await lab.stop()


async def close(fleet: PoolBackend) -> None:
    await fleet.aclose()
    for backend in fleet.backends:
        await backend.aclose()


async def test_failover_past_a_refused_server(labs: Callable[..., Any]) -> None:
    lab, url = await labs()
    fleet = pool_of([refused_url(), url], Policy.FAILOVER)
    try:
        stream = fleet.answer(request())
        events = await read_all(stream)
    finally:
        await close(fleet)
    assert isinstance(events[-1], Done) and not any(isinstance(e, Failed) for e in events)
    assert stream.winner_name == "server 2" and stream.sent == 2
    assert [f.failures for f in fleet.book.figures()] == [1, 0]
    assert stream.text and lab.stats.completed == 1


async def test_failover_past_a_503(labs: Callable[..., Any]) -> None:
    busy, busy_url = await labs(fault={"kind": "http_error", "status": 503})
    lab, url = await labs()
    fleet = pool_of([busy_url, url], Policy.FAILOVER)
    try:
        stream = fleet.answer(request())
        events = await read_all(stream)
        assert stream.winner_name == "server 2"
        assert busy.stats.requests == 1 and lab.stats.completed == 1
        assert isinstance(events[-1], Done)
        # The failed server is tried last while it is unhealthy: the next goes to server 2.
        again = fleet.answer(request())
        await read_all(again)
    finally:
        await close(fleet)
    assert again.sent == 1 and again.winner_name == "server 2" and busy.stats.requests == 1


async def test_every_server_failing_ends_with_the_last_failure(labs: Callable[..., Any]) -> None:
    _, busy_url = await labs(fault={"kind": "http_error", "status": 503})
    fleet = pool_of([refused_url(), busy_url], Policy.FAILOVER)
    try:
        stream = fleet.answer(request())
        events = await read_all(stream)
    finally:
        await close(fleet)
    assert isinstance(events[-1], Failed) and stream.winner is None and stream.sent == 2
    assert "503" in events[-1].message or "busy" in events[-1].message.lower()


async def test_least_loaded_picks_the_idle_server(labs: Callable[..., Any]) -> None:
    busy, busy_url = await labs(output_tokens=2000, tpot_ms=20)
    idle, idle_url = await labs()
    other = backend_for(busy_url, "openai")
    readers = [asyncio.ensure_future(read_plain(other)) for _ in range(2)]
    fleet = pool_of([busy_url, idle_url], Policy.LEAST_LOADED, read_loads=True)
    try:
        await until(lambda: busy.state.scheduler.running == 2)
        # The servers' figures read before the pick: its own wait for a first reading is
        # bounded (loads.READ_WAIT_S, 0.3 s), a busy machine can take longer, and then
        # the pick goes by the pool's order, to the busy server.
        await until_read(fleet, [2.0, 0.0])
        stream = fleet.answer(request())
        await read_all(stream)
    finally:
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        await other.aclose()
        await close(fleet)
    assert stream.winner_name == "server 2" and stream.sent == 1
    assert busy.stats.requests == 2 and idle.stats.completed == 1


async def test_least_loaded_counts_its_own_requests_in_flight(labs: Callable[..., Any]) -> None:
    first, first_url = await labs(output_tokens=2000, tpot_ms=20)
    _, second_url = await labs()
    fleet = pool_of([first_url, second_url], Policy.LEAST_LOADED)  # no server figures
    held = fleet.answer(request())
    reading = asyncio.ensure_future(read_all(held))
    try:
        await until(lambda: first.state.scheduler.running == 1)
        stream = fleet.answer(request())
        await read_all(stream)
    finally:
        reading.cancel()
        await asyncio.gather(reading, return_exceptions=True)
        await close(fleet)
    assert held.winner_name == "server 1" and stream.winner_name == "server 2"


async def until_read(fleet: PoolBackend, loads: list[float], timeout_s: float = 60.0) -> None:
    """Until the pool's board has read each server's load as `loads` (a safety net only)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while (read := await fleet.loads.reported(list(range(len(loads))))) != loads:
        assert asyncio.get_running_loop().time() < deadline, f"the loads read {read}"
        await asyncio.sleep(0.01)


async def read_plain(backend: Backend) -> None:
    async with backend.chat(request()) as stream:
        async for _ in stream:
            pass


def primed(fleet: PoolBackend, member: int, ms: float, n: int = 20) -> None:
    for _ in range(n):
        fleet.book.first_token(member, ms)


async def test_hedge_goes_out_after_the_p95_and_closes_the_loser(
    labs: Callable[..., Any],
) -> None:
    slow, slow_url = await labs(**STALL)
    fast, fast_url = await labs()
    fleet = pool_of([slow_url, fast_url], Policy.HEDGED)
    primed(fleet, 0, 40.0)  # server 1 looks best, with a P95 of 40 ms
    primed(fleet, 1, 60.0)
    try:
        stream = fleet.answer(request())
        events = await read_all(stream)
        await until(lambda: slow.stats.left_at_ns)  # the lab saw the loser leave
    finally:
        await close(fleet)
    first, second = stream.attempts
    assert (first.member, second.member) == (0, 1) and second.hedge and stream.hedged
    assert second.launched_ns - first.launched_ns >= 40e6  # not before the first's P95
    assert stream.winner_name == "server 2" and isinstance(events[-1], Done)
    assert slow.stats.completed == 0 and fast.stats.completed == 1
    assert [f.wins for f in fleet.book.figures()] == [0, 1]
    first_token = next(e for e in events if isinstance(e, Token))
    assert stream.text.startswith(first_token.text)


async def test_a_hedge_that_stalls_too_is_hedged_in_turn(labs: Callable[..., Any]) -> None:
    first, first_url = await labs(**STALL)
    second, second_url = await labs(**STALL)
    _, third_url = await labs()
    fleet = pool_of([first_url, second_url, third_url], Policy.HEDGED)
    for member, ms in enumerate((20.0, 30.0, 40.0)):
        primed(fleet, member, ms)
    try:
        stream = fleet.answer(request())
        events = await read_all(stream)
        await until(lambda: first.stats.left_at_ns and second.stats.left_at_ns)
    finally:
        await close(fleet)
    assert [a.member for a in stream.attempts] == [0, 1, 2] and stream.sent == 3
    _, two, three = stream.attempts
    assert three.launched_ns - two.launched_ns >= 30e6  # after the second's own P95
    assert stream.winner_name == "server 3" and isinstance(events[-1], Done)
    assert fleet.book.hedged == 1  # one answer hedged, whatever its requests
    assert [f.wins for f in fleet.book.figures()] == [0, 0, 1]


async def test_no_hedge_when_the_first_answers_in_time(labs: Callable[..., Any]) -> None:
    _, first_url = await labs()
    second, second_url = await labs()
    fleet = pool_of([first_url, second_url], Policy.HEDGED)
    for member in (0, 1):  # P95 waits long enough for any busy machine; server 1 first
        primed(fleet, member, 60_000.0)
    try:
        stream = fleet.answer(request())
        await read_all(stream)
    finally:
        await close(fleet)
    assert stream.sent == 1 and not stream.hedged and second.stats.requests == 0


async def test_tied_hedge_counts_prompt_progress_as_started(labs: Callable[..., Any]) -> None:
    slow, slow_url = await labs(**STALL)
    # Its prompt progress comes long before its first token (9 batches over 3 s).
    _, reading_url = await labs(server="llamacpp", n_batch=1, ttft=3000)
    fleet = pool_of([slow_url, reading_url], Policy.HEDGED, tied=True)
    primed(fleet, 0, 40.0)
    primed(fleet, 1, 60.0)
    await fleet.backends[1].server_kind()  # the backend learns it is llama.cpp's
    try:
        stream = fleet.answer(request())
        events = await read_all(stream)
        await until(lambda: slow.stats.left_at_ns)
    finally:
        await close(fleet)
    assert stream.winner_name == "server 2" and isinstance(events[-1], Done)
    first_token_ns = stream.timeline.first_token_ns
    assert first_token_ns is not None and slow.stats.left_at_ns[0] < first_token_ns


async def test_stop_closes_every_request(labs: Callable[..., Any]) -> None:
    first, first_url = await labs(**STALL)
    second, second_url = await labs(**STALL)
    fleet = pool_of([first_url, second_url], Policy.HEDGED)
    primed(fleet, 0, 10.0)
    primed(fleet, 1, 20.0)
    stream = fleet.answer(request())
    task = asyncio.ensure_future(read_all(stream))
    try:
        await until(lambda: first.stats.requests == 1 and second.stats.requests == 1)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await until(lambda: len(first.stats.left_at_ns) == 1 and len(second.stats.left_at_ns) == 1)
    finally:
        await close(fleet)
    assert [f.in_flight for f in fleet.book.figures()] == [0, 0]


async def test_the_models_come_from_a_server_that_answers(labs: Callable[..., Any]) -> None:
    _, url = await labs()
    fleet = pool_of([refused_url(), url], Policy.FAILOVER)
    try:
        names = [info.name for info in await fleet.list_models()]
    finally:
        await close(fleet)
    assert "tachy-lab:latest" in names or "tachy-lab" in names


EMPTY_ANSWER = [
    {"choices": [{"index": 0, "delta": {"role": "assistant"}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}},
]


async def test_an_empty_answer_ends_with_its_usage_and_done() -> None:
    """A server that answers nothing (the end of sequence at once) sends its usage
    before its Done: both reach the reader, and the answer ends."""

    async def empty(_request: httpx.Request) -> httpx.Response:
        lines = [f"data: {json.dumps(chunk)}\n\n" for chunk in EMPTY_ANSWER]
        body = ("".join(lines) + "data: [DONE]\n\n").encode()
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    fleet = pool_of(["http://empty.test", refused_url()], Policy.FAILOVER)
    client = httpx.AsyncClient(transport=httpx.MockTransport(empty))
    fleet.backends[0] = backend_for("http://empty.test", "openai", client=client)
    try:
        stream = fleet.answer(request())
        events = await read_all(stream)
    finally:
        await close(fleet)
        await client.aclose()
    assert isinstance(events[-1], Done) and stream.winner_name == "server 1"
    assert any(isinstance(event, Usage) for event in events)
