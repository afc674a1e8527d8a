"""One MCP server's connection, on the tools thread: started, listed, called, stopped.

One task keeps the SDK's `Client` open for as long as the connection lives (its task
groups and cancel scopes must be entered and left by one task); calls run in tasks of
their own beside it. Cancelling a call sends MCP's cancellation (the SDK does). A stdio
server is Tachy's own subprocess: when it does not answer a tool listing within
`kill_after_s` of a cancelled or timed-out call, it is still busy, and Tachy stops it
(the SDK closes its stdin, then ends its process group); the next call starts it again.
A remote server is never stopped, only left.

The environment of a stdio server is what it names plus the SDK's short list of
variables a command needs to start at all (PATH to find `npx`, `uvx` or `python`, HOME
for their caches, and USER, LOGNAME, SHELL, TERM); nothing else of Tachy's environment.
"""

from __future__ import annotations

import asyncio
import json
import logging
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, TextIO, cast

import anyio

from client import __version__
from client.services.tools import server_errors as words
from client.services.tools.server_errors import ToolServerError, last_line, leaves
from client.services.tools.server_settings import StdioServer, ToolServerSettings
from client.services.tools.tool_types import ToolInfo, ToolProgress, ToolResult

if TYPE_CHECKING:
    from mcp import Client
    from mcp.client._transport import Transport

log = logging.getLogger(__name__)
ProgressListener = Callable[[ToolProgress], None]
EndListener = Callable[["ServerConnection"], None]
MOST_PAGES = 100  # a tool listing that never ends stops here


