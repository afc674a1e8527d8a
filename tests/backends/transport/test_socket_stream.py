"""The asyncio sockets under httpx: reads return at once what has arrived, waits end in
httpcore's own errors, and every client Tachy makes uses them."""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import httpcore
import httpx
import pytest

from client.backends.http_json import new_client
from client.backends.transport import socket_stream
from client.backends.transport.socket_stream import AsyncioBackend, AsyncioStream


class Server:
    """A loopback server whose side of each connection the test drives by hand."""

    def __init__(self) -> None:
        self.writers: asyncio.Queue[asyncio.StreamWriter] = asyncio.Queue()
        self.port = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self.writers.put(writer)
        await reader.read()  # until the client closes

    async def connect(self) -> tuple[AsyncioStream, asyncio.StreamWriter]:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", self.port, timeout=5)
        assert isinstance(stream, AsyncioStream)
        return stream, await self.writers.get()


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    state = Server()
    listening = await asyncio.start_server(state.handle, "127.0.0.1", 0)
    state.port = listening.sockets[0].getsockname()[1]
    async with listening:
        yield state
        listening.close()


def at_once(awaitable: Awaitable[Any]) -> Any:
    """The result of a coroutine that must finish without waiting for the loop."""
    coroutine = awaitable.__await__()
    with pytest.raises(StopIteration) as finished:
        coroutine.send(None)
    return finished.value.value


async def until_buffered(stream: AsyncioStream, size: int) -> None:
    """Until `size` bytes have arrived and wait unread."""
    protocol, arrived = stream._protocol, asyncio.Event()
    receive = protocol.data_received

    def received(data: bytes) -> None:
        receive(data)
        if protocol.buffered >= size:
            arrived.set()

    protocol.data_received = received  # type: ignore[method-assign]
    if protocol.buffered < size:
        await asyncio.wait_for(arrived.wait(), 60)
    protocol.data_received = receive  # type: ignore[method-assign]


async def test_what_has_arrived_is_read_without_a_turn_of_the_loop(server: Server) -> None:
    stream, peer = await server.connect()
    peer.write(b"data: one\n\n")
    await until_buffered(stream, 11)
    assert at_once(stream.read(65536)) == b"data: one\n\n"
    peer.write(b"0123456789")
    await until_buffered(stream, 10)
    assert at_once(stream.read(4)) == b"0123"  # a read takes at most max_bytes
    assert at_once(stream.read(65536)) == b"456789"
    await stream.aclose()


async def test_a_read_waits_for_the_next_bytes(server: Server) -> None:
    stream, peer = await server.connect()
    reading = asyncio.ensure_future(stream.read(65536))
    await asyncio.sleep(0.01)
    assert not reading.done()
    peer.write(b"late")
    assert await asyncio.wait_for(reading, 60) == b"late"
    await stream.aclose()


async def test_the_end_of_the_stream_reads_empty(server: Server) -> None:
    stream, peer = await server.connect()
    peer.write(b"last")
    peer.close()
    assert await stream.read(65536) == b"last"
    assert await asyncio.wait_for(stream.read(65536), 60) == b""
    assert stream.get_extra_info("is_readable")  # a pooled connection that is gone


async def test_a_reset_connection_is_a_read_error(server: Server) -> None:
    stream, peer = await server.connect()
    sock = peer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    peer.transport.abort()  # linger 0: an RST, not a FIN
    with pytest.raises(httpcore.ReadError):
        await asyncio.wait_for(stream.read(65536), 60)


async def test_a_read_past_its_timeout_is_a_read_timeout(server: Server) -> None:
    stream, _peer = await server.connect()
    with pytest.raises(httpcore.ReadTimeout):
        await stream.read(65536, timeout=0.01)
    await stream.aclose()


async def test_writing_to_a_closed_connection_is_a_write_error(server: Server) -> None:
    stream, _peer = await server.connect()
    await stream.aclose()
    with pytest.raises(httpcore.WriteError):
        await stream.write(b"GET / HTTP/1.1\r\n\r\n")


async def test_a_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(httpcore.ConnectError):
        await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)


