"""The lab's demo MCP server (client/lab/mcp_demo), as the Demo menu starts it."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from client.services.tools.server_settings import DEMO_SERVER_NAME, demo_tool_server
from client.services.tools.tool_servers import ToolServers
from client.services.tools.tool_types import ToolProgress


async def test_the_demo_servers_fast_slow_and_failing_tools(tool_servers: ToolServers) -> None:
    await tool_servers.save(demo_tool_server())
    tools = await tool_servers.server_tools(DEMO_SERVER_NAME)
    assert [tool.name for tool in tools] == ["add", "slow_count", "fail", "hang", "die"]
    added = await tool_servers.call(DEMO_SERVER_NAME, "add", {"a": 0.5, "b": 2})
    assert (added.text, added.is_error) == ("2.5", False)
    heard: list[ToolProgress] = []
    counted = await tool_servers.call(
        DEMO_SERVER_NAME, "slow_count", {"seconds": 0.1, "steps": 2}, on_progress=heard.append
    )
    await asyncio.sleep(0)
    assert counted.text == "counted to 2 in 0.1 s"
    assert [p.message for p in heard] == ["step 1 of 2", "step 2 of 2"]
    failed = await tool_servers.call(DEMO_SERVER_NAME, "fail", {"reason": "on purpose"})
    assert failed.is_error and failed.text.endswith("on purpose")


async def test_the_demo_servers_start_crash_fault_says_why(tool_servers: ToolServers) -> None:
    demo = demo_tool_server()
    crashing = replace(demo, name="crash", args=(*demo.args, "--fault", "start-crash"))
    await tool_servers.save(crashing)
    listing = await tool_servers.listing(["crash"])
    assert str(listing.problems["crash"]) == (
        "crash stopped before it answered; it said: "
        "tachy-demo: cannot start: the start-crash fault was asked for"
    )
