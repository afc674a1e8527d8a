"""LinearPool: httpcore's pool with its bookkeeping pass made linear, the keep-alive
limit counted on idle connections, and a connection handed to one request at a time."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpcore
import httpx
import pytest

from client.backends.http_json import new_client
from client.backends.transport.pool import LinearPool
from client.backends.transport.socket_stream import AsyncioBackend

REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class RoundServer:
    """Answers a round of `width` requests only once all of them are in, so they are all
    queued in the client at once; counts the connections it was opened."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.connections = 0
        self.waiting = 0
        self.all_in = asyncio.Event()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                await reader.readuntil(b"\r\n\r\n")
                self.waiting += 1
                if self.waiting == self.width:
                    self.all_in.set()
                await self.all_in.wait()
                writer.write(REPLY)
                await writer.drain()
        writer.close()

    def next_round(self) -> None:
        self.waiting = 0
        self.all_in = asyncio.Event()


@contextlib.asynccontextmanager
async def serving(state: RoundServer) -> AsyncIterator[str]:
    server = await asyncio.start_server(state.handle, "127.0.0.1", 0)
    async with server:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/"


class CountingPool(LinearPool):
    passes = 0

    def _assign_requests_to_connections(self) -> list[httpcore.AsyncConnectionInterface]:
        self.passes += 1
        return super()._assign_requests_to_connections()


def client_over(pool: httpcore.AsyncConnectionPool) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport()
    transport._pool = pool
    return httpx.AsyncClient(transport=transport)


def pool(cls: type[LinearPool] = LinearPool, **limits: int | None) -> LinearPool:
    limits = {"max_connections": None, "max_keepalive_connections": None, **limits}
    return cls(network_backend=AsyncioBackend(), keepalive_expiry=5.0, **limits)


async def test_a_round_of_fifty_costs_two_passes_a_request() -> None:
    """Fifty requests queued together on fifty idle connections: each takes its own, so
    the pool runs one pass as each starts and one as each ends. httpcore's pool gave the
    first idle connection to all of them; all but one failed on it and were queued again
    (461 passes for the second round here)."""
    state = RoundServer(width=50)
    counting = pool(CountingPool)
    async with serving(state) as url, client_over(counting) as client:
        for _ in range(2):
            state.next_round()
            before = counting.passes
            answers = await asyncio.wait_for(
                asyncio.gather(*(client.get(url) for _ in range(50))), 60
            )
            assert [a.text for a in answers] == ["ok"] * 50
            assert counting.passes - before <= 2 * 50 + 2
    assert state.connections == 50


async def test_the_keepalive_limit_counts_idle_connections_only() -> None:
    """Four answers open, a limit of two kept alive: the first two to finish stay open
    for reuse. httpcore's pool counted all four connections against the limit and closed
    each of the first two as it finished."""
    state = RoundServer(width=1)
    limited = pool(max_keepalive_connections=2)
    state.all_in.set()
    async with serving(state) as url, client_over(limited) as client:
        async with contextlib.AsyncExitStack() as stack:
            streams = [await stack.enter_async_context(client.stream("GET", url)) for _ in range(4)]
            open_after = []
            for stream in streams:
                await stream.aread()
                open_after.append(len(limited.connections))
        assert open_after == [4, 4, 3, 2]


async def test_at_its_limit_the_pool_replaces_an_idle_connection() -> None:
    """Two connections at most, both idle on one server: a request to another server
    closes one of them and opens its own, rather than waiting for ever."""
    first, second = RoundServer(width=1), RoundServer(width=1)
    first.all_in.set()
    second.all_in.set()
    capped = pool(max_connections=2)
    async with serving(first) as url, serving(second) as other, client_over(capped) as client:
        async with client.stream("GET", url) as one, client.stream("GET", url) as two:
            await one.aread()
            await two.aread()
        assert len(capped.connections) == 2
        answer = await asyncio.wait_for(client.get(other), 60)
        assert answer.text == "ok"
        assert len(capped.connections) == 2
    assert (first.connections, second.connections) == (2, 1)


async def test_a_wide_load_is_in_flight_at_once_and_keeps_its_connections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`tachy bench --concurrency 110`: all 110 requests reach the server together
    (httpx's default pool let 100 through and held the rest inside the client), and the
    next round reuses every connection (the default kept 20 and opened the others again,
    work that fell between the other streams' tokens)."""
    # Idle ones close after 5 s: on a busy machine, the first answers of a round of 110
    # can wait that long for the last.
    monkeypatch.setattr("client.backends.transport.transport.KEEPALIVE_S", 600.0)
    state = RoundServer(width=110)
    async with serving(state) as url, new_client() as client:
        for _ in range(2):
            state.next_round()
            answers = await asyncio.wait_for(
                asyncio.gather(*(client.get(url) for _ in range(110))), 60
            )
            assert [answer.text for answer in answers] == ["ok"] * 110
    assert state.connections == 110
