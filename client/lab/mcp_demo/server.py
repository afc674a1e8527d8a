"""The demo MCP server: the tools the Demo menu and the UX tests call, over stdio.

- ``add(a, b)``: answers at once;
- ``slow_count(seconds, steps)``: counts up over ``seconds``, a progress notification each
  step, and stops when the client cancels;
- ``fail(reason)``: raises, so the result comes back marked as an error;
- ``hang()``: blocks the server's event loop for good (a server that ignores cancellation
  and no longer answers even a ping: the client's kill path);
- ``die()``: the server process exits in the middle of the call.

``--fault start-crash`` exits before answering anything (with a line on stderr saying
why, as a broken server would); ``--fault start-hang`` never answers the handshake.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

NAME = "tachy-demo"
START_FAULTS = ("start-crash", "start-hang")


def build_server() -> MCPServer:
    server = MCPServer(
        NAME,
        instructions="Tachy's demo tools: add, slow_count, fail, hang, die.",
        log_level="WARNING",  # stderr is the client's log: only what goes wrong
    )

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers and return the sum."""
        return a + b

    @server.tool()
    async def slow_count(ctx: Context, seconds: float = 3.0, steps: int = 10) -> str:
        """Count from 1 to `steps` over `seconds` seconds, reporting progress each step."""
        import anyio

        steps = max(1, min(steps, 1000))
        for step in range(1, steps + 1):
            await anyio.sleep(max(0.0, seconds) / steps)
            await ctx.report_progress(step, steps, f"step {step} of {steps}")
        return f"counted to {steps} in {seconds:g} s"

    @server.tool()
    def fail(reason: str = "the demo tool failed on purpose") -> str:
        """Always fail with the given reason (the result is marked as an error)."""
        raise ToolError(reason)

    @server.tool()
    async def hang() -> str:
        """Never return, and block the server entirely (it ignores cancellation)."""
        while True:
            time.sleep(3600)  # noqa: ASYNC251  (blocking on purpose: no cancel can run)

    @server.tool()
    async def die() -> str:
        """End the server process in the middle of the call."""
        sys.stdout.flush()
        os._exit(3)

    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m client.lab.mcp_demo", description=__doc__)
    parser.add_argument("--fault", choices=START_FAULTS, help="fail at start, on purpose")
    options = parser.parse_args(argv)
    if options.fault == "start-crash":
        print("tachy-demo: cannot start: the start-crash fault was asked for", file=sys.stderr)
        raise SystemExit(1)
    if options.fault == "start-hang":
        while True:
            time.sleep(3600)
    build_server().run("stdio")
