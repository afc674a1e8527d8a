"""A small MCP server written with the official SDK, for the tools tests: run by path over
stdio (`python mcp_test_server.py`), or served over Streamable HTTP by tests/services/tools/
conftest.py. It imports only the SDK, so the subprocess needs no PYTHONPATH.

Tools: add, slow (progress; notes its own cancellation), fail, environment (the names
of its variables), block (ignores cancellation), exit (the process ends mid-call),
cancelled (when each cancelled slow call was cancelled: time.monotonic(), which is the
machine's clock on Linux).
"""

from __future__ import annotations

import os
import sys
import time

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

CANCELLED_AT: list[float] = []


def build_server() -> MCPServer:
    server = MCPServer("tachy-test", log_level="WARNING")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @server.tool()
    async def slow(ctx: Context, steps: int = 3, step_s: float = 0.05) -> str:
        """Report `steps` progress notifications, `step_s` apart."""
        try:
            for step in range(1, steps + 1):
                await anyio.sleep(step_s)
                await ctx.report_progress(step, steps, f"step {step}")
        except anyio.get_cancelled_exc_class():
            CANCELLED_AT.append(time.monotonic())
            raise
        return f"done after {steps} steps"

    @server.tool()
    def fail(reason: str = "broken on purpose") -> str:
        """Fail with `reason`."""
        raise ToolError(reason)

    @server.tool()
    def environment() -> list[str]:
        """The names of this process's environment variables."""
        return sorted(os.environ)

    @server.tool()
    async def block() -> str:
        """Block the whole server (its loop cannot even hear a cancel)."""
        while True:
            time.sleep(3600)  # noqa: ASYNC251  (blocking is the point)

    @server.tool()
    async def exit() -> str:
        """End the server process in the middle of the call."""
        os._exit(3)

    @server.tool()
    def cancelled() -> list[float]:
        """When each cancelled slow call was cancelled (time.monotonic())."""
        return CANCELLED_AT

    return server


if __name__ == "__main__":
    if sys.argv[1:] == ["crash"]:
        print("test server: refusing to start", file=sys.stderr)
        raise SystemExit(2)
    build_server().run("stdio")
