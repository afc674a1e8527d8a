"""Play a scripted reply with loop.call_at: each chunk is written by a timer callback at
its absolute deadline, straight to the transport.

A coroutine per chunk (sleep, resume, aiohttp's async write) costs several times the CPU
of a callback; with 50 streams on a busy 2-core machine that difference is what keeps
the deadlines. Mid-stream faults are applied here at their token counts.
"""

from __future__ import annotations

import asyncio
import socket
import struct

from aiohttp import web

from client.lab.dialects.wire import WireFormat
from client.lab.scenarios.scenario import Fault
from client.lab.timing.plan import Piece, Reply
from client.lab.timing.sources import SimulatedSource

DEFAULT_ERROR = "an error was encountered while running the model"
# asyncio's epoll selector rounds every timeout up to a whole millisecond, so a timer
# fires 0-1 ms after its deadline (0.9 ms at the median in tests/perf/test_lab_timing.py's
# bare server). Setting each timer half a millisecond early centres that error on the
# deadline instead of leaving it all late.
TIMER_LEAD_S = 0.0005


class Player:
    """Resolves `finished` with "done" (write the closing), "ended" (stream over) or "reset"."""

    def __init__(
        self,
        transport: asyncio.Transport,
        chunked: bool,
        source: SimulatedSource,
        fmt: WireFormat,
        reply: Reply,
        fault: Fault | None,
        preludes: tuple[tuple[float, bytes], ...] = (),
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.finished: asyncio.Future[str] = self.loop.create_future()
        self._transport = transport
        self._chunked = chunked
        self._pieces = source.plan.pieces
        self._offsets = source.plan.offsets
        self._first_at = source.first_at
        self._shift = 0.0
        self._fmt = fmt
        self._reply = reply
        self._fault = fault
        self._sent = 0
        self._timer: asyncio.TimerHandle | None = None
        # Events before the first token (llama.cpp's prompt_progress): (deadline, bytes).
        self._preludes = preludes
        self._next = 0  # the piece the pending timer will write
        self._prelude_next = 0

    def start(self) -> None:
        if self._preludes:
            self._schedule_prelude(0)
        else:
            self._schedule(0)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def pause(self, seconds: float) -> None:
        """Push the rest of the stream back (another request's prefill holds the batch)."""
        if self.finished.done() or self._timer is None:
            return
        self._shift += seconds
        self._timer.cancel()
        if self._prelude_next < len(self._preludes):
            self._schedule_prelude(self._prelude_next)
        else:
            self._schedule(self._next)

    def _schedule_prelude(self, index: int) -> None:
        self._prelude_next = index
        deadline = self._preludes[index][0] + self._shift
        self._timer = self.loop.call_at(deadline - TIMER_LEAD_S, self._fire_prelude, index)

    def _fire_prelude(self, index: int) -> None:
        if not self._write(self._preludes[index][1]):
            return
        if index + 1 < len(self._preludes):
            self._schedule_prelude(index + 1)
        else:
            self._prelude_next = len(self._preludes)
            self._schedule(0)

    def _schedule(self, index: int) -> None:
        self._next = index
        if index == len(self._pieces):
            self._at_end()
            return
        deadline = self._first_at + self._offsets[index] + self._shift
        self._timer = self.loop.call_at(deadline - TIMER_LEAD_S, self._fire, index)

    def _fire(self, index: int) -> None:
        fault = self._fault
        if fault is not None and fault.kind != "utf8_cut" and self._sent >= fault.after_tokens:
            self._fault = None
            if self._apply(fault, index):
                return
        piece = self._pieces[index]
        if not self._write(self._fmt.piece(piece)):
            return
        self._reply.record(piece, self.loop.time())
        self._sent += piece.tokens
        self._schedule(index + 1)

    def _apply(self, fault: Fault, index: int) -> bool:
        """True when the fault took over (ended the stream or rescheduled it)."""
        if fault.kind == "error_mid_stream":
            self._write(self._fmt.error_event(fault.message or DEFAULT_ERROR))
            self._finish("ended")
            return True
        if fault.kind == "reset":
            self._finish("reset")
            return True
        if fault.kind == "stall":
            self._shift += fault.seconds
            self._schedule(index)
            return True
        if fault.kind == "malformed_json":
            self._write(self._fmt.malformed())
        elif fault.kind == "oversize_line":
            self._write(self._fmt.piece(Piece("answer", "x" * fault.size_bytes, 1)))
        return False

    def _at_end(self) -> None:
        fault, self._fault = self._fault, None
        if fault is not None and fault.kind == "utf8_cut":
            line = self._fmt.piece(Piece("answer", "終", 1))
            self._write(line[: line.index("終".encode()) + 1])  # cut inside the character
            self._finish("ended")
        elif fault is not None and fault.kind in ("error_mid_stream", "reset"):
            self._apply(fault, len(self._pieces))
        elif fault is not None and fault.kind == "stall":
            self._timer = self.loop.call_later(fault.seconds, self._finish, "done")
        else:
            if fault is not None:  # malformed / oversize after the last token
                self._apply(fault, len(self._pieces))
            self._finish("done")

    def _write(self, data: bytes) -> bool:
        if self._transport.is_closing():
            if not self.finished.done():
                self.finished.set_exception(ConnectionResetError("the client went away"))
            return False
        if not data:  # a token counted but not sent (an empty chunk would end the body)
            return True
        if self._chunked:
            data = b"%x\r\n%s\r\n" % (len(data), data)
        self._transport.write(data)
        return True

    def _finish(self, outcome: str) -> None:
        if not self.finished.done():
            self.finished.set_result(outcome)


async def reset_connection(request: web.Request) -> None:
    """A real TCP reset (RST), not a clean close: SO_LINGER 0, then abort."""
    transport = request.transport
    if transport is None:
        return
    # Let the client read what was sent: an RST may discard data still unread.
    await asyncio.sleep(0.05)
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
