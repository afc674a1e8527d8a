"""How a bench run sends its measured requests: a fixed number in flight, or arrivals
at a request rate (a Poisson process, as vLLM's `bench serve --request-rate` and
GuideLLM's "poisson" profile send them), optionally capped by a concurrency limit.

Arrival times are drawn from the seed before the run, so two runs with the same seed
send their requests at the same offsets.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import TypeVar

Result = TypeVar("Result")


def poisson_offsets(rate_per_s: float, n: int, seed: int = 0) -> list[float]:
    """Seconds after the start at which each of n requests is sent (the first at 0)."""
    rng = random.Random(seed)
    offsets, now = [], 0.0
    for index in range(n):
        if index:
            now += rng.expovariate(rate_per_s)
        offsets.append(now)
    return offsets


async def send_all(
    measure: Callable[[int], Awaitable[Result]],
    n: int,
    concurrency: int | None,
    offsets: list[float] | None = None,
) -> list[Result]:
    """measure(i) for i in range(n): at `offsets` (else all at once), at most
    `concurrency` in flight (None: no cap). Results in index order."""
    gate: AbstractAsyncContextManager[object] = (
        asyncio.Semaphore(concurrency) if concurrency else nullcontext()
    )
    loop = asyncio.get_running_loop()
    start = loop.time()

    async def one(index: int) -> Result:
        if offsets is not None:
            delay = start + offsets[index] - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
        async with gate:
            return await measure(index)

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(one(i)) for i in range(n)]
    return [task.result() for task in tasks]
