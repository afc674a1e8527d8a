"""Whether a tool call needs the user's yes: ask by default; "Always allow this tool" is
kept per server (saved, revocable in the Tools window); Deny gives the model a result
saying so. A call the model makes because of a tool's result is asked about like any
other: a result is data for the model, never an instruction to Tachy.
"""

from __future__ import annotations

import enum

from client.services.tools.tool_types import ToolResult
from client.store.settings import Settings

ALLOWED_KEY = "tool_always_allowed"  # {server name: [tool names]}
DENIED_BY_USER = "denied by the user"


class ApprovalChoice(enum.Enum):
    ALLOW_ONCE = "allow_once"
    ALWAYS_ALLOW = "always_allow"
    DENY = "deny"


def denied_result() -> ToolResult:
    """What the model gets for a call the user denied (nothing ran: 0 ms)."""
    return ToolResult(DENIED_BY_USER, is_error=True, elapsed_ms=0.0, problem="denied")


class ToolApproval:
    def __init__(self, settings: Settings | None) -> None:
        self._settings = settings
        self._memory: dict[str, list[str]] = {}  # without a store
        self._for_now: dict[str, bool] = {}  # server -> ask or not, whatever is saved

    def needs_asking(self, server: str, tool: str) -> bool:
        if server in self._for_now:
            return self._for_now[server]
        return tool not in self.allowed().get(server, [])

    def for_now(self, server: str, ask: bool | None) -> None:
        """Ask (True) or not (False) about every tool of `server` until set back to None,
        whatever is saved; nothing is saved (the Demo menu's turns on its demo tools)."""
        if ask is None:
            self._for_now.pop(server, None)
        else:
            self._for_now[server] = ask

    def decide(self, server: str, tool: str, choice: ApprovalChoice) -> bool:
        """Record the user's answer; True when the call may run."""
        if choice is ApprovalChoice.ALWAYS_ALLOW:
            self.always_allow(server, tool)
        return choice is not ApprovalChoice.DENY

    def always_allow(self, server: str, tool: str) -> None:
        allowed = self.allowed()
        allowed[server] = sorted({*allowed.get(server, []), tool})
        self._save(allowed)

    def revoke(self, server: str, tool: str) -> None:
        allowed = self.allowed()
        allowed[server] = [name for name in allowed.get(server, []) if name != tool]
        self._save({name: tools for name, tools in allowed.items() if tools})

    def forget_server(self, server: str, renamed_to: str | None = None) -> None:
        """A removed server's grants go with it; a renamed one keeps them."""
        allowed = self.allowed()
        tools = allowed.pop(server, [])
        if renamed_to is not None and tools:
            allowed[renamed_to] = tools
        self._save(allowed)

    def allowed(self) -> dict[str, list[str]]:
        """Every "always allowed" tool, by server."""
        stored = self._settings.get(ALLOWED_KEY) if self._settings else self._memory
        if not isinstance(stored, dict):
            return {}
        return {
            str(server): [str(tool) for tool in tools]
            for server, tools in stored.items()
            if isinstance(tools, list)
        }

    def _save(self, allowed: dict[str, list[str]]) -> None:
        if self._settings is not None:
            self._settings.set(ALLOWED_KEY, allowed)
        else:
            self._memory = allowed