class ServerConnection:
    def __init__(
        self,
        settings: ToolServerSettings,
        connect_timeout_s: float,
        kill_after_s: float,
        on_end: EndListener | None = None,
    ) -> None:
        self.settings = settings
        self.on_end = on_end  # called here when a connection that was ready ends
        self.connect_timeout_s = connect_timeout_s
        self.kill_after_s = kill_after_s
        self.tools: tuple[ToolInfo, ...] = ()
        self.failure: ToolServerError | None = None
        self._client: Client | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._scope: anyio.CancelScope | None = None
        self._probe: asyncio.Task[None] | None = None
        self._refused_status: int | None = None  # an HTTP server's last status >= 400

    @property
    def name(self) -> str:
        return self.settings.name

    @property
    def alive(self) -> bool:
        return self._keeper is not None and not self._keeper.done() and not self._closing.is_set()

    @property
    def session_open(self) -> bool:
        """Its session (a stdio server's process) has not ended: alive, or still stopping."""
        return self._keeper is not None and not self._keeper.done()

    # --- start and stop ---------------------------------------------------------------
    async def open(self) -> tuple[ToolInfo, ...]:
        """Start (or reach) the server and list its tools; ToolServerError says why not."""
        ready: asyncio.Future[tuple[ToolInfo, ...]] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(_retrieved)  # after a timeout nobody awaits it
        self._keeper = asyncio.create_task(self._keep(ready), name=f"mcp {self.name}")
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                self.tools = await asyncio.shield(ready)
        except TimeoutError:
            seconds = f"{self.connect_timeout_s:g}"
            template = words.NO_ANSWER_AT_START
            self.failure = ToolServerError(template, server=self.name, seconds=seconds)
            self.stop()
            raise self.failure from None
        return self.tools

    def stop(self) -> None:
        """Leave the server (a stdio one is stopped); returns at once, it winds down here."""
        self._closing.set()
        if self._scope is not None:
            self._scope.cancel()

    async def close(self) -> None:
        self.stop()
        if self._keeper is not None:
            await asyncio.gather(self._keeper, return_exceptions=True)

    async def _keep(self, ready: asyncio.Future[tuple[ToolInfo, ...]]) -> None:
        errlog = _errlog() if isinstance(self.settings, StdioServer) else None
        try:
            with anyio.CancelScope() as self._scope:
                async with AsyncExitStack() as stack:
                    client = await stack.enter_async_context(self._client_for(stack, errlog))
                    tools = await _listed_tools(client, self.name)
                    self._client = client
                    ready.set_result(tools)
                    await self._closing.wait()
        except Exception as error:
            problem = self._explained(error, errlog)
            if not ready.done():
                ready.set_exception(problem)
            elif not self._closing.is_set():
                log.warning("tool server %s ended: %s", self.name, problem)
            self.failure = self.failure or problem
        finally:
            self._client = None
            self._closing.set()
            if not ready.done():  # stopped before it answered
                ready.set_exception(self.failure or _stopped_at_start(self.name, ""))
            elif self.on_end is not None and not ready.cancelled() and not ready.exception():
                self.on_end(self)
            if errlog is not None:
                errlog.close()

    def _client_for(self, stack: AsyncExitStack, errlog: TextIO | None) -> Client:
        from mcp import Client
        from mcp_types import Implementation

        info = Implementation(name="Tachy", version=__version__)
        return Client(self._transport(stack, errlog), client_info=info)

    def _transport(self, stack: AsyncExitStack, errlog: TextIO | None) -> Transport:
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        server = self.settings
        if isinstance(server, StdioServer):
            parameters = StdioServerParameters(
                command=server.command, args=list(server.args), env=dict(server.env),
                cwd=server.cwd or None,
            )  # fmt: skip
            assert errlog is not None
            return stdio_client(parameters, errlog=errlog)
        http = create_mcp_http_client(headers=dict(server.headers))
        # The SDK turns a refusal into a JSON-RPC error without its status: keep it here.
        http.event_hooks = {"response": [self._heard_response]}
        stack.push_async_callback(http.aclose)
        return streamable_http_client(server.url, http_client=http)

    async def _heard_response(self, response: object) -> None:
        status = getattr(response, "status_code", 0)
        if isinstance(status, int) and status >= 400:
            self._refused_status = status

    def _explained(self, error: BaseException, errlog: TextIO | None) -> ToolServerError:
        if self._refused_status is not None:
            return refused(self.settings.address, self._refused_status)
        return explain(error, self.settings, _read_back(errlog))

    # --- calls ------------------------------------------------------------------------
    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        timeout_s: float,
        on_progress: ProgressListener | None = None,
    ) -> ToolResult:
        """The tool's result; a timeout or a server that stops is a result marked as an
        error. Cancelling the call cancels it on the server."""
        client = self._client
        if client is None:
            raise self.failure or _stopped_at_start(self.name, "")
        started = time.perf_counter()
        progress = _progress_callback(on_progress) if on_progress is not None else None
        try:
            async with asyncio.timeout(timeout_s):
                result = await client.call_tool(tool, arguments, progress_callback=progress)
        except TimeoutError:
            self._check_after_cancel()
            problem = ToolServerError(words.TOOL_TIMEOUT, tool=tool, seconds=f"{timeout_s:g}")
            return _failed(problem, started, "timeout")
        except asyncio.CancelledError:
            self._check_after_cancel()
            raise
        except Exception as error:
            return self._call_failed(error, tool, started)
        return ToolResult(
            _content_text(result.content, result.structured_content),
            bool(result.is_error),
            _ms_since(started),
            result.structured_content,
        )

    def _call_failed(self, error: Exception, tool: str, started: float) -> ToolResult:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        found = next(leaves(error))
        if isinstance(found, MCPError) and found.code != CONNECTION_CLOSED:
            # The server refused this call (unknown tool, bad arguments): the model's to read.
            return ToolResult(found.message, True, _ms_since(started), problem="tool")
        self.failure = ToolServerError(words.STOPPED_IN_CALL, server=self.name, tool=tool)
        self.stop()
        return _failed(self.failure, started, "server")

    def _check_after_cancel(self) -> None:
        """A stdio server still busy after a cancel is stopped (see the module's doc)."""
        busy = self._probe is not None and not self._probe.done()
        if isinstance(self.settings, StdioServer) and self.alive and not busy:
            self._probe = asyncio.create_task(self._stop_if_busy())

    async def _stop_if_busy(self) -> None:
        client = self._client
        if client is None:
            return
        try:
            async with asyncio.timeout(self.kill_after_s):
                await client.list_tools(cache_mode="bypass")
        except Exception:
            log.warning("tool server %s is still busy after a cancel: stopping it", self.name)
            self.failure = ToolServerError(words.KILLED_AFTER_CANCEL, server=self.name)
            self.stop()


