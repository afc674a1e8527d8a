"""A read deadline that moves with every token but costs one timer per stream.

Re-arming a timer on every read is not free (under qasync each timer is a Qt timer),
and the stall deadline moves forward with every token. So tokens only move a
timestamp; the single timer, when it fires early, re-arms itself for the time left,
and cancels the waiting task only when the deadline has really passed.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class ReadDeadline:
    def __init__(self, seconds_left: Callable[[], float | None]) -> None:
        self._seconds_left = seconds_left
        self._handle: asyncio.TimerHandle | None = None
        self._due = 0.0  # loop time the timer is armed for
        self._waiting: asyncio.Task[Any] | None = None
        self._fired = False

    async def wait(self, awaitable: Awaitable[T]) -> T:
        """Await it; TimeoutError if the deadline passes first."""
        left = self._seconds_left()
        if left is None:
            return await awaitable
        if left <= 0:
            if inspect.iscoroutine(awaitable):
                awaitable.close()
            raise TimeoutError
        self._arm(left)
        self._waiting, self._fired = asyncio.current_task(), False
        try:
            return await awaitable
        except asyncio.CancelledError:
            if self._fired and self._waiting is not None and self._waiting.uncancel() == 0:
                raise TimeoutError from None
            raise
        finally:
            self._waiting = None

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _arm(self, left: float) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + left
        if self._handle is not None and self._due <= due:
            return  # armed early enough; it re-arms itself if the deadline moved later
        self.cancel()
        self._due = due
        self._handle = loop.call_at(due, self._check)

    def _check(self) -> None:
        self._handle = None
        left = self._seconds_left()
        if left is None:
            return
        if left > 0:
            self._arm(left)
        elif self._waiting is not None and not self._fired:
            self._fired = True
            self._waiting.cancel()
        # Not waiting now: the next wait() sees no time left and raises.
