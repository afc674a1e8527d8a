"""Stop during a tool: the MCP server hears the cancellation within 250 ms (issue 36), over
stdio and over Streamable HTTP. Measured in this process only: from `task.cancel()` to the
first answer of the server's `cancelled` tool that counts the call, an upper bound (it
includes that tool's own round trip). The baseline from this run is one call's round trip
(`add`): on a machine too busy for 250 ms, the goal is three of them."""

from __future__ import annotations

import asyncio
import statistics
import time

from client.services.tools.tool_servers import ToolServers
from tests.memory_keyring import MemoryKeyring
from tests.services.tools.conftest import http_test_server, served_over_http, stdio_test_server

GOAL_MS = 250.0


async def _round_trip_ms(servers: ToolServers, name: str) -> float:
    times = []
    for _ in range(5):
        started = time.perf_counter()
        await servers.call(name, "add", {"a": 1, "b": 2})
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def _cancelled_count(servers: ToolServers, name: str) -> int:
    result = await servers.call(name, "cancelled", {})
    listed = (result.structured or {}).get("result", [])
    return len(listed) if isinstance(listed, list) else 0


async def _cancel_heard_ms(servers: ToolServers, name: str) -> float:
    before = await _cancelled_count(servers, name)
    running = asyncio.Event()
    call = asyncio.create_task(
        servers.call(name, "slow", {"steps": 600}, on_progress=lambda _: running.set())
    )
    await asyncio.wait_for(running.wait(), 30)
    call.cancel()
    cancelled_at = time.perf_counter()
    while await _cancelled_count(servers, name) == before:
        if time.perf_counter() - cancelled_at > 10:
            raise AssertionError("the server never heard the cancellation")
    heard_ms = (time.perf_counter() - cancelled_at) * 1000
    assert call.cancelled()
    return heard_ms


async def _check(servers: ToolServers, name: str, transport: str) -> None:
    round_trip = await _round_trip_ms(servers, name)
    heard = statistics.median([await _cancel_heard_ms(servers, name) for _ in range(3)])
    goal = max(GOAL_MS, 3 * round_trip)
    print(
        f"\n{transport}: the server heard the cancel {heard:.0f} ms after it (median of 3, "
        f"goal {GOAL_MS:.0f} ms, or 3 calls: a call takes {round_trip:.0f} ms here)"
    )
    assert heard <= goal


async def test_a_stdio_server_hears_the_cancel_within_250_ms(
    memory_keyring: MemoryKeyring,
) -> None:
    servers = ToolServers(None)
    try:
        await servers.save(stdio_test_server())
        await _check(servers, "test", "stdio")
    finally:
        await servers.aclose()


async def test_a_remote_server_hears_the_cancel_within_250_ms(
    memory_keyring: MemoryKeyring,
) -> None:
    servers = ToolServers(None)
    try:
        with served_over_http() as url:
            await servers.save(http_test_server(url))
            await _check(servers, "remote", "Streamable HTTP")
    finally:
        await servers.aclose()
