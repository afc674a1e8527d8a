"""The Demo menu: run the latency lab inside the app and switch its scenario live.

"Start latency lab" starts client.lab on a free loopback port (its own thread and
event loop) and makes it the current server, spoken to with the Ollama API so that
keep_alive, load and ps work. Each preset is one checkable action: one click switches
the scenario for the next question. "Stop latency lab" stops it and goes back to the
server used before. Starting, switching and stopping run in a worker thread, so the
window never waits on the lab.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from client.lab.scenarios.scenario import PRESETS
from client.services.servers.servers import ServerChoice
from client.ui.common.async_errors import KeptTasks
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.demo.demo_live import DemoLive
from client.ui.demo.demo_races import DemoRaces
from client.ui.demo.demo_tools import DemoTools

if TYPE_CHECKING:
    from client.lab import RunningLab
    from client.ui.servers.server_controller import ServerController

LAB_NAME = "Latency lab (demo)"
LAB_MODEL = "tachy-lab:latest"
FIRST_SCENARIO = "fast"
# The lab's preset names as the menu shows them (tests/ui/shell/test_translations.py checks
# this list against client.lab.scenarios.scenario.PRESETS).
SCENARIO_NAMES = {  # preset -> the plain name the menu shows
    "instant": QT_TRANSLATE_NOOP("DemoMenu", "Instant reply (under 100 ms)"),
    "fast": QT_TRANSLATE_NOOP("DemoMenu", "Fast reply (under 300 ms)"),
    "typing": QT_TRANSLATE_NOOP("DemoMenu", "Typing indicator (under 1 s)"),
    "slow": QT_TRANSLATE_NOOP("DemoMenu", "Slow reply (over 1 s)"),
    "cold-start": QT_TRANSLATE_NOOP("DemoMenu", "Model loads first (cold start)"),
    "thinking": QT_TRANSLATE_NOOP("DemoMenu", "Model thinks before answering"),
    "flaky": QT_TRANSLATE_NOOP("DemoMenu", "Unreliable server"),
    "stall": QT_TRANSLATE_NOOP("DemoMenu", "Answer pauses midway"),
    "reset": QT_TRANSLATE_NOOP("DemoMenu", "Connection drops midway"),
    "prefill": QT_TRANSLATE_NOOP("DemoMenu", "Long question, reading progress shown"),
    "continuous": QT_TRANSLATE_NOOP("DemoMenu", "Busy server, answers interleaved"),
    "static": QT_TRANSLATE_NOOP("DemoMenu", "Busy server, answers in fixed batches"),
    "steady": QT_TRANSLATE_NOOP("DemoMenu", "Steady answer (6 tokens a second)"),
    "bursty": QT_TRANSLATE_NOOP("DemoMenu", "Bursty answer (same rate, in bursts)"),
    "overloaded": QT_TRANSLATE_NOOP("DemoMenu", "Overloaded server (busy errors)"),
}


class DemoMenu(QObject):
    def __init__(
        self, servers: ServerController, menu: QMenu, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.servers = servers
        self.window = servers.window
        self.menu = menu  # the window's Demo menu
        self.lab: RunningLab | None = None
        self.choice: ServerChoice | None = None  # the lab, as a server of the picker
        self.previous: ServerChoice | None = None  # what to go back to on Stop
        self.task: asyncio.Task[Any] | None = None  # the last start / switch / stop
        self.tasks = KeptTasks()  # all of them still running, cancelled at quit
        self.start_action = self._action(self.tr("Start latency lab"), "startLab", self.start)
        self.stop_action = self._action(self.tr("Stop latency lab"), "stopLab", self.stop)
        self.menu.addSeparator()
        self.scenarios = QActionGroup(self)
        self.scenarios.setExclusive(True)
        self.scenario_actions: dict[str, QAction] = {}
        for name in PRESETS:
            action = self._action(
                self.tr(SCENARIO_NAMES.get(name, name)),
                f"scenario-{name}",
                lambda _=False, n=name: self.pick(n),
            )
            action.setCheckable(True)
            self.scenarios.addAction(action)
            self.scenario_actions[name] = action
        self.live = DemoLive(self, self)  # scenario files and the live control (submenus)
        self.tool_turns = DemoTools(self, servers.page, servers.tachy.turn_tools, self)
        self.races = DemoRaces(self.menu, self)  # bundled races (Race… is added after them)
        self._show_running(False)

    def _action(self, text: str, name: str, slot: Callable[..., object]) -> QAction:
        action = QAction(text, self.menu)
        action.setObjectName(name)
        action.triggered.connect(slot)
        self.menu.addAction(action)
        return action

    def _show_running(self, running: bool) -> None:
        self.start_action.setEnabled(not running)
        self.stop_action.setEnabled(running)
        for action in self.scenario_actions.values():
            action.setEnabled(running)
            if not running:
                action.setChecked(False)
        self.live.show_running(running)

    @property
    def scenario(self) -> str | None:
        """The scenario the lab is playing now (None when it is not running)."""
        return self.lab.server.scenario.name if self.lab is not None else None

    # --- the menu's actions ------------------------------------------------------------
    def start(self) -> None:
        if self.lab is None and not self._working():
            self.start_action.setEnabled(False)  # no second lab from a double click
            self.task = self.tasks.spawn(self._start(), "start the latency lab")

    def pick(self, name: str) -> None:
        self.scenario_actions[name].setChecked(True)
        self.live.show_cleared()  # the lab forgets what was set live with a new scenario
        if self.lab is not None:
            self.task = self.tasks.spawn(self._pick(self.lab, name), "switch the lab's scenario")

    def stop(self) -> None:
        if self.lab is not None:
            self.stop_action.setEnabled(False)
            self.task = self.tasks.spawn(self._stop(self.lab), "stop the latency lab")

    def _working(self) -> bool:
        return self.task is not None and not self.task.done()

    async def lab_in_use(self, scenario: str) -> RunningLab | None:
        """The lab playing `scenario` and the current server, started first if need be
        (the tool turns' way in); None when it could not start (the error was shown)."""
        if self._working() and self.task is not None:
            await asyncio.wait({self.task})  # a start, switch or stop under way ends first
        if self.lab is None:
            self.start()
            if self.task is not None:
                await asyncio.wait({self.task})
        if self.lab is None or self.choice is None:
            return None
        if self.scenario != scenario:
            self.pick(scenario)
            if self.task is not None:
                await asyncio.wait({self.task})
        current = self.servers.current
        if current is None or current.key != self.choice.key:
            await self.servers.select(self.choice, LAB_MODEL)
        return self.lab

    # --- the work, off the GUI thread ------------------------------------------------
    async def _start(self) -> None:
        from client.lab import run_in_thread  # aiohttp loads only when the lab starts

        starting = asyncio.get_running_loop().run_in_executor(None, run_in_thread, FIRST_SCENARIO)
        try:
            lab = await asyncio.shield(starting)
        except asyncio.CancelledError:  # quitting while it starts: stop it once it has
            starting.add_done_callback(_stop_started_lab)
            raise
        except Exception:
            self._show_running(False)
            raise
        self.lab = lab
        self.previous = self.servers.current
        self.choice = ServerChoice(LAB_NAME, lab.url, "ollama")
        bar = self.window.server_bar
        bar.set_choices([*bar.choices, self.choice], self.choice)
        self._show_running(True)
        self.scenario_actions[FIRST_SCENARIO].setChecked(True)
        await self.servers.select(self.choice, LAB_MODEL)

    async def _pick(self, lab: RunningLab, name: str) -> None:
        await asyncio.get_running_loop().run_in_executor(None, lab.set_scenario, name)

    async def _stop(self, lab: RunningLab) -> None:
        self.servers.page.stop()  # an answer from the lab ends here, its text kept
        self.lab = None  # stopping from here on, even if quitting cancels the wait
        await self.tool_turns.end()  # the demo tool server's process ends
        await asyncio.get_running_loop().run_in_executor(None, lab.stop)
        choice, self.choice = self.choice, None
        previous, self.previous = self.previous, None
        self._show_running(False)
        current = self.servers.current
        on_lab = choice is not None and current is not None and current.key == choice.key
        bar = self.window.server_bar
        kept = [c for c in bar.choices if choice is None or c.key != choice.key]
        bar.set_choices(kept, previous if on_lab else current)
        if choice is not None:
            await self.servers.forget(choice)
        if not on_lab:
            return  # the user chose another server meanwhile: stay there
        if previous is not None:
            await self.servers.select(previous)
        else:
            self.servers.use_local()  # what the app does when it knows no server

    async def aclose(self) -> None:
        """At quit: cancel what is under way, stop the lab's thread (its sockets too)."""
        await self.tasks.aclose()
        await self.races.aclose()
        await self.tool_turns.end()
        lab, self.lab = self.lab, None
        if lab is not None:
            await asyncio.get_running_loop().run_in_executor(None, lab.stop)


def _stop_started_lab(starting: asyncio.Future[RunningLab]) -> None:
    if not starting.cancelled() and starting.exception() is None:
        starting.result().stop()
