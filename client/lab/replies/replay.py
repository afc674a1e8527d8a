"""Replay a recording (client/lab/scenarios/recording.py) byte for byte, with the recorded timing.

Each generation request gets the next recorded reply for its path (counted per
conversation when the request names one), and its chunks are written by loop.call_at
timers at arrival + the recorded offset, straight to the transport, as the scripted
player does (client/lab/replies/player.py): a late wake-up never delays the chunks after it.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from client.lab.dialects.wire import WireFormat
from client.lab.replies.player import TIMER_LEAD_S, reset_connection
from client.lab.running.state import ARRIVAL, LabState
from client.lab.scenarios.recording import Chunk, RecordedReply, Recording, pick
from client.lab.timing.sources import sleep_until


async def replay(
    request: web.Request,
    lab: LabState,
    recording: Recording,
    conversation: str | None,
    fmt: WireFormat,
) -> web.StreamResponse | None:
    """The recorded reply; None when the recording is over and `after` is "ok"."""
    loop = asyncio.get_running_loop()
    arrival = ARRIVAL.get() or loop.time()
    replies = recording.replies_for(request.path)
    if not replies:
        held = ", ".join(recording.paths())
        return fmt.error_response(404, f"this recording has no replies to {request.path} ({held})")
    index = lab.positions.next_index(f"recording {request.path}", conversation)
    reply = pick(replies, lab.scenario.after, index)
    if reply is None:
        return None
    lab.stats.requests += 1
    try:
        response = await _play(request, reply, arrival)
    except (asyncio.CancelledError, ConnectionError):
        lab.stats.disconnected += 1
        raise
    lab.stats.completed += 1
    return response


async def _play(request: web.Request, reply: RecordedReply, arrival: float) -> web.StreamResponse:
    response = web.StreamResponse(status=reply.status)
    response.headers.extend(reply.headers)
    if reply.sized:
        response.content_length = sum(len(chunk.data) for chunk in reply.chunks)
    await sleep_until(arrival + reply.headers_s - TIMER_LEAD_S)
    await response.prepare(request)
    assert request.transport is not None
    chunked = "chunked" in response.headers.get("Transfer-Encoding", "")  # set by prepare()
    player = ChunkPlayer(request.transport, chunked, reply.chunks, arrival)
    player.start()
    try:
        await player.finished
    finally:
        player.cancel()
    if reply.end == "reset":
        await sleep_until(arrival + reply.end_s - 0.05)  # reset_connection waits 50 ms
        await reset_connection(request)
    elif reply.end == "open":  # the client left before the server had ended: hold it open
        await asyncio.Event().wait()
    else:
        await sleep_until(arrival + reply.end_s - TIMER_LEAD_S)
        await response.write_eof()
    return response


class ChunkPlayer:
    """Writes each chunk at its deadline from a timer callback; `finished` when all are out."""

    def __init__(
        self, transport: asyncio.Transport, chunked: bool, chunks: tuple[Chunk, ...], start: float
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.finished: asyncio.Future[None] = self.loop.create_future()
        self._transport = transport
        self._chunked = chunked
        self._chunks = chunks
        self._start = start
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self._schedule(0)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _schedule(self, index: int) -> None:
        if index == len(self._chunks):
            if not self.finished.done():
                self.finished.set_result(None)
            return
        deadline = self._start + self._chunks[index].at_s - TIMER_LEAD_S
        self._timer = self.loop.call_at(deadline, self._fire, index)

    def _fire(self, index: int) -> None:
        if self._transport.is_closing():
            if not self.finished.done():
                self.finished.set_exception(ConnectionResetError("the client went away"))
            return
        data = self._chunks[index].data
        if not data:  # an empty chunk would end a chunked body
            self._schedule(index + 1)
            return
        if self._chunked:
            data = b"%x\r\n%s\r\n" % (len(data), data)
        self._transport.write(data)
        self._schedule(index + 1)
