"""Two submenus of the Demo menu: the bundled scenario files, and the live control.

"Scenario files" plays one of resources/scenarios/*.toml (sequences such as "503, then
ok", several models); "Next answers" changes the TTFT, TPOT and fault of the next
questions while the lab runs (client/lab/running/live.py), so a presenter moves the same
question through instant, fast, typing and slow in front of an audience.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from client.ui.common.async_errors import KeptTasks
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.resources import resource

if TYPE_CHECKING:
    from client.lab import RunningLab


class LabHost(Protocol):
    """What the Demo menu (client/ui/demo/demo_menu.py) lends these submenus."""

    menu: QMenu
    scenarios: QActionGroup  # the checkable scenarios: one checked at a time
    lab: RunningLab | None
    task: asyncio.Task[Any] | None
    tasks: KeptTasks


# The bundled files' names as the menu shows them (tests/ui/demo/test_demo_live.py checks
# this list against resources/scenarios/).
FILE_NAMES = (
    QT_TRANSLATE_NOOP("DemoLive", "chaos"),
    QT_TRANSLATE_NOOP("DemoLive", "cold-then-stall"),
    QT_TRANSLATE_NOOP("DemoLive", "cold-then-warm"),
    QT_TRANSLATE_NOOP("DemoLive", "demo-tiers"),
    QT_TRANSLATE_NOOP("DemoLive", "fast-down-strong-up"),
    QT_TRANSLATE_NOOP("DemoLive", "first-byte-timeout"),
    QT_TRANSLATE_NOOP("DemoLive", "llamacpp-4-slots"),
    QT_TRANSLATE_NOOP("DemoLive", "reset-then-continue"),
    QT_TRANSLATE_NOOP("DemoLive", "retry-after-503"),
    QT_TRANSLATE_NOOP("DemoLive", "stall-then-recovery"),
    QT_TRANSLATE_NOOP("DemoLive", "thinking-model"),
    QT_TRANSLATE_NOOP("DemoLive", "unknown-model"),
)


def bundled_scenarios() -> list[Path]:
    return sorted(resource("scenarios").glob("*.toml"))


class DemoLive(QObject):
    def __init__(self, demo: LabHost, parent: QObject) -> None:
        super().__init__(parent)
        self.demo = demo
        self.files_menu = QMenu(self.tr("Scenario files"), demo.menu)
        self.files_menu.setObjectName("labScenarioFiles")
        self.file_actions: dict[str, QAction] = {}
        for path in bundled_scenarios():
            action = self._add(self.files_menu, self.tr(path.stem), f"scenario-file-{path.stem}")
            action.triggered.connect(lambda _=False, p=path: self.play(p))
            action.setCheckable(True)
            demo.scenarios.addAction(action)  # one scenario checked, preset or file
            self.file_actions[path.stem] = action
        self.live_menu = QMenu(self.tr("Next answers"), demo.menu)
        self.live_menu.setObjectName("labLiveControl")
        # What is set stays checked (one tier, one fault), so a presenter sees it; "As
        # the scenario says", another scenario or stopping the lab clears both.
        self.tiers = _optional_group(self)
        self.faults = _optional_group(self)
        self.live_actions = [
            self._live(self.tr("Instant (about 30 ms)"), "instant", {"tier": "instant"}),
            self._live(self.tr("Fast (about 180 ms)"), "fast", {"tier": "fast"}),
            self._live(self.tr("Typing (about 600 ms)"), "typing", {"tier": "typing"}),
            self._live(self.tr("Slow (about 2.5 s)"), "slow", {"tier": "slow"}),
            self._live(self.tr("Server busy (503)"), "busy", {"fault": {"kind": "queue_full"}}),
            self._live(
                self.tr("Cut off mid-answer"),
                "reset",
                {"fault": {"kind": "reset", "after_tokens": 12}},
            ),
            self._live(
                self.tr("Pause for 5 s mid-answer"),
                "stall",
                {"fault": {"kind": "stall", "after_tokens": 10, "seconds": 5}},
            ),
            self._live(self.tr("No fault"), "no-fault", {"fault": None}),
            self._live(self.tr("As the scenario says"), "clear", {"clear": True}),
        ]
        demo.menu.addSeparator()
        demo.menu.addMenu(self.files_menu)
        demo.menu.addMenu(self.live_menu)

    def _add(self, menu: QMenu, text: str, name: str) -> QAction:
        action = QAction(text, menu)
        action.setObjectName(name)
        menu.addAction(action)
        return action

    def _live(self, text: str, name: str, body: dict[str, Any]) -> QAction:
        action = self._add(self.live_menu, text, f"live-{name}")
        group = self.tiers if "tier" in body else self.faults if "fault" in body else None
        if group is not None:
            action.setCheckable(True)
            group.addAction(action)
        action.triggered.connect(lambda _=False, a=action, b=body: self._set_live(a, b))
        return action

    def _set_live(self, action: QAction, body: dict[str, Any]) -> None:
        if action.isCheckable():
            action.setChecked(True)  # a second click sets it again: it stays checked
        self.control(body)

    def show_running(self, running: bool) -> None:
        self.files_menu.setEnabled(running)
        self.live_menu.setEnabled(running)
        for action in self.file_actions.values():
            action.setEnabled(running)
            if not running:
                action.setChecked(False)
        self.show_cleared()

    def show_cleared(self) -> None:
        """Nothing set live: the lab plays its scenario as it says (a new scenario, a new
        lab and "As the scenario says" all start from there)."""
        for group in (self.tiers, self.faults):
            checked = group.checkedAction()
            if checked is not None:
                checked.setChecked(False)

    def play(self, path: Path) -> None:
        self.file_actions[path.stem].setChecked(True)
        self.show_cleared()
        lab = self.demo.lab
        if lab is not None:
            work = _off_thread(lab.set_scenario, path)
            self.demo.task = self.demo.tasks.spawn(work, "switch the lab's scenario")

    def control(self, body: dict[str, Any]) -> None:
        if body.get("clear"):
            self.show_cleared()
        lab = self.demo.lab
        if lab is not None:
            work = _off_thread(lab.control, body)
            self.demo.task = self.demo.tasks.spawn(work, "change the next answers")


def _optional_group(parent: QObject) -> QActionGroup:
    group = QActionGroup(parent)
    group.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
    return group


Argument = TypeVar("Argument")


async def _off_thread(call: Callable[[Argument], object], argument: Argument) -> None:
    """The lab's own thread does the work; the window never waits on it."""
    await asyncio.get_running_loop().run_in_executor(None, call, argument)
