"""How busy each server of a pool is, for least-loaded and the hedge's first choice.

A server's own figures say what it is running and queueing for every client (vLLM's
`num_requests_running` + `num_requests_waiting` on /metrics, llama.cpp's busy /slots,
Ollama's /api/ps: a model not loaded costs a load); Tachy's own requests in flight are
known at once. A server's figures lag (read at most every FRESH_S, in the background),
so the board keeps what they said beyond Tachy's own requests at the time (other
clients' work), and a server's load is that plus Tachy's requests now: a reading taken
while Tachy's last request ran does not make the server look busy after it ended.

The reader is given (the composition root passes the HUD's server poller): this area
sits below the HUD and does no HTTP of its own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol


class LoadReader(Protocol):
    async def read(self, member: int) -> float | None:
        """The member's requests running and waiting as its server says; None: unknown."""
        ...

    async def aclose(self) -> None: ...


FRESH_S = 0.25  # a reading older than this is renewed in the background
STALE_S = 2.0  # older than this (or none yet): the pick waits for a new one ...
READ_WAIT_S = 0.3  # ... this long at most


class LoadBoard:
    def __init__(
        self,
        size: int,
        reader: LoadReader | None,
        own: Callable[[int], int] = lambda member: 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._reader = reader
        self._own = own  # Tachy's requests in flight to a member now
        self._clock = clock
        # (load or None when the server did not say, when it was read)
        self._readings: list[tuple[float | None, float] | None] = [None] * size
        self._reading: dict[int, asyncio.Task[None]] = {}

    async def reported(self, members: list[int]) -> list[float | None]:
        """Each member's load from other clients as its server last said (None: it
        says nothing), renewing old readings."""
        if self._reader is None:
            return [None for _ in members]
        now = self._clock()
        waits = []
        for member in members:
            reading = self._readings[member]
            age = None if reading is None else now - reading[1]
            if age is None or age > FRESH_S:
                task = self._renew(member)
                if age is None or age > STALE_S:
                    waits.append(task)
        if waits:
            await asyncio.wait(waits, timeout=READ_WAIT_S)
        return [self._load(member) for member in members]

    def _load(self, member: int) -> float | None:
        reading = self._readings[member]
        return None if reading is None else reading[0]

    def _renew(self, member: int) -> asyncio.Task[None]:
        task = self._reading.get(member)
        if task is None or task.done():
            task = asyncio.ensure_future(self._read(member))
            self._reading[member] = task
        return task

    async def _read(self, member: int) -> None:
        assert self._reader is not None
        own = self._own(member)
        load = await self._reader.read(member)
        others = None if load is None else max(load - own, 0.0)
        self._readings[member] = (others, self._clock())

    async def aclose(self) -> None:
        tasks = [task for task in self._reading.values() if not task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        if self._reader is not None:
            await self._reader.aclose()
