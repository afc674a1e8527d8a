"""ToolServers against real servers written with the official SDK: the test server over
stdio (a subprocess) and over Streamable HTTP (a loopback port)."""

from __future__ import annotations

import asyncio
import os

import pytest

from client.services.tools.server_settings import StdioServer
from client.services.tools.tool_servers import ToolServers
from client.services.tools.tool_types import ToolProgress
from tests.services.tools.conftest import http_test_server, stdio_test_server

TOOLS = {"add", "slow", "fail", "environment", "block", "exit", "cancelled"}


async def test_a_stdio_servers_tools_are_listed_with_descriptions_and_schemas(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(stdio_test_server())
    listing = await tool_servers.listing(["test"])
    assert not listing.problems
    tools = {tool.name: tool for tool in listing.tools}
    assert set(tools) == TOOLS
    assert tools["add"].description == "Add two numbers."
    assert tools["add"].input_schema["required"] == ["a", "b"]
    assert tools["add"].server == "test"
    assert tool_servers.state("test").phase == "ready"


async def test_a_call_returns_text_and_time_and_an_error_is_marked(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(stdio_test_server())
    added = await tool_servers.call("test", "add", {"a": 2, "b": 3})
    assert (added.text, added.is_error, added.structured) == ("5.0", False, {"result": 5.0})
    assert added.elapsed_ms > 0
    failed = await tool_servers.call("test", "fail", {"reason": "no fuel"})
    assert failed.is_error and "no fuel" in failed.text and failed.problem is None


async def test_progress_notifications_reach_the_callers_loop(tool_servers: ToolServers) -> None:
    await tool_servers.save(stdio_test_server())
    heard: list[ToolProgress] = []
    loop = asyncio.get_running_loop()

    def listen(progress: ToolProgress) -> None:
        assert asyncio.get_running_loop() is loop  # not the tools thread
        heard.append(progress)

    result = await tool_servers.call("test", "slow", {"steps": 3}, on_progress=listen)
    assert result.text == "done after 3 steps"
    await asyncio.sleep(0)  # the last relayed notification's turn of this loop
    assert [(p.progress, p.total, p.message) for p in heard] == [
        (1, 3, "step 1"),
        (2, 3, "step 2"),
        (3, 3, "step 3"),
    ]


async def test_cancelling_a_call_cancels_it_on_the_server(tool_servers: ToolServers) -> None:
    await tool_servers.save(stdio_test_server())
    started = asyncio.Event()
    call = asyncio.create_task(
        tool_servers.call(
            "test", "slow", {"steps": 600, "step_s": 0.05}, on_progress=lambda _: started.set()
        )
    )
    await asyncio.wait_for(started.wait(), 20)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert await _server_saw_cancel(tool_servers, "test")
    after = await tool_servers.call("test", "add", {"a": 1, "b": 1})
    assert after.text == "2.0"  # the server goes on


async def _server_saw_cancel(servers: ToolServers, name: str, before: int = 0) -> bool:
    """Asks the server until it reports one more cancelled call (waits for the event)."""
    for _ in range(500):
        if len(await _listed(servers, name, "cancelled")) > before:
            return True
        await asyncio.sleep(0.01)
    return False


async def _listed(servers: ToolServers, name: str, tool: str) -> list[object]:
    result = await servers.call(name, tool, {})
    listed = (result.structured or {}).get("result", [])
    assert isinstance(listed, list)
    return listed


async def test_a_timeout_is_an_error_result_and_the_server_goes_on(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(stdio_test_server())
    result = await tool_servers.call("test", "slow", {"steps": 600}, timeout_s=0.2)
    assert result.is_error and result.problem == "timeout"
    assert result.text == "slow did not finish within 0.2 s, so it was cancelled."
    assert (await tool_servers.call("test", "add", {"a": 1, "b": 2})).text == "3.0"


async def test_a_server_that_fails_to_start_says_why_and_the_rest_go_on(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(stdio_test_server("good"))
    await tool_servers.save(stdio_test_server("broken", "crash"))
    await tool_servers.save(StdioServer("absent", "tachy-no-such-command"))
    listing = await tool_servers.listing(["good", "broken", "absent"])
    assert {tool.server for tool in listing.tools} == {"good"}
    assert {name: str(problem) for name, problem in listing.problems.items()} == {
        "broken": "broken stopped before it answered; it said: test server: refusing to start",
        "absent": "The command 'tachy-no-such-command' of absent was not found: "
        "check that it is installed.",
    }
    state = tool_servers.state("broken")
    assert state.phase == "failed" and state.problem is listing.problems["broken"]
    called = await tool_servers.call("absent", "add", {"a": 1, "b": 1})
    assert called.is_error and called.problem == "server" and "not found" in called.text


async def test_a_stdio_server_gets_only_the_environment_it_names(
    tool_servers: ToolServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TACHY_TEST_SECRET", "not for the server")
    server = stdio_test_server()
    await tool_servers.save(StdioServer(server.name, server.command, server.args, {"ONE": "1"}))
    names = set(await _listed(tool_servers, "test", "environment"))
    assert "ONE" in names and "TACHY_TEST_SECRET" not in names
    assert names <= {"ONE", "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LC_CTYPE"}
    assert "PATH" in names or "PATH" not in os.environ


async def test_a_streamable_http_server_lists_and_calls_with_its_headers(
    tool_servers: ToolServers, http_url: str
) -> None:
    await tool_servers.save(http_test_server(http_url))
    listing = await tool_servers.listing(["remote"])
    assert {tool.name for tool in listing.tools} == TOOLS
    assert (await tool_servers.call("remote", "add", {"a": 1, "b": 2})).text == "3.0"
    heard: list[ToolProgress] = []
    result = await tool_servers.call("remote", "slow", {"steps": 2}, on_progress=heard.append)
    assert not result.is_error
    await asyncio.sleep(0)
    assert [p.progress for p in heard] == [1, 2]


async def test_a_remote_server_refusing_the_headers_says_so(
    tool_servers: ToolServers, http_url: str
) -> None:
    await tool_servers.save(http_test_server(http_url, "refused", token="Bearer wrong"))
    listing = await tool_servers.listing(["refused"])
    assert {name: str(problem) for name, problem in listing.problems.items()} == {
        "refused": f"The server at {http_url} refused Tachy (HTTP 401): check its headers."
    }


async def test_cancelling_a_remote_call_cancels_it_on_the_server(
    tool_servers: ToolServers, http_url: str
) -> None:
    await tool_servers.save(http_test_server(http_url))
    count = len(await _listed(tool_servers, "remote", "cancelled"))
    started = asyncio.Event()
    call = asyncio.create_task(
        tool_servers.call("remote", "slow", {"steps": 600}, on_progress=lambda _: started.set())
    )
    await asyncio.wait_for(started.wait(), 20)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert await _server_saw_cancel(tool_servers, "remote", count)


async def test_a_stdio_server_still_busy_after_a_cancel_is_stopped_and_started_again(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(stdio_test_server())
    failed = asyncio.Event()
    tool_servers.watch(lambda state: state.phase == "failed" and failed.set())
    result = await tool_servers.call("test", "block", {}, timeout_s=0.2)
    assert result.problem == "timeout"
    await asyncio.wait_for(failed.wait(), 20)  # it could not answer a listing: stopped
    assert str(tool_servers.state("test").problem) == (
        "test stopped answering after a cancelled call, so Tachy stopped it."
    )
    assert (await tool_servers.call("test", "add", {"a": 1, "b": 1})).text == "2.0"


async def test_a_server_that_dies_in_a_call_is_an_error_result_then_starts_again(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(stdio_test_server())
    result = await tool_servers.call("test", "exit", {})
    assert (result.is_error, result.problem) == (True, "server")
    assert result.text == "test stopped while exit was running."
    assert (await tool_servers.call("test", "add", {"a": 1, "b": 1})).text == "2.0"


async def test_an_unknown_server_is_an_error_result(tool_servers: ToolServers) -> None:
    result = await tool_servers.call("nowhere", "add", {})
    assert result.text == "There is no tool server called nowhere."
    listing = await tool_servers.listing(["nowhere"])
    assert str(listing.problems["nowhere"]) == "There is no tool server called nowhere."
