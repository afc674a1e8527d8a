"""The tools tests' servers: the test MCP server over stdio (a subprocess Tachy starts)
and over Streamable HTTP (uvicorn on a free loopback port, on a thread of its own)."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from client.services.tools.server_settings import HttpServer, StdioServer
from client.services.tools.tool_servers import ToolServers
from tests.services.tools.mcp_test_server import build_server

SERVER_FILE = Path(__file__).with_name("mcp_test_server.py")
TOKEN = "Bearer test-token"


def stdio_test_server(name: str = "test", *args: str) -> StdioServer:
    return StdioServer(name, sys.executable, (str(SERVER_FILE), *args))


class RequireToken:
    """Refuses a request without the test's Authorization header (HTTP 401)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", []))
        if scope["type"] == "http" and headers.get(b"authorization") != TOKEN.encode():
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"no token"})
            return
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with served_over_http() as url:
        yield url


@contextmanager
def served_over_http() -> Iterator[str]:
    """The test server over Streamable HTTP, asking for TOKEN; its socket listens before
    uvicorn runs, so a client may connect at once."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    app = RequireToken(build_server().streamable_http_app())
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])))
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def http_test_server(url: str, name: str = "remote", token: str = TOKEN) -> HttpServer:
    return HttpServer(name, url, {"Authorization": token})


@pytest.fixture
async def tool_servers(memory_keyring: object) -> AsyncIterator[ToolServers]:
    """A manager without a settings store (kept in memory), closed after the test."""
    servers = ToolServers(None, connect_timeout_s=20.0, kill_after_s=1.0)
    yield servers
    await servers.aclose()
