"""Demo races (Demo ▸ Demo races): two bundled races a presenter starts with one click.

- "Local engine: cold against warm": a local engine started for the race and asked
  nothing yet (cold) against the app's engine, warmed first as the app warms at start.
- "Lab: fast against strong": a latency lab of its own (started once, on its thread)
  serving a fast model (fast tier) and a strong one (typing tier, slower decoding).

Both run through the Race… path (client/ui/race/race_menu.py); the question is the
composer's text, or a standard one.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMenu

from client.services.race.race_routes import RoutePick
from client.services.servers.servers import ServerChoice, local_engine_choice
from client.ui.common.async_errors import KeptTasks

if TYPE_CHECKING:
    from client.lab import RunningLab
    from client.ui.race.race_menu import RaceMenu

# The lab's two models: one in the fast tier, one in the typing tier that decodes slower.
RACE_LAB = {
    "seed": 31,
    "output_tokens": 90,
    "models": {
        "lab-fast": {"base": "fast", "tpot_ms": 18},
        "lab-strong": {"base": "typing", "tpot_ms": 45},
    },
}
RACE_LAB_NAME = "Latency lab (race)"


class DemoRaces(QObject):
    def __init__(self, menu: QMenu, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.race_menu: RaceMenu | None = None
        self.lab: RunningLab | None = None
        self.tasks = KeptTasks()
        self.menu = menu.addMenu(self.tr("Demo races"))
        self.menu.setObjectName("demoRaces")
        engine = self.menu.addAction(self.tr("Local engine: cold against warm"))
        engine.setObjectName("raceEngineColdWarm")
        engine.triggered.connect(self.race_engine)
        lab = self.menu.addAction(self.tr("Lab: fast against strong"))
        lab.setObjectName("raceLabFastStrong")
        lab.triggered.connect(self.race_lab)

    def attach(self, race_menu: RaceMenu) -> None:
        self.race_menu = race_menu

    def race_engine(self) -> None:
        local = local_engine_choice()
        picks = [
            RoutePick(local, "", fresh=True, label=self.tr("Local engine, cold")),
            RoutePick(local, "", warm=True, label=self.tr("Local engine, warm")),
        ]
        self._start(picks)

    def race_lab(self) -> None:
        self.tasks.spawn(self._race_lab(), "race on the latency lab")

    async def _race_lab(self) -> None:
        lab = await self._lab()
        choice = ServerChoice(RACE_LAB_NAME, lab.url, "openai")
        picks = [
            RoutePick(choice, "lab-fast", label=self.tr("Lab, fast model")),
            RoutePick(choice, "lab-strong", label=self.tr("Lab, strong model")),
        ]
        task = self._start(picks)
        if task is not None:
            await asyncio.wait({task})

    def _start(self, picks: list[RoutePick]) -> asyncio.Task[Any] | None:
        if self.race_menu is None:
            return None
        composer = self.race_menu.main.composer.toPlainText().strip()
        question = composer or self.tr("Why is the sky blue?")
        return self.race_menu.start(picks, question, composer_text=composer)

    async def _lab(self) -> RunningLab:
        if self.lab is None:
            from client.lab import run_in_thread, scenario_from_dict

            scenario = scenario_from_dict(dict(RACE_LAB))
            loop = asyncio.get_running_loop()
            self.lab = await loop.run_in_executor(None, run_in_thread, scenario)
        return self.lab

    async def aclose(self) -> None:
        await self.tasks.aclose()
        lab, self.lab = self.lab, None
        if lab is not None:
            await asyncio.get_running_loop().run_in_executor(None, lab.stop)
