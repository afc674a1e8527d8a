"""`tachy bench --cold --warming`: the first message a user sends after the app warmed
a cold server, as a `make_cold` hook for client.services.bench.runner."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from client.backends.base import Backend
from client.services.servers.model_status import WarmSettings
from client.services.warming.warming import Engine, KeepAliveWarmer

log = logging.getLogger(__name__)


def cold_start_then_warm(
    make_cold: Callable[[], Awaitable[None]] | None,
    backend: Backend,
    model: str,
    *,
    engine: Engine | None = None,
    settings: WarmSettings | None = None,
) -> Callable[[], Awaitable[None]]:
    """A `make_cold` hook for client.services.bench.runner (`tachy bench --cold`) that
    measures what a user gets: the server starts cold, Tachy warms it as it does at
    app start, then the first message is timed. Pass the plain make_cold to measure
    the first message without warming (reported as cold)."""

    async def hook() -> None:
        if make_cold is not None:
            await make_cold()
        warmer = KeepAliveWarmer(backend, model, settings, engine=engine)
        await warmer.warm_now("app start")
        await warmer.aclose()
        if warmer.last_error:  # the timed request will meet the same trouble and say so
            log.warning("warming before the cold request failed: %s", warmer.last_error)

    return hook