# --- helpers ----------------------------------------------------------------------------
def _retrieved(future: asyncio.Future[tuple[ToolInfo, ...]]) -> None:
    if not future.cancelled():
        future.exception()


async def _listed_tools(client: Client, server: str) -> tuple[ToolInfo, ...]:
    tools: list[ToolInfo] = []
    cursor: str | None = None
    for _ in range(MOST_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += [
            ToolInfo(server, tool.name, tool.description or "", dict(tool.input_schema))
            for tool in page.tools
        ]
        cursor = page.next_cursor
        if not cursor:
            break
    return tuple(tools)


def _progress_callback(listener: ProgressListener) -> Callable[..., Any]:
    async def heard(progress: float, total: float | None, message: str | None) -> None:
        listener(ToolProgress(progress, total, message))

    return heard


def _content_text(content: list[Any], structured: dict[str, Any] | None) -> str:
    """The result's text parts as the model reads them; other parts named, not sent."""
    parts = [_part_text(part) for part in content]
    text = "\n".join(part for part in parts if part)
    if not text and structured is not None:
        return json.dumps(structured, ensure_ascii=False)
    return text


def _part_text(part: object) -> str:
    """A text part's text; an image, audio or resource named in brackets (the SDK's
    content types, read by their `type` field)."""
    kind = getattr(part, "type", "")
    if kind == "text":
        return str(getattr(part, "text", ""))
    if kind == "resource":
        inner = getattr(part, "resource", None)
        return str(getattr(inner, "text", "")) or f"[resource {getattr(inner, 'uri', '')}]"
    if kind == "resource_link":
        return f"[resource {getattr(part, 'uri', '')}]"
    if kind in ("image", "audio"):
        return f"[{kind} {getattr(part, 'mime_type', '')}]"
    return ""


def _failed(problem: ToolServerError, started: float, kind: str) -> ToolResult:
    return ToolResult(problem.sentence, True, _ms_since(started), problem=kind)


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _errlog() -> TextIO:
    """Where a stdio server's stderr goes: a file (the subprocess needs a real one), read
    back for the sentence when it stops at start."""
    file = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
    return cast(TextIO, file)


def _read_back(errlog: TextIO | None) -> str:
    if errlog is None or errlog.closed:
        return ""
    try:
        errlog.seek(0)
        return errlog.read()[-4000:]
    except (OSError, ValueError):
        return ""


def _stopped_at_start(server: str, said: str) -> ToolServerError:
    line = last_line(said)
    if line:
        return ToolServerError(words.STOPPED_AT_START_SAID, server=server, said=line)
    return ToolServerError(words.STOPPED_AT_START, server=server)


def explain(error: BaseException, settings: ToolServerSettings, said: str) -> ToolServerError:
    """The first cause in `error` (maybe a group), as one sentence."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    found = next(leaves(error))
    if isinstance(found, ToolServerError):
        return found
    name = settings.name
    if isinstance(found, MCPError) and found.code != CONNECTION_CLOSED:
        return ToolServerError(words.OTHER, server=name, detail=found.message)  # it refused
    if isinstance(settings, StdioServer):
        if isinstance(found, FileNotFoundError):
            return ToolServerError(words.NOT_FOUND, command=settings.command, server=name)
        if isinstance(found, OSError):
            detail = found.strerror or str(found)
            return ToolServerError(
                words.NOT_RUNNABLE, command=settings.command, server=name, detail=detail
            )
        return _stopped_at_start(name, said)
    return _explain_http(found, settings.address, name)


def refused(url: str, status: int) -> ToolServerError:
    template = words.REFUSED if status in (401, 403) else words.NOT_MCP
    return ToolServerError(template, url=url, status=str(status))


def _explain_http(found: BaseException, url: str, name: str) -> ToolServerError:
    # Read by name, not type: the SDK's HTTP library is its own (httpx2), and Tachy's HTTP
    # lives in client.backends.
    status = getattr(getattr(found, "response", None), "status_code", None)
    if isinstance(status, int):
        return refused(url, status)
    if type(found).__name__ in ("ConnectError", "ConnectTimeout"):
        return ToolServerError(words.UNREACHABLE, url=url)
    detail = str(found) or type(found).__name__
    return ToolServerError(words.OTHER, server=name, detail=detail)