async def test_a_fast_sender_is_paused_until_the_reader_catches_up(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(socket_stream, "READ_BUFFER_LIMIT", 4096)
    stream, peer = await server.connect()
    peer.write(b"x" * 65536)
    await until_buffered(stream, 4097)
    assert stream._transport.is_reading() is False
    received = b""
    while len(received) < 65536:
        received += await asyncio.wait_for(stream.read(65536), 60)
    assert received == b"x" * 65536 and stream._transport.is_reading()
    await stream.aclose()


async def test_every_client_tachy_makes_reads_with_it(server: Server) -> None:
    async with new_client() as client:
        pool = client._transport._inner._pool  # type: ignore[attr-defined]
        assert isinstance(pool._network_backend, AsyncioBackend)


async def test_an_http_answer_streams_through_it() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for part in (b"one ", b"two ", b"three"):
            writer.write(b"%x\r\n%s\r\n" % (len(part), part))
            await writer.drain()
            await asyncio.sleep(0.005)
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    listening = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    async with listening, new_client() as client:
        async with client.stream("GET", f"http://127.0.0.1:{port}/") as response:
            parts = [part async for part in response.aiter_raw()]
    assert b"".join(parts) == b"one two three" and len(parts) >= 2
    async with new_client() as client:  # nothing listens there now
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://127.0.0.1:{port}/")


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, made by the openssl command."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    command = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    command += ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
    subprocess.run(
        [*command, "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    return cert, key


async def test_an_https_answer_streams_through_it(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for part in (b"secret ", b"words"):
            writer.write(b"%x\r\n%s\r\n" % (len(part), part))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    listening = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=served)
    port = listening.sockets[0].getsockname()[1]
    trusted = ssl.create_default_context(cafile=str(cert))
    pool = httpcore.AsyncConnectionPool(ssl_context=trusted, network_backend=AsyncioBackend())
    async with listening, pool:
        async with pool.stream("GET", f"https://127.0.0.1:{port}/") as response:
            body = b"".join([part async for part in response.aiter_stream()])
            tls = response.extensions["network_stream"].get_extra_info("ssl_object")
    assert response.status == 200 and body == b"secret words" and tls is not None
    untrusting = httpcore.AsyncConnectionPool(
        ssl_context=ssl.create_default_context(), network_backend=AsyncioBackend()
    )
    listening = await asyncio.start_server(answer, "127.0.0.1", port, ssl=served)
    async with listening, untrusting:
        with pytest.raises(httpcore.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await untrusting.request("GET", f"https://127.0.0.1:{port}/")


async def test_bytes_read_carry_the_time_they_arrived(server: Server) -> None:
    stream, peer = await server.connect()
    peer.write(b"early")
    await until_buffered(stream, 5)
    await asyncio.sleep(0.05)
    peer.write(b"late")
    await until_buffered(stream, 9)
    assert stream.get_extra_info(socket_stream.RECEIVED_NS) is None  # nothing read yet
    assert at_once(stream.read(3)) == b"ear"
    early = stream.get_extra_info(socket_stream.RECEIVED_NS)
    assert at_once(stream.read(65536)) == b"ly"  # the rest of the same arrival
    assert stream.get_extra_info(socket_stream.RECEIVED_NS) == early
    assert at_once(stream.read(65536)) == b"late"
    late = stream.get_extra_info(socket_stream.RECEIVED_NS)
    assert (late - early) / 1e6 > 40  # the 50 ms between them, not the reads' moment
    await stream.aclose()


@pytest.mark.skipif(socket_stream._KERNEL_STAMPS is None, reason="kernel receive times are Linux's")
async def test_bytes_that_arrived_while_the_loop_was_busy_carry_their_arrival(
    server: Server,
) -> None:
    """Fifty streams keep the loop busy: bytes that reach the machine meanwhile wait for
    the loop turn that reads them. Their stamp is the kernel's receive time, not that
    turn's (here 100 ms later)."""
    stream, peer = await server.connect()
    peer.write(b"token")  # handed to the kernel at once: the send buffer is empty
    sent = time.perf_counter_ns()
    time.sleep(0.1)  # noqa: ASYNC251 (the loop is busy elsewhere)
    await until_buffered(stream, 5)
    assert at_once(stream.read(65536)) == b"token"
    arrived = stream.get_extra_info(socket_stream.RECEIVED_NS)
    assert abs(arrived - sent) / 1e6 < 20
    await stream.aclose()
