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
import os
import platform
import socket
import ssl
import struct
import sys
import time
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
# get_extra_info(RECEIVED_NS): when the bytes last read reached this machine, on the
# time.perf_counter_ns() clock. On Linux that is the kernel's receive time of their
# packet (SO_TIMESTAMPNS); elsewhere, when they came off the socket, in the loop turn
# they arrived, before any task parsed them. Under 50 streams a stamp taken after
# parsing waits for the other streams' work in between, and one taken as they come off
# the socket waits for the loop turn that reads them.
RECEIVED_NS = "tachy_received_ns"
# Python 3.11's socket module does not name SO_TIMESTAMPNS; on Linux's x86_64 and
# aarch64 ABIs it is 35.
_KERNEL_STAMPS: int | None = getattr(
    socket,
    "SO_TIMESTAMPNS",
    35 if sys.platform == "linux" and platform.machine() in ("x86_64", "aarch64") else None,
)
_STAMP_SPACE = socket.CMSG_SPACE(16) if _KERNEL_STAMPS is not None else 0


class _StampingSocket(socket.socket):
    """A TCP socket whose reads keep the kernel's receive time of their bytes (Linux's
    SO_TIMESTAMPNS, as a control message of recvmsg). asyncio's transports read with
    recv (plain) and recv_into (TLS)."""

    received_ns: int | None = None  # time.time_ns() clock

    def recv(self, size: int, flags: int = 0) -> bytes:
        data, ancillary, _, _ = self.recvmsg(size, _STAMP_SPACE, flags)
        self._keep_stamp(ancillary)
        return data

    def recv_into(self, buffer: typing.Any, nbytes: int = 0, flags: int = 0) -> int:
        view = memoryview(buffer)[: nbytes or None]
        size, ancillary, _, _ = self.recvmsg_into([view], _STAMP_SPACE, flags)
        self._keep_stamp(ancillary)
        return size

    def _keep_stamp(self, ancillary: list[tuple[int, int, bytes]]) -> None:
        self.received_ns = None
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == _KERNEL_STAMPS:
                seconds, nanoseconds = struct.unpack("qq", payload[:16])
                self.received_ns = seconds * 1_000_000_000 + nanoseconds

    def arrival_ns(self) -> int | None:
        """When the bytes last read arrived, on the perf_counter_ns clock."""
        if self.received_ns is None:
            return None
        # The wall clock first: a pause between the two reads then makes the stamp
        # later, never earlier, than the bytes' arrival.
        since = max(time.time_ns() - self.received_ns, 0)
        return time.perf_counter_ns() - since


class _Protocol(asyncio.Protocol):
    """What arrived on one connection, kept until it is read.

    Futures are made on the loop the connection was made on, never on "the running
    loop": under qasync, callbacks that Qt runs while `run_until_complete` processes
    events run with none set (anyio's sockets cope there too)."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, sock: _StampingSocket | None = None
    ) -> None:
        self.loop = loop
        self.sock = sock
        self.chunks: deque[bytes] = deque()
        self.arrivals: deque[int] = deque()  # perf_counter_ns when each chunk arrived
        self.taken_ns: int | None = None  # when the bytes last taken arrived
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
        stamped = self.sock.arrival_ns() if self.sock is not None else None
        self.arrivals.append(time.perf_counter_ns() if stamped is None else stamped)
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
        self.taken_ns = self.arrivals.popleft()
        if len(data) > max_bytes:
            data, rest = data[:max_bytes], data[max_bytes:]
            self.chunks.appendleft(rest)
            self.arrivals.appendleft(self.taken_ns)
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
        if info == RECEIVED_NS:  # asked once per read: first
            return self._protocol.taken_ns
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
    if _KERNEL_STAMPS is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        transport, protocol = await _stamping(
            protocol.loop, typing.cast(asyncio.Transport, transport), _KERNEL_STAMPS
        )
    return AsyncioStream(typing.cast(asyncio.Transport, transport), protocol)


async def _stamping(
    loop: asyncio.AbstractEventLoop, transport: asyncio.Transport, option: int
) -> tuple[asyncio.BaseTransport, _Protocol]:
    """The connected socket again, as a _StampingSocket under a new transport.

    asyncio makes its own socket when it connects (with happy eyeballs, which is why it
    connects); the descriptor is duplicated into one whose reads keep their receive
    time, and the first transport dropped before it has read or written a byte (closing
    one of two descriptors leaves the connection open)."""
    raw = transport.get_extra_info("socket")
    sock = _StampingSocket(raw.family, raw.type, raw.proto, fileno=os.dup(raw.fileno()))
    transport.abort()
    sock.setsockopt(socket.SOL_SOCKET, option, 1)
    sock.setblocking(False)
    return await loop.create_connection(partial(_Protocol, loop, sock), sock=sock)


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
