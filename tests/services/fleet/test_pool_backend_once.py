"""A pool's backend is made once: asked for twice at the same moment, both callers get
the same one, and no second loads reader (an HTTP client of its own) is left open."""

from __future__ import annotations

import asyncio

import pytest

from client.services import tachy as tachy_module
from client.services.fleet.pool import Policy, PoolMember, ServerPool
from client.services.hud.server_load import ServerLoads
from client.services.servers.servers import ServerChoice
from client.services.storage.stores import Stores
from client.services.tachy import Tachy


async def test_two_callers_at_once_share_one_pool_backend_and_one_loads_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[ServerLoads] = []

    def counted(pool: ServerPool) -> ServerLoads:
        made.append(ServerLoads(pool))
        return made[-1]

    monkeypatch.setattr(tachy_module, "ServerLoads", counted)
    members = tuple(
        PoolMember(ServerChoice(f"box {port}", f"http://127.0.0.1:{port}", "openai"))
        for port in (9, 10)
    )
    pool = ServerPool("boxes", members, Policy.LEAST_LOADED, "smollm2")
    app = Tachy(Stores(), warm_models=False)
    try:
        first, second = await asyncio.gather(app.pool_backend(pool), app.pool_backend(pool))
        assert first is second
        assert len(made) == 1
    finally:
        await app.aclose()
