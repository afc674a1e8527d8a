"""Fixtures: a real LabServer on a free loopback port, with a fast scenario by default."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from client.lab import LabServer, scenario_from_dict

FAST = {"ttft": 5, "tpot_ms": 1, "output_tokens": 8, "seed": 1}

StartLab = Callable[..., Awaitable[tuple[LabServer, httpx.AsyncClient]]]


@pytest.fixture
async def start_lab() -> AsyncIterator[StartLab]:
    """start_lab(**dials) -> (server, client bound to its URL); all stopped afterwards."""
    started: list[tuple[LabServer, httpx.AsyncClient]] = []

    async def start(
        upstream: str | None = None, **dials: Any
    ) -> tuple[LabServer, httpx.AsyncClient]:
        server = LabServer(scenario_from_dict({**FAST, **dials}), upstream=upstream)
        url = await server.start()
        client = httpx.AsyncClient(base_url=url, timeout=60)
        started.append((server, client))
        return server, client

    yield start
    for server, client in reversed(started):
        await client.aclose()
        await server.stop()


@pytest.fixture
async def lab(start_lab: StartLab) -> tuple[LabServer, httpx.AsyncClient]:
    return await start_lab()


def chat_body(**extra: Any) -> dict[str, Any]:
    return {
        "model": "tachy-lab",
        "messages": [{"role": "user", "content": "Why is the sky blue?"}],
        **extra,
    }
