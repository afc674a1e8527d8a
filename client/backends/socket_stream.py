"""The sockets under httpx: plain asyncio, with a read that costs little per chunk.

httpx's default network layer (anyio over asyncio) pays on every read: a cancel scope,
an exception map, a loop turn even when the bytes are already there (its checkpoint),
and a resume/pause of the socket's reader (two epoll_ctl calls) whenever it waits.
A streamed answer reads once per chunk, so at 50 streams or 5,000 chunks a second that
was most of the client's CPU per token (tests/perf/test_stream_cpu.py). Here a read
returns at once what has arrived; only an empty buffer waits, on one future.

httpcore's network backend interface (connect, read, write, start_tls, close) is all
that is implemented; HTTP itself stays httpcore's and h11's. Its methods take
`timeout` arguments because that interface passes them.
"""

# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import ssl
import typing
from collections import deque
from collections.abc import Iterable
from functools import partial

import httpcore

SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)
# Above this much unread, the socket stops being read until the reader catches up.
READ_BUFFER_LIMIT = 1024 * 1024
HAPPY_EYEBALLS_DELAY_S = 0.25  # as anyio's connect_tcp (RFC 8305's recommendation)


class _Protocol(asyncio.Protocol):
    """What arrived on one connection, kept until it is read.

    Futures are made on the loop the connection was made on, never on "the running
    loop": under qasync, callbacks that Qt runs while `run_until_complete` processes
    events run with none set (anyio's sockets cope there too)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.chunks: deque[bytes] = deque()
        self.buffered = 0
        self.eof = False
        self.error: Exception | None = None
        self.transport: asyncio.Transport | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._paused = False  # reading, by us
        self._drained: asyncio.Future[None] | None = None  # writing, paused by the transport

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = typing.cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.buffered += len(data)
        if self.buffered > READ_BUFFER_LIMIT and not self._paused and self.transport:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def pause_writing(self) -> None:
        self._drained = self.loop.create_future()

    def resume_writing(self) -> None:
        drained, self._drained = self._drained, None
        if drained is not None and not drained.done():
            drained.set_result(None)

    def take(self, max_bytes: int) -> bytes:
        data = self.chunks.popleft()
        if len(data) > max_bytes:
            data, rest = data[:max_bytes], data[max_bytes:]
            self.chunks.appendleft(rest)
        self.buffered -= len(data)
        if self._paused and self.buffered <= READ_BUFFER_LIMIT // 2 and self.transport:
            self._paused = False
            self.transport.resume_reading()
        return data

    def waiter(self) -> asyncio.Future[None]:
        self._waiter = self.loop.create_future()
        return self._waiter

    def drained(self) -> asyncio.Future[None] | None:
        return self._drained

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class AsyncioStream(httpcore.AsyncNetworkStream):
    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.chunks:  # the common case skips this: the bytes are there
            await self._wait(timeout)
            if not protocol.chunks:
                return b""  # the end of the stream
        if asyncio._get_running_loop() is None:
            # qasync runs a last round of Qt events after run_until_complete with no
            # loop set; httpcore's anyio locks taken after this read would then be left
            # held. The read fails instead, as anyio's own read fails there.
            raise httpcore.ReadError("no running event loop")
        return protocol.take(max_bytes)

    async def _wait(self, timeout: float | None) -> None:
        protocol = self._protocol
        while not protocol.chunks:
            if protocol.eof:
                if protocol.error is not None:
                    raise httpcore.ReadError(str(protocol.error) or type(protocol.error).__name__)
                return
            await _within(protocol.loop, protocol.waiter(), timeout, httpcore.ReadTimeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        self._transport.write(buffer)
        drained = self._protocol.drained()
        if drained is not None:
            waiter = self._protocol.loop.create_future()
            drained.add_done_callback(lambda _: _done(waiter))
            await _within(self._protocol.loop, waiter, timeout, httpcore.WriteTimeout)

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = self._protocol.loop
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport, self._protocol, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError as error:
            self._transport.abort()
            raise httpcore.ConnectTimeout(str(error)) from error
        except (OSError, ssl.SSLError) as error:
            self._transport.abort()
            raise httpcore.ConnectError(str(error) or type(error).__name__) from error
        assert transport is not None
        self._protocol.transport = typing.cast(asyncio.Transport, transport)
        return AsyncioStream(self._protocol.transport, self._protocol)

    def get_extra_info(self, info: str) -> typing.Any:
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        if info == "is_readable":  # an idle kept-alive connection the server closed
            protocol = self._protocol
            return bool(protocol.chunks) or protocol.eof or self._transport.is_closing()
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address else None
        return await _connected(
            loop.create_connection(
                partial(_Protocol, loop),
                host,
                port,
                local_addr=local,
                happy_eyeballs_delay=HAPPY_EYEBALLS_DELAY_S,
            ),
            timeout,
            socket_options,
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        connecting = loop.create_unix_connection(partial(_Protocol, loop), path)
        return await _connected(connecting, timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connected(
    connecting: typing.Awaitable[tuple[asyncio.BaseTransport, _Protocol]],
    timeout: float | None,
    socket_options: Iterable[SocketOption] | None,
) -> AsyncioStream:
    try:
        async with asyncio.timeout(timeout):
            transport, protocol = await connecting
    except TimeoutError as error:
        raise httpcore.ConnectTimeout(str(error)) from error
    except OSError as error:
        raise httpcore.ConnectError(str(error) or type(error).__name__) from error
    sock = transport.get_extra_info("socket")
    for option in socket_options or ():
        sock.setsockopt(*option)
    return AsyncioStream(typing.cast(asyncio.Transport, transport), protocol)


async def _within(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[None],
    timeout: float | None,
    error: type[Exception],
) -> None:
    if timeout is None:
        await future
        return
    timer = loop.call_later(timeout, _time_out, future, error)
    try:
        await future
    finally:
        timer.cancel()


def _done(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _time_out(future: asyncio.Future[None], error: type[Exception]) -> None:
    if not future.done():
        future.set_exception(error("timed out"))
