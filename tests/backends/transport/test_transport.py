"""The resending transport: a request that met a connection closed before any reply is
sent again on a fresh connection, a bounded number of times."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from client.backends.engine.local_engine import LocalEngine
from client.backends.http_json import new_client
from client.backends.transport.transport import RESENDS, ResendingTransport

REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"


class ClosingServer:
    """Answers on loopback, but hangs up unanswered on the first `drops` connections."""

    def __init__(self, drops: int) -> None:
        self.drops = drops
        self.connections = 0
        self.url = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        await reader.readuntil(b"\r\n\r\n")
        if self.connections > self.drops:
            writer.write(REPLY)
            await writer.drain()
        writer.close()
        await writer.wait_closed()


async def serving(drops: int) -> AsyncIterator[ClosingServer]:
    state = ClosingServer(drops)
    server = await asyncio.start_server(state.handle, "127.0.0.1", 0)
    state.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/"
    async with server:
        yield state


@pytest.fixture
async def drops_one() -> AsyncIterator[ClosingServer]:
    async for state in serving(1):
        yield state


@pytest.fixture
async def drops_all() -> AsyncIterator[ClosingServer]:
    async for state in serving(1000):
        yield state


async def test_a_request_closed_unanswered_is_sent_again(drops_one: ClosingServer) -> None:
    async with httpx.AsyncClient(transport=ResendingTransport()) as client:
        answer = await client.post(drops_one.url, json={"q": 1})
    assert answer.status_code == 200 and answer.text == "ok"
    assert drops_one.connections == 2


async def test_without_it_the_same_server_fails_the_request(drops_one: ClosingServer) -> None:
    async with httpx.AsyncClient() as client:
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            await client.post(drops_one.url, json={"q": 1})


async def test_a_server_that_never_answers_fails_after_a_bounded_number(
    drops_all: ClosingServer,
) -> None:
    async with new_client() as client:
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(drops_all.url)
    assert drops_all.connections == RESENDS + 1


@pytest.mark.engine
async def test_back_to_back_streamed_replies_all_arrive(local_engine: LocalEngine) -> None:
    """llama-server sometimes closes a connection after a streamed reply though it said
    keep-alive (9 of 60 failed before this transport): every one must arrive now."""
    body = {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2, "stream": True}
    async with new_client() as client:
        for _ in range(40):
            async with client.stream(
                "POST", f"{local_engine.url}/v1/chat/completions", json=body
            ) as r:
                assert r.status_code == 200
                assert b"[DONE]" in await r.aread()
