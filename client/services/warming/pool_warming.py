"""Warming a pool: every server of it, not only the one a request would go to first.

A pool's requests go to any of its servers (failover's next one, least-loaded's
idlest, the hedge's second), so each must have the model loaded and, where the server
caches prompts, the conversation's prefix in its cache. A warm-up goes to every server
at once, each asked for its own name of the model, and Ollama's keep-alive is kept per
server: the pool's unload time is its first server's to unload the model, so the
re-warm comes before any of them lets it go. One server down leaves the pool warm on
the others; only when none answers does the warm-up fail.

    await each_server(backend, request, send)   # send(backend, request) per server
    await pool_unload_time(backend, model)      # Ollama: the earliest of its servers'
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from client.backends.base import Backend
from client.core.conversation import ChatRequest
from client.services.fleet.pool_backend import PoolBackend
from client.services.servers.model_status import ollama_unload_time

log = logging.getLogger(__name__)

Send = Callable[[Backend, ChatRequest], Awaitable[None]]


def servers_of(backend: Backend, model: str) -> list[tuple[Backend, str]]:
    """Each server to warm and its name of the model: a pool's every member."""
    if not isinstance(backend, PoolBackend):
        return [(backend, model)]
    members = range(len(backend.backends))
    return [(backend.member_backend(i), backend.model_of(i) or model) for i in members]


async def each_server(backend: Backend, request: ChatRequest, send: Send) -> None:
    """`send` to every server at once; raises the first failure only when all failed."""
    targets = servers_of(backend, request.model)
    if len(targets) == 1:
        await send(backend, request)
        return
    sent = [send(server, replace(request, model=model)) for server, model in targets]
    results = await asyncio.gather(*sent, return_exceptions=True)
    failures = [result for result in results if isinstance(result, Exception)]
    for failure in failures:
        log.info("warming a server of the pool failed: %s", failure)
    if len(failures) == len(results):
        raise failures[0]


async def pool_unload_time(backend: Backend, model: str) -> float | None:
    """Ollama: when the model is unloaded (time.monotonic()); for a pool the earliest of
    its servers', None when one of them has not loaded it."""
    targets = servers_of(backend, model)
    if len(targets) == 1:
        return await ollama_unload_time(backend, model)
    asked = [ollama_unload_time(server, name) for server, name in targets]
    results = await asyncio.gather(*asked, return_exceptions=True)
    answered = [r for r in results if not isinstance(r, BaseException)]
    if not answered:
        failure = results[0]
        assert isinstance(failure, BaseException)
        raise failure
    if any(moment is None for moment in answered):
        return None
    return min(moment for moment in answered if moment is not None)
