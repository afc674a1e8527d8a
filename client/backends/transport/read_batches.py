"""One Token per network read, not per chunk: what ChatStream hands on while it reads.

At thousands of chunks a second the reader falls behind and one read of the socket
brings a hundred chunks or more (tests/perf/test_stream_lag.py: ~160 at 5,000 one-token
chunks a second). Every event handed on costs the session, the window and the HUD a
turn of Python each; so the chunks of one read go on as one Token with their text
joined. The timeline still stamps every chunk, with the time its bytes arrived (itl and
tpot stay exact per chunk), and the first token of a stream is never held: it goes on
alone, at once.

Whether the next chunk is already read (in httpx's buffers) or has to be waited for is
only known by trying: `start` runs the read until it would wait. If it had to, the batch
so far goes on first, and the read is awaited from where it stopped (`Resumed`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from typing import Any

from client.core.events import Token, TokenKind

# A batch goes on once it has gathered this long (its first chunk handled -> now), even
# if the read has more: the window paints, and the loop runs its timers, in between.
BATCH_SPAN_NS = 4_000_000


class Resumed(Awaitable[bytes]):
    """A read started by hand that had to wait: awaiting this goes on where it stopped.
    (What `await` does for a coroutine, except that the first step already ran.)"""

    __slots__ = ("_step", "_waiting", "finished")

    def __init__(self, step: Any, waiting: Any) -> None:
        self._step = step
        self._waiting = waiting  # what the read yielded to the loop (a future, or None)
        self.finished = False  # the read has returned or raised

    def __await__(self) -> Generator[Any, Any, bytes]:
        value = self._waiting
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                raise
            except BaseException as error:  # cancellation, the deadline: into the read
                value = self._throw(error)
            else:
                value = self._send(sent)
            if self.finished:
                return value

    def _send(self, sent: Any) -> Any:
        return self._advance(self._step.send, sent)

    def _throw(self, error: BaseException) -> Any:
        return self._advance(self._step.throw, error)

    def _advance(self, step: Callable[[Any], Any], argument: Any) -> Any:
        """One step of the read: its value, or the read's result once it has ended."""
        try:
            return step(argument)
        except StopIteration as got:
            self.finished = True
            return got.value
        except BaseException:
            self.finished = True
            raise


def start(chunks: AsyncIterator[bytes]) -> bytes | Resumed:
    """The next chunk if it is already there, else the read to await. Raises
    StopAsyncIteration at the end of the body, and transport errors as they come."""
    step: Any = anext(chunks)
    try:
        waiting = step.send(None)
    except StopIteration as got:
        return got.value
    return Resumed(step, waiting)


class TokenBatch:
    """Tokens of one kind gathered from one read."""

    __slots__ = ("_kind", "_parts", "since_ns")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._kind = TokenKind.ANSWER
        self.since_ns = 0  # when its first chunk was handled

    def __bool__(self) -> bool:
        return bool(self._parts)

    def fits(self, token: Token) -> bool:
        return not self._parts or token.kind is self._kind

    def add(self, token: Token, at_ns: int) -> None:
        if not self._parts:
            self._kind, self.since_ns = token.kind, at_ns
        self._parts.append(token.text)

    def take(self) -> Token:
        parts, self._parts = self._parts, []
        return Token(parts[0] if len(parts) == 1 else "".join(parts), self._kind)
