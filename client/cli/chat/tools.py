"""`tachy chat --mcp FILE`: the model may call the tools of the MCP servers in FILE (the
`{"mcpServers": {...}}` JSON of Claude Desktop, LM Studio and Cursor), through the tool
loop (client/services/tools/loop.py).

    tachy chat --mcp mcp.json --allow-tools add "What is 2 + 3? Use add."

Each call is asked about on the terminal (y: once, a: always in this command, else no)
unless --allow-tools names it (or says `all`); without a terminal it is denied and the
model is told so. The servers are used as the file gives them and saved nowhere. Ctrl-C
stops whatever runs (the question, a tool, the model's request) and exits 130; Tachy's
own stdio servers are ended at once rather than after their grace period.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from client.backends.base import Backend
from client.backends.errors import TachyError
from client.backends.reasons import os_words
from client.backends.stream import StreamTimeouts
from client.cli.chat import tool_printer
from client.cli.common.chat_common import say
from client.cli.common.server_wait import LOAD_WAIT_S
from client.core.conversation import ChatRequest
from client.services.chat.stream_opener import LoadingRetryStream, PlainOpener
from client.services.tools.approval import ApprovalChoice
from client.services.tools.loop import ApprovalAsk, ToolLoop
from client.services.tools.loop_events import STEP_LIMIT
from client.services.tools.mcp_json import McpJsonError, parse_mcp_json
from client.services.tools.server_settings import StdioServer, ToolServerSettings
from client.services.tools.tool_offer import ToolOffer
from client.services.tools.tool_servers import ToolServers

ALL = "all"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mcp",
        type=Path,
        metavar="FILE",
        help='offer the model the tools of the MCP servers in FILE ({"mcpServers": ...})',
    )
    parser.add_argument(
        "--allow-tools",
        type=allowed_tools,
        default=frozenset(),
        metavar="NAME[,NAME]|all",
        help="run these tools without asking (all: every tool); others are asked about "
        "on a terminal, and denied without one",
    )
    parser.add_argument(
        "--tool-steps",
        type=_at_least_one,
        default=STEP_LIMIT,
        metavar="N",
        help=f"at most N model calls in the turn ({STEP_LIMIT})",
    )


def allowed_tools(text: str) -> frozenset[str]:
    return frozenset(name.strip() for name in text.split(",") if name.strip())


def wanted(args: argparse.Namespace) -> bool:
    return getattr(args, "mcp", None) is not None


async def run(
    args: argparse.Namespace,
    servers: ToolServers,
    backend: Backend,
    request: ChatRequest,
    timeouts: StreamTimeouts,
    offer: ToolOffer | None = None,
) -> int:
    """One turn with tools (`offer`: opened before planning, else here); its exit code
    (chat_common's, 130 when stopped)."""
    settings = read_servers(args.mcp)
    if offer is None:
        offer = await open_tools(servers, settings)
    calls = ModelCalls(backend, timeouts)
    approver = TerminalApprover(args.allow_tools)
    loop = ToolLoop(calls.open, offer, servers, approver, step_limit=args.tool_steps)
    printer = tool_printer.printer_for(args, calls)
    try:
        async for item in loop.run(request):
            printer.show(item)
    except asyncio.CancelledError:  # Ctrl-C: what was printed stays; the servers end now
        printer.stopped(loop)
        end_own_servers(settings)
        raise
    return printer.ended(loop)


async def open_offer(args: argparse.Namespace, servers: ToolServers) -> ToolOffer:
    """The --mcp file's servers started and their tools offered (before planning)."""
    return await open_tools(servers, read_servers(args.mcp))


def read_servers(path: Path) -> list[ToolServerSettings]:
    """The file's servers; one that cannot be used is said and left out."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise TachyError(f"Can't read the MCP servers file {path}: {os_words(error)}.") from error
    try:
        imported = parse_mcp_json(text)
    except McpJsonError as error:
        raise TachyError(f"{path}: {error}") from error
    servers = []
    for entry in imported:
        if entry.server is None:
            say(f"tool server {entry.name} left out: {entry.problem}")
        elif entry.server.on_by_default:
            servers.append(entry.server)
    return servers


async def open_tools(servers: ToolServers, settings: list[ToolServerSettings]) -> ToolOffer:
    """Start the servers (all at once) and offer their tools; one that fails is said."""
    for server in settings:
        servers.use_unsaved(server)
    listing = await servers.listing([server.name for server in settings])
    for problem in listing.problems.values():
        say(str(problem))
    offer = ToolOffer.of(listing)
    say(f"tools: {', '.join(spec.name for spec in offer.specs) or 'none'}")
    return offer


class ModelCalls:
    """Opens each model call of the turn, as `tachy chat` opens its one (a 503 "Loading
    model" waited out), and keeps the latest stream (for its figures)."""

    def __init__(self, backend: Backend, timeouts: StreamTimeouts) -> None:
        self._backend = backend
        self._timeouts = timeouts
        self.current: LoadingRetryStream | None = None
        self.on_loading: Callable[[bool, LoadingRetryStream], None] | None = None

    def open(self, request: ChatRequest) -> LoadingRetryStream:
        limits = self._timeouts
        self.current = LoadingRetryStream(
            PlainOpener(self._backend), request, limits, limits.first_byte_s or LOAD_WAIT_S
        )
        self.current.on_loading = self._loading
        return self.current

    def _loading(self, on: bool) -> None:
        if self.on_loading is not None and self.current is not None:
            self.on_loading(on, self.current)


class TerminalApprover:
    """--allow-tools first; else y/n on the terminal; else (no terminal) deny."""

    def __init__(self, allowed: frozenset[str]) -> None:
        self._allowed = allowed

    async def __call__(self, ask: ApprovalAsk) -> ApprovalChoice:
        name = ask.call.name
        if ALL in self._allowed or name in self._allowed:
            return ApprovalChoice.ALLOW_ONCE
        if not sys.stdin.isatty():
            say(f"{name} denied: there is no terminal to ask (pass --allow-tools {name})")
            return ApprovalChoice.DENY
        arguments = ask.call.arguments_json()
        print(f"Run {name} {arguments} on {ask.server}? [y]es, [a]lways, [N]o: ",
              end="", file=sys.stderr, flush=True)  # fmt: skip
        answer = (await _line_from_terminal()).strip().lower()
        if answer in ("a", "always"):
            return ApprovalChoice.ALWAYS_ALLOW
        return ApprovalChoice.ALLOW_ONCE if answer in ("y", "yes") else ApprovalChoice.DENY


async def _line_from_terminal() -> str:
    """A line typed on stdin, read when it is there: cancelling the await leaves no
    thread blocked in a read (which would hold up the exit)."""
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()
    typed: asyncio.Future[str] = loop.create_future()

    def readable() -> None:
        if not typed.done():
            typed.set_result(os.read(fd, 4096).decode(errors="replace"))

    loop.add_reader(fd, readable)
    try:
        return await typed
    finally:
        loop.remove_reader(fd)


def end_own_servers(settings: list[ToolServerSettings]) -> None:
    """SIGTERM the process groups of this command's own stdio servers (Linux: read from
    /proc), so that one stuck in a tool does not hold the exit up for the SDK's grace
    period (2 s, then a kill). Elsewhere they are left to that shutdown."""
    wanted = [list(server.args) for server in settings if isinstance(server, StdioServer)]
    if not wanted or not Path("/proc/self").exists():
        return
    for pid in _children():
        if _arguments_of(pid) not in wanted:
            continue
        try:
            if os.getsid(pid) == pid:  # the group the SDK started it in
                os.killpg(pid, signal.SIGTERM)
        except OSError:
            pass  # it ended meanwhile


def _children() -> list[int]:
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (command) "
        if int(fields[1]) == me:
            found.append(int(entry.name))
    return found


def _arguments_of(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode(errors="replace") for part in raw.split(b"\0")[1:-1]]


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value
