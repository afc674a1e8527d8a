"""Demo ▸ Tool turns: one click asks the latency lab's tool-calling model a question that
makes it call tools of the bundled demo MCP server (client/lab/mcp_demo, run as Tachy's own
stdio subprocess), so a presenter shows each wait of a turn with tools:

- "Fast tool": add answers at once;
- "Slow tool": slow_count takes 3 s, said as "Using slow_count… 1.2 s";
- "Failing tool": fail's error goes back to the model as an error result, and it answers;
- "Tool that hangs": hang never returns; Stop ends the turn at once and keeps every word
  (the server, blocked for good, is started afresh before the next entry's question);
- "Parallel calls": add and slow_count run side by side;
- "Approval wait": add, asked about first ("Waiting for your approval", never latency).

Each starts the lab if need be, as "Start latency lab" does, switches it to the "fast"
preset (so the model's own waits are short beside the tools') and makes it the current
server; the demo server is lent to every conversation's turns while the lab runs
(TurnTools.lend: saved nowhere, nothing for the user to set up), and its tools run
without asking except in "Approval wait" (ToolApproval.for_now). Stopping the lab or
quitting takes the server back, which ends its process.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from client.services.tools.server_errors import ToolServerError
from client.services.tools.server_settings import DEMO_SERVER_NAME, demo_tool_server
from client.ui.common.async_errors import KeptTasks
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from client.lab import RunningLab
    from client.services.tools.turn_tools import TurnTools

TOOL_SCENARIO = "fast"


class LabStarter(Protocol):
    """What the Demo menu (client/ui/demo/demo_menu.py) does for the tool turns."""

    menu: QMenu

    async def lab_in_use(self, scenario: str) -> RunningLab | None: ...


class Chat(Protocol):
    """What the tool turns use of the chat (client/ui/chat/chat_page.py's ChatPage)."""

    @property
    def busy(self) -> bool: ...

    def send(self, text: str) -> None: ...


@dataclass(frozen=True, slots=True)
class ToolDemo:
    name: str  # the action's object name: "toolDemo-<name>"
    label: str  # as the menu shows it (translated when shown)
    question: str  # sent as the user's question; it names the tools the lab's model calls
    asks: bool = False  # the user is asked before the tools run


# The lab's model calls the tools a question names, with the question's numbers in order
# as their arguments (client/lab/tools/planning.py): a translation keeps the tools' names
# and the numbers in that order.
TOOL_DEMOS = (
    ToolDemo(
        "fast",
        QT_TRANSLATE_NOOP("DemoTools", "Fast tool (answers at once)"),
        QT_TRANSLATE_NOOP("DemoTools", "Use add for 2 and 3."),
    ),
    ToolDemo(
        "slow",
        QT_TRANSLATE_NOOP("DemoTools", "Slow tool (3 s)"),
        QT_TRANSLATE_NOOP("DemoTools", "Use slow_count for 3 seconds in 10 steps."),
    ),
    ToolDemo(
        "failing",
        QT_TRANSLATE_NOOP("DemoTools", "Failing tool (its error goes to the model)"),
        QT_TRANSLATE_NOOP("DemoTools", "Use fail to show how a tool's error reaches the model."),
    ),
    ToolDemo(
        "hang",
        QT_TRANSLATE_NOOP("DemoTools", "Tool that hangs (press Stop)"),
        QT_TRANSLATE_NOOP("DemoTools", "Use hang, then press Stop."),
    ),
    ToolDemo(
        "parallel",
        QT_TRANSLATE_NOOP("DemoTools", "Parallel calls (a fast and a slow tool)"),
        QT_TRANSLATE_NOOP(
            "DemoTools", "Use add for 2 and 3 and slow_count for 2 seconds in 4 steps."
        ),
    ),
    ToolDemo(
        "approval",
        QT_TRANSLATE_NOOP("DemoTools", "Approval wait (not counted as latency)"),
        QT_TRANSLATE_NOOP("DemoTools", "Use add for 4 and 5."),
        asks=True,
    ),
)


class DemoTools(QObject):
    def __init__(self, host: LabStarter, page: Chat, tools: TurnTools, parent: QObject) -> None:
        super().__init__(parent)
        self.host, self.page, self.tools = host, page, tools
        self.tasks = KeptTasks()
        self.task: asyncio.Task[None] | None = None  # the last entry's (tests wait on it)
        self._hung = False  # the last entry blocked the demo server (hang)
        self.menu = QMenu(self.tr("Tool turns"), host.menu)
        self.menu.setObjectName("demoToolTurns")
        self.actions: dict[str, QAction] = {}
        for demo in TOOL_DEMOS:
            action = QAction(self.tr(demo.label), self.menu)
            action.setObjectName(f"toolDemo-{demo.name}")
            action.triggered.connect(lambda _=False, d=demo: self.run(d))
            self.menu.addAction(action)
            self.actions[demo.name] = action
        host.menu.addMenu(self.menu)

    def run(self, demo: ToolDemo) -> None:
        starting = self.task is not None and not self.task.done()
        if not self.page.busy and not starting:  # one turn at a time: a click meanwhile
            self.task = self.tasks.spawn(self._run(demo), "ask the demo tools")  # does nothing

    async def _run(self, demo: ToolDemo) -> None:
        lab = await self.host.lab_in_use(TOOL_SCENARIO)
        if lab is None:
            return  # the lab did not start: its error was shown
        self.tools.lend(demo_tool_server())
        self.tools.servers.approval.for_now(DEMO_SERVER_NAME, demo.asks)
        if self._hung:  # its server, blocked for good, would fail the next call: a new one
            self._hung = False
            with contextlib.suppress(ToolServerError):  # the turn will say why, if it fails
                await self.tools.servers.restart(DEMO_SERVER_NAME)
        self.page.send(self.tr(demo.question))
        self._hung = demo.name == "hang"

    async def end(self) -> None:
        """The lab stops (or the app quits): the demo server is taken back and stopped."""
        await self.tasks.aclose()
        self._hung = False
        self.tools.servers.approval.for_now(DEMO_SERVER_NAME, None)
        await self.tools.take_back(DEMO_SERVER_NAME)
