"""How many requests the emulated server runs at once, and who waits.

A real server decodes a bounded batch: vLLM's max_num_seqs, llama.cpp's --parallel
slots, Ollama's OLLAMA_NUM_PARALLEL. Past that, requests queue and their first token
waits for a free place, which is where the P95 of TTFT climbs under load. With
"continuous" batching (vLLM, llama.cpp) a queued request starts as soon as any running
one ends; with "static" batching the next group starts only once the whole running
group has ended. A static group forms during GROUP_WINDOW_S after the server becomes
idle (as batching servers wait a moment to fill a batch), then closes. Capacity 0 means
no limit (the lab's default).
"""

from __future__ import annotations

import asyncio
from collections import deque

GROUP_WINDOW_S = 0.010


class Scheduler:
    def __init__(self, capacity: int = 0, batching: str = "continuous") -> None:
        self.capacity = capacity
        self.batching = batching
        self.running = 0
        self._queue: deque[asyncio.Future[None]] = deque()
        self._batch_open = True  # static batching: may a request join the running group?
        self._window: asyncio.TimerHandle | None = None

    def configure(self, capacity: int, batching: str) -> None:
        self.capacity = capacity
        self.batching = batching
        self._admit()

    @property
    def waiting(self) -> int:
        return len(self._queue)

    async def acquire(self) -> None:
        """Wait for a place in the running batch (FIFO); cancelled waiters leave the queue."""
        if not self._queue and self._has_room():
            self.running += 1
            self._close_static_group()
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # admitted just as the client left: give the place back
            else:
                self._queue.remove(waiter)
            raise

    def release(self) -> None:
        self.running = max(0, self.running - 1)
        if self.running == 0:
            self._batch_open = True
            if self._window is not None:
                self._window.cancel()
                self._window = None
        self._admit()

    def _has_room(self) -> bool:
        if self.capacity <= 0:
            return True
        if self.running >= self.capacity:
            return False
        return self.batching == "continuous" or self._batch_open

    def _admit(self) -> None:
        while self._queue and self._has_room():
            waiter = self._queue.popleft()
            if waiter.done():
                continue
            self.running += 1
            waiter.set_result(None)
        self._close_static_group()

    def _close_static_group(self) -> None:
        # Static batching: the group is whoever arrives within GROUP_WINDOW_S of the
        # server becoming busy; later arrivals wait for the whole group to end.
        if self.batching != "static" or self.running == 0 or self._window is not None:
            return
        self._window = asyncio.get_running_loop().call_later(GROUP_WINDOW_S, self._seal)

    def _seal(self) -> None:
        self._window = None
        if self.running > 0:
            self._batch_open = False
