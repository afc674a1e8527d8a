"""Demo races (Demo ▸ Demo races): two bundled races a presenter starts with one click.

- "Local engine: cold against warm": a local engine started for the race and asked
  nothing yet (cold) against the app's engine, warmed first as the app warms at start.
- "Lab: fast against strong": a latency lab of its own (started once, on its thread)
  serving a fast model (fast tier) and a strong one (typing tier, slower decoding).
- "Lab: steady against bursty": another lab whose two models answer with the same TTFT
  and tokens/s, one steadily and one in bursts: equal by those, apart by QoE.

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
# Two answers with the same TTFT and the same mean rate (6 tokens a second, a reader's
# pace), one steady and one held back in bursts every 3 s: only QoE tells them apart.
QOE_LAB = {
    "seed": 37,
    "models": {"lab-steady": {"base": "steady"}, "lab-bursty": {"base": "bursty"}},
}
QOE_LAB_NAME = "Latency lab (QoE race)"


class DemoRaces(QObject):
    def __init__(self, menu: QMenu, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.race_menu: RaceMenu | None = None
        self.lab: RunningLab | None = None
        self.qoe_lab: RunningLab | None = None
        self.tasks = KeptTasks()
        self.menu = menu.addMenu(self.tr("Demo races"))
        self.menu.setObjectName("demoRaces")
        engine = self.menu.addAction(self.tr("Local engine: cold against warm"))
        engine.setObjectName("raceEngineColdWarm")
        engine.triggered.connect(self.race_engine)
        lab = self.menu.addAction(self.tr("Lab: fast against strong"))
        lab.setObjectName("raceLabFastStrong")
        lab.triggered.connect(self.race_lab)
        bursts = self.menu.addAction(self.tr("Lab: steady against bursty (QoE)"))
        bursts.setObjectName("raceLabSteadyBursty")
        bursts.triggered.connect(self.race_bursts)

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

    def race_bursts(self) -> None:
        self.tasks.spawn(self._race_bursts(), "race on the latency lab")

    async def _race_bursts(self) -> None:
        if self.qoe_lab is None:
            self.qoe_lab = await _start_lab(QOE_LAB)
        choice = ServerChoice(QOE_LAB_NAME, self.qoe_lab.url, "openai")
        picks = [
            RoutePick(choice, "lab-steady", label=self.tr("Lab, steady answer")),
            RoutePick(choice, "lab-bursty", label=self.tr("Lab, bursty answer")),
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
            self.lab = await _start_lab(RACE_LAB)
        return self.lab

    async def aclose(self) -> None:
        await self.tasks.aclose()
        for lab in (self.lab, self.qoe_lab):
            if lab is not None:
                await asyncio.get_running_loop().run_in_executor(None, lab.stop)
        self.lab = self.qoe_lab = None


async def _start_lab(table: dict[str, Any]) -> RunningLab:
    """A lab of the race's own, on its thread (aiohttp loads only now)."""
    from client.lab import run_in_thread, scenario_from_dict

    scenario = scenario_from_dict(dict(table))
    return await asyncio.get_running_loop().run_in_executor(None, run_in_thread, scenario)
