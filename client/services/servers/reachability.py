"""Reaching a chosen server that does not answer yet: ask again until it does.

A server whose port is closed (not started yet, restarted, on a machine still booting)
is asked again after 1, 2, 4, 8, 16, then every 30 s; a llama-server that has opened
its port but still loads its model (503 "Loading model") is asked again every second,
without backing off: that wait ends by itself. Any other error (not an LLM server, a
wrong key) is no wait: it is raised at once.

    reach = Reach(Backoff())
    backend, models = await reach.run(attempt, on_wait=show)   # show(Waiting) each miss
    reach.try_now()                                            # the user's "Try now"

Qt-free: the window shows each `Waiting` and offers "Try now" and the local model.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from client.backends.errors import BackendUnreachable, ModelLoading

T = TypeVar("T")
LOADING_POLL_S = 1.0
# The errors that are a wait, not a failure: the server is asked again.
WAITS: tuple[type[Exception], ...] = (BackendUnreachable, ModelLoading)


class WaitKind(Enum):
    UNREACHABLE = "unreachable"  # nothing answers at its address now
    LOADING = "loading"  # it answers 503 "Loading model"


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait before each try after a miss: first_s, doubled, at most cap_s."""

    first_s: float = 1.0
    cap_s: float = 30.0

    def delay(self, misses: int) -> float:
        """The wait after the misses-th miss in a row (1: the first)."""
        return float(min(self.first_s * 2 ** max(misses - 1, 0), self.cap_s))


@dataclass(frozen=True, slots=True)
class Waiting:
    kind: WaitKind
    misses: int  # tries in a row that found it unreachable (loading: 0)
    delay_s: float  # until the next try
    next_try_at: float  # its time.time(), to show as a clock time
    reason: str  # the error's sentence


class Reach:
    """One server being reached; run() returns what attempt() returns once it answers."""

    def __init__(
        self,
        backoff: Backoff | None = None,
        loading_poll_s: float = LOADING_POLL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.backoff = backoff or Backoff()
        self.loading_poll_s = loading_poll_s
        self._clock = clock
        self._wake = asyncio.Event()
        self.waiting: Waiting | None = None  # the last miss, None once it answered

    async def run(
        self,
        attempt: Callable[[], Awaitable[T]],
        on_wait: Callable[[Waiting], None],
        missed: Exception | None = None,
    ) -> T:
        """attempt() until it answers; `missed`: a first try's error, the wait starts from it."""
        misses = 0
        while True:
            try:
                if missed is not None:
                    error, missed = missed, None
                    raise error
                result = await attempt()
            except ModelLoading as error:
                waiting = self._waiting(WaitKind.LOADING, 0, self.loading_poll_s, error)
            except BackendUnreachable as error:
                misses += 1
                delay = self.backoff.delay(misses)
                waiting = self._waiting(WaitKind.UNREACHABLE, misses, delay, error)
            else:
                self.waiting = None
                return result
            self.waiting = waiting
            self._wake.clear()  # a try_now() from here on cuts this wait short
            on_wait(waiting)
            await self._sleep(waiting.delay_s)

    def try_now(self) -> None:
        """Ask again at once, not at the next try's time."""
        self._wake.set()

    def _waiting(self, kind: WaitKind, misses: int, delay: float, error: Exception) -> Waiting:
        reason = getattr(error, "user_message", str(error))
        return Waiting(kind, misses, delay, self._clock() + delay, reason)

    async def _sleep(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._wake.wait(), seconds)
        except TimeoutError:
            pass
