"""A chosen server that does not answer, then answers, is said on the root's bus
(ServerStateChanged): the picker's state text and any other subscriber hear it."""

from __future__ import annotations

from typing import Any

import pytest

from client.backends.errors import BackendUnreachable, ModelLoading
from client.services.events import ServerStateChanged
from client.services.servers.reachability import Backoff, Waiting
from client.services.servers.servers import ServerChoice
from client.services.storage.stores import Stores
from client.services.tachy import Tachy


async def test_reaching_a_server_publishes_its_states(monkeypatch: pytest.MonkeyPatch) -> None:
    tachy = Tachy(Stores(), warm_models=False)
    tachy.backoff = Backoff(0.001, 0.004)
    errors: list[Exception] = [ModelLoading()]

    async def server_models(_choice: ServerChoice) -> tuple[Any, list[str]]:
        if errors:
            raise errors.pop(0)
        return None, ["small"]

    monkeypatch.setattr(tachy, "server_models", server_models)
    heard: list[ServerStateChanged] = []
    tachy.events.subscribe(ServerStateChanged, heard.append)
    waits: list[Waiting] = []
    choice = ServerChoice("Lab", "http://127.0.0.1:9", "openai")
    missed = BackendUnreachable("http://127.0.0.1:9")
    try:
        _backend, models = await tachy.reach(choice, waits.append, missed)
    finally:
        await tachy.aclose()
    assert models == ["small"] and len(waits) == 2  # the caller still hears each wait
    assert [(e.server, e.state) for e in heard] == [
        ("Lab", "unreachable"),
        ("Lab", "loading"),
        ("Lab", "reachable"),
    ]
