"""The values the tools area hands out: a server's tool, a call's result, its progress."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from client.services.tools.server_errors import ToolServerError


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One tool as its server lists it: what the model is told about it."""

    server: str  # the server's name in Tachy's settings
    name: str
    description: str
    input_schema: dict[str, Any] = field(default_factory=dict)  # JSON Schema of the arguments


@dataclass(frozen=True, slots=True)
class ToolProgress:
    """A server's progress notification for a running call (total None: unknown)."""

    progress: float
    total: float | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a call gives back to the model: its text, whether it is an error, its time.

    A tool's own error, a timeout and a server that failed are all results marked
    is_error, so the model hears of them; `problem` names a server failure's kind."""

    text: str
    is_error: bool
    elapsed_ms: float
    structured: dict[str, Any] | None = None  # the tool's structured content, if any
    problem: str | None = None  # None, "timeout", "server" or "denied"


@dataclass(frozen=True, slots=True)
class ServerState:
    """What the Tools window shows for a server: not started, starting, ready, failed."""

    name: str
    phase: str  # "idle", "starting", "ready" or "failed"
    tools: tuple[ToolInfo, ...] = ()
    problem: ToolServerError | None = None  # failed: why (str() is the sentence)
    # Failed to start: not started again before this time.monotonic() (None: a failure
    # after it was ready, which the next use starts again at once).
    retry_at: float | None = None

    def settled(self, now: float) -> bool:
        """A failure the next listing gives again without starting the server: its
        tools are known to be none."""
        return self.phase == "failed" and self.retry_at is not None and now < self.retry_at


@dataclass(frozen=True, slots=True)
class ToolListing:
    """The tools of the servers asked for, and why the others gave none."""

    tools: tuple[ToolInfo, ...] = ()
    # server name -> why it gave none (str() is the sentence)
    problems: dict[str, ToolServerError] = field(default_factory=dict)
