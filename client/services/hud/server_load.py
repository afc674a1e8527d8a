"""How busy each server of a pool says it is, for the pool's least-loaded and hedged
policies (client/services/fleet/loads.py): read with the HUD's server poller.

- a server counting its requests: running (or its busy slots) + waiting;
- a server listing its loaded models instead (Ollama's /api/ps): a model not loaded
  costs a load, counted as COLD_LOAD requests ahead.
"""

from __future__ import annotations

from client.backends.figures.fetch import ServerFigures
from client.backends.kinds.registry import kind_named
from client.services.fleet.pool import ServerPool
from client.services.hud.server_stats import ServerSnapshot, ServerStatsPoller

COLD_LOAD = 2.0


class ServerLoads:
    """The pool's LoadReader: one poller per member, one HTTP client for them all."""

    def __init__(self, pool: ServerPool) -> None:
        self._figures = ServerFigures()
        self._pollers = [
            ServerStatsPoller(self._figures, m.choice.url, m.choice.api, pool.model_of(m))
            for m in pool.members
        ]

    async def read(self, member: int) -> float | None:
        poller = self._pollers[member]
        return queue_of(await poller.poll(), poller.model)

    async def aclose(self) -> None:
        await self._figures.aclose()


def queue_of(snap: ServerSnapshot, model: str | None) -> float | None:
    """Requests running and waiting, from one reading; None when it says nothing."""
    if snap.error:
        return None
    kind = kind_named(snap.kind)
    if kind is not None and kind.lists_loaded_models:
        names = {m.name for m in snap.models}
        loaded = model is None or model in names or f"{model}:latest" in names
        return 0.0 if loaded else COLD_LOAD
    running = snap.busy_slots if snap.busy_slots is not None else snap.running
    if running is None and snap.waiting is None:
        return None
    return (running or 0.0) + (snap.waiting or 0.0)
