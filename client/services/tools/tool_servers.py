"""The user's MCP servers as the chat loop and the Tools window use them:

    servers = ToolServers(stores.settings)
    listing = await servers.listing(servers.saved.enabled_for(conversation_id))
    if servers.approval.needs_asking(tool.server, tool.name): ...ask the user...
    result = await servers.call(tool.server, tool.name, arguments, on_progress=show)

Servers start lazily, on the first listing or call that names them, on the tools thread
(tools_thread.py), never on the window's loop. A server that fails to start says why in
one sentence (its ServerState, the listing's `problems`) and the others go on; it is not
tried again for RETRY_AFTER_S unless the user asks (`restart`). Callers on any asyncio
loop await these methods; progress listeners are called on the caller's loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any

from client.services.tools import server_errors as words
from client.services.tools.approval import ToolApproval
from client.services.tools.connection import ProgressListener, ServerConnection
from client.services.tools.saved_tool_servers import SavedToolServers, secrets_filled
from client.services.tools.server_errors import ToolServerError
from client.services.tools.server_settings import ToolServerSettings
from client.services.tools.tool_types import (
    ServerState,
    ToolInfo,
    ToolListing,
    ToolProgress,
    ToolResult,
)
from client.services.tools.tools_thread import ToolsThread
from client.store.settings import Settings

CONNECT_TIMEOUT_S = 30.0  # a first `npx -y ...` downloads its package: give it time
KILL_AFTER_S = 2.0  # a stdio server still busy this long after a cancel is stopped
CALL_TIMEOUT_S = 120.0
RETRY_AFTER_S = 30.0  # a server that failed to start is not started again before this
StateListener = Callable[[ServerState], None]


class ToolServers:
    def __init__(
        self,
        settings: Settings | None,
        *,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        kill_after_s: float = KILL_AFTER_S,
    ) -> None:
        self.saved = SavedToolServers(settings)
        self.approval = ToolApproval(settings)
        self.connect_timeout_s = connect_timeout_s
        self.kill_after_s = kill_after_s
        self._thread = ToolsThread()
        self._unsaved: dict[str, ToolServerSettings] = {}  # used as given (`tachy chat --mcp`)
        # Touched only on the tools thread:
        self._connections: dict[str, ServerConnection] = {}
        self._left: set[ServerConnection] = set()  # left, maybe still winding down
        self._opening: dict[str, asyncio.Task[ServerConnection]] = {}
        # Replaced whole on the tools thread, read anywhere:
        self._states: dict[str, ServerState] = {}
        self._watchers: list[tuple[asyncio.AbstractEventLoop, StateListener]] = []

    # --- for the loop -------------------------------------------------------------------
    async def listing(self, names: Iterable[str]) -> ToolListing:
        """The tools of the named servers (each started if need be, all at once), and a
        sentence for each that gave none."""
        names = list(dict.fromkeys(names))
        found = await asyncio.gather(*(self.server_tools(n) for n in names), return_exceptions=True)
        tools: list[ToolInfo] = []
        problems: dict[str, ToolServerError] = {}
        for name, outcome in zip(names, found, strict=True):
            if isinstance(outcome, ToolServerError):
                problems[name] = outcome
            elif isinstance(outcome, BaseException):
                raise outcome  # a cancel, or a bug: not the server's to answer for
            else:
                tools += outcome
        return ToolListing(tuple(tools), problems)

    def known_listing(self, names: Iterable[str]) -> ToolListing | None:
        """What `listing(names)` would give, when that is known from the servers' states
        alone (no I/O, any thread): each server ready, or failed to start and not due to
        be started again (its tools none, its sentence in `problems`). None when one is
        not started, starting, or due to be tried again (a listing would start or wait
        for it)."""
        now = time.monotonic()
        states = [self.state(name) for name in dict.fromkeys(names)]
        if any(state.phase != "ready" and not state.settled(now) for state in states):
            return None
        tools = tuple(tool for state in states if state.phase == "ready" for tool in state.tools)
        problems = {s.name: s.problem for s in states if s.settled(now) and s.problem}
        return ToolListing(tools, problems)

    async def server_tools(self, name: str) -> tuple[ToolInfo, ...]:
        """One server's tools; ToolServerError says why there are none."""
        server = self._settings(name)
        connection = await self._thread.run(self._connection(server))
        return connection.tools

    async def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        *,
        timeout_s: float = CALL_TIMEOUT_S,
        on_progress: ProgressListener | None = None,
    ) -> ToolResult:
        """Run one tool (after the user's approval: see `approval`). A tool's error, a
        timeout and a server that fails are results marked is_error, for the model to
        read. Cancelling this await cancels the call on the server at once."""
        started = time.perf_counter()
        relay = _relayed(on_progress) if on_progress is not None else None
        try:
            settings = self._settings(server)
            return await self._thread.run(self._call(settings, tool, arguments, timeout_s, relay))
        except ToolServerError as problem:
            elapsed = (time.perf_counter() - started) * 1000.0
            return ToolResult(problem.sentence, True, elapsed, problem="server")

    def use_unsaved(self, server: ToolServerSettings) -> None:
        """Use a server as given, its env and header values included, saved nowhere (not
        in the settings, not in the keyring): `tachy chat --mcp FILE`'s servers."""
        self._unsaved[server.name] = server

    async def forget_unsaved(self, name: str) -> None:
        """No longer use an unsaved server; stop it and wait until it has stopped (a saved
        one of that name starts again with its own settings when next used)."""
        if self._unsaved.pop(name, None) is not None and self._thread.running:
            await self._thread.run(self._forget(name, wait=True))

    # --- for the Tools window ---------------------------------------------------------
    def state(self, name: str) -> ServerState:
        return self._states.get(name) or ServerState(name, "idle")

    def watch(self, listener: StateListener) -> None:
        """Call `listener` with each server's new state, on the caller's loop (a server
        starting, ready, failing, or stopping in the middle of its work)."""
        self._watchers.append((asyncio.get_running_loop(), listener))

    async def restart(self, name: str) -> tuple[ToolInfo, ...]:
        """Leave the server and start it again now (the window's Try again)."""
        await self._leave(name)
        return await self.server_tools(name)

    async def save(self, server: ToolServerSettings, old_name: str | None = None) -> None:
        """Save a server (see SavedToolServers.save); a changed one is left, to be
        started again with its new settings when next used."""
        await self.saved.save(server, old_name)
        if old_name is not None and old_name != server.name:
            self.approval.forget_server(old_name, renamed_to=server.name)
            await self._leave(old_name)
        await self._leave(server.name)

    async def remove(self, name: str) -> None:
        """Forget a server, its secrets and its always-allowed tools; stop it."""
        await self.saved.remove(name)
        self.approval.forget_server(name)
        await self._leave(name)

    async def aclose(self) -> None:
        """Stop every server (each within a few seconds), then the tools thread."""
        if not self._thread.running:
            return
        await self._thread.run(self._close_all())
        await asyncio.to_thread(self._thread.close)

    def _settings(self, name: str) -> ToolServerSettings:
        server = self._unsaved.get(name) or self.saved.get(name)
        if server is None:
            raise ToolServerError(words.UNKNOWN_SERVER, server=name)
        return server

    async def _leave(self, name: str) -> None:
        if self._thread.running:  # else no server was ever started: nothing to leave
            await self._thread.run(self._forget(name))

    # --- on the tools thread -------------------------------------------------------------
    async def _connection(self, server: ToolServerSettings) -> ServerConnection:
        name = server.name
        connection = self._connections.get(name)
        if connection is not None and connection.alive:
            return connection
        # One test for the turn and for what is known ahead (known_listing).
        if connection is not None and connection.failure:
            if self.state(name).settled(time.monotonic()):
                raise connection.failure
        opening = self._opening.get(name)
        if opening is None:
            opening = self._opening[name] = asyncio.create_task(self._open(server))
            opening.add_done_callback(lambda _: self._opening.pop(name, None))
        return await asyncio.shield(opening)  # a cancelled caller leaves it starting

    async def _open(self, server: ToolServerSettings) -> ServerConnection:
        name = server.name
        self._set_state(ServerState(name, "starting"))
        connection = ServerConnection(
            server, self.connect_timeout_s, self.kill_after_s, on_end=self._ended
        )
        old = self._connections.get(name)
        if old is not None and old.session_open:  # stopped after a cancel, still stopping
            self._left.add(old)
        self._connections[name] = connection
        try:
            filled = server  # an unsaved server has its values
            if name not in self._unsaved:
                filled = await asyncio.to_thread(secrets_filled, server)  # the keyring may block
            connection.settings = filled
            tools = await connection.open()
        except Exception as error:
            failure = error if isinstance(error, ToolServerError) else _other(name, error)
            connection.failure = failure
            retry_at = time.monotonic() + RETRY_AFTER_S
            self._set_state(ServerState(name, "failed", problem=failure, retry_at=retry_at))
            raise failure from None
        self._set_state(ServerState(name, "ready", tools))
        return connection

    async def _call(
        self,
        server: ToolServerSettings,
        tool: str,
        arguments: dict[str, Any],
        timeout_s: float,
        on_progress: ProgressListener | None,
    ) -> ToolResult:
        connection = await self._connection(server)
        return await connection.call(tool, arguments, timeout_s, on_progress)

    def _ended(self, connection: ServerConnection) -> None:
        """A server that was ready stopped (it died, or was stopped after a cancel); the
        next use starts it again. One Tachy left on purpose says nothing."""
        name = connection.name
        if self._connections.get(name) is not connection:
            return
        if connection.failure is None:
            self._set_state(ServerState(name, "idle"))
        else:
            self._set_state(ServerState(name, "failed", problem=connection.failure))

    async def _forget(self, name: str, wait: bool = False) -> None:
        connection = self._connections.pop(name, None)
        if self._states.pop(name, None) is not None:
            self._tell(ServerState(name, "idle"))
        if connection is not None and wait:
            await connection.close()
        elif connection is not None:
            connection.stop()  # it winds down on this thread; nobody waits for it but aclose
            self._left = {c for c in self._left if c.session_open} | {connection}

    def _set_state(self, state: ServerState) -> None:
        self._states[state.name] = state
        self._tell(state)

    def _tell(self, state: ServerState) -> None:
        for loop, listener in self._watchers:
            if not loop.is_closed():
                loop.call_soon_threadsafe(listener, state)

    async def _close_all(self) -> None:
        # A server left a moment ago may still be stopping (one that hangs takes seconds):
        # waited for too, or its process would outlive Tachy.
        connections = [*self._connections.values(), *self._left]
        self._connections.clear()
        self._left.clear()
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)


def _relayed(listener: ProgressListener) -> ProgressListener:
    """The listener, called on the caller's loop (progress arrives on the tools thread)."""
    loop = asyncio.get_running_loop()

    def relay(progress: ToolProgress) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(listener, progress)

    return relay


def _other(name: str, error: Exception) -> ToolServerError:
    detail = str(error) or type(error).__name__
    return ToolServerError(words.OTHER, server=name, detail=detail)
