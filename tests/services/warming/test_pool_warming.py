"""A pool is warmed on every server of it, and Ollama's keep-alive is kept per server:
the re-warm follows the server whose model goes first."""

from __future__ import annotations

import socket
import time
from typing import Any

from client.backends import backend_for
from client.backends.base import Backend
from client.core.prediction import ModelState
from client.services.fleet.pool import Policy, PoolMember, ServerPool
from client.services.fleet.pool_backend import PoolBackend
from client.services.servers.servers import ServerChoice
from client.services.warming.warming import KeepAliveWarmer
from tests.services.warming.test_warming import MODEL, make_server, until

__all__ = ["make_server"]  # the fixture


def _refused_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _pool(urls: list[str], api: str) -> PoolBackend:
    members = tuple(
        PoolMember(ServerChoice(f"box {i + 1}", url, api)) for i, url in enumerate(urls)
    )
    backends: list[Backend] = [backend_for(url, api) for url in urls]
    return PoolBackend(ServerPool("boxes", members, Policy.FAILOVER, MODEL), backends)


async def _close(pool: PoolBackend) -> None:
    await pool.aclose()
    for backend in pool.backends:
        await backend.aclose()


async def test_a_warm_up_goes_to_every_server_and_one_down_leaves_the_pool_warm(
    make_server: Any,
) -> None:
    first = await make_server("openai", owned_by="llamacpp")
    second = await make_server("openai", owned_by="llamacpp")
    pool = _pool([_refused_url(), first.url, second.url], "openai")
    warmer = KeepAliveWarmer(pool, MODEL)
    try:
        await warmer.warm_now("app start")
        assert len(first.posts("/v1/chat/completions")) == 1
        assert len(second.posts("/v1/chat/completions")) == 1
        assert warmer.state is ModelState.WARM and warmer.last_error is None
    finally:
        await warmer.aclose()
        await _close(pool)


async def test_ollama_keeps_alive_on_every_server_until_the_first_to_unload(
    make_server: Any,
) -> None:
    first = await make_server("ollama")
    second = await make_server("ollama")
    pool = _pool([first.url, second.url], "ollama")
    warmer = KeepAliveWarmer(pool, MODEL)
    try:
        await warmer.warm_now("app start")
        for server in (first, second):
            (load,) = server.posts("/api/chat")
            assert load.body is not None and load.body.get("keep_alive") == "30m"
        assert warmer.state is ModelState.WARM
        second.until = time.monotonic() + 120  # the second server lets it go first
        warmer.user_request_started()
        warmer.user_request_finished(True, [])  # reads the unload times again
        await until(lambda: (warmer.seconds_left or 1e9) < 200)
    finally:
        await warmer.aclose()
        await _close(pool)
