"""Waiting for a server that is up but still loading its model.

llama.cpp's server opens its port first and answers every request 503 "Loading model"
until its model is in memory (a few seconds for a small model, minutes for a large one).
That is a wait, not a failure: ask again until it is ready, within a limit.

    models = await while_loading(backend.list_models, within_s=60, on_loading=say_so)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from client.backends.errors import ModelLoading

T = TypeVar("T")
POLL_S = 0.25  # a cheap request to a server on this machine or network


async def while_loading(
    attempt: Callable[[], Awaitable[T]],
    within_s: float | None,
    on_loading: Callable[[ModelLoading], None] | None = None,
    poll_s: float = POLL_S,
) -> T:
    """attempt(), asked again while the server says it is loading its model, for up to
    within_s seconds (None: as long as it takes). on_loading hears the first such answer.
    Past within_s, ModelLoading saying how long it waited; other errors pass at once."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    told = False
    while True:
        try:
            return await attempt()
        except ModelLoading as error:
            if not told and on_loading is not None:
                on_loading(error)
            told = True
            waited = loop.time() - started
            left = None if within_s is None else within_s - waited
            if left is not None and left <= 0:
                raise ModelLoading(error.server_message, error.status or 503, waited) from error
            await asyncio.sleep(poll_s if left is None else min(poll_s, left))
