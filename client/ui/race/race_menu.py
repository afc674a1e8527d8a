"""Race… (in the Demo menu, Ctrl+Alt+R): pick 2-4 routes, then watch them answer the
same question side by side in the race window. The race is stored in the conversation
shown as one turn, one version per column, and the chat shows it when it ends. A race
asked from the composer's text takes it: the composer is cleared once the race is under
way (the question is then in the race's stored turn; a race that cannot start leaves it).

`RaceMenu.run(picks, question)` is what the dialog and the demo races
(client/ui/demo/demo_races.py) both call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from client.services.errors import user_message
from client.services.race.race import Race
from client.services.race.race_routes import RoutePick
from client.services.servers.servers import ServerChoice, is_started, local_model_name
from client.ui.common.async_errors import KeptTasks
from client.ui.common.shortcuts import key_of
from client.ui.race.race_dialog import RaceDialog
from client.ui.race.race_window import RaceController, RaceWindow

SAVE_AT_QUIT_S = 5.0

if TYPE_CHECKING:
    from client.ui.hud import LatencyHud
    from client.ui.servers.server_controller import ServerController


class RaceMenu(QObject):
    def __init__(
        self, servers: ServerController, menu: QMenu, hud: LatencyHud | None = None
    ) -> None:
        super().__init__(servers)
        self.servers = servers
        self.tachy = servers.tachy
        self.main = servers.window
        self.hud = hud
        self.race_window = RaceWindow(self.main)
        self.controller = RaceController(self.race_window, self)
        self.controller.figures_sink = hud.show_race if hud is not None else None
        self.controller.ended.connect(self._show_in_chat)
        self.tasks = KeptTasks()
        self.dialog: RaceDialog | None = None
        self.action = QAction(self.tr("Race…"), menu)
        self.action.setObjectName("race")
        self.action.setShortcut(QKeySequence(key_of("race")))
        self.action.setToolTip(self.tr("Ask one question on several routes at once"))
        self.action.triggered.connect(self.open_dialog)
        menu.addSeparator()
        menu.addAction(self.action)

    def open_dialog(self) -> None:
        question = self.main.composer.toPlainText().strip()
        dialog = RaceDialog(self.main.server_bar.choices, self._models_of, question, self.main)
        dialog.accepted.connect(
            lambda: self.start(dialog.picks(), dialog.question_text(), composer_text=question)
        )
        self.dialog = dialog
        dialog.open()

    def start(
        self, picks: Sequence[RoutePick], question: str, composer_text: str = ""
    ) -> asyncio.Task[Any] | None:
        if self.controller.busy:
            return None
        return self.tasks.spawn(self.run(picks, question, composer_text), "race")

    async def run(
        self, picks: Sequence[RoutePick], question: str, composer_text: str = ""
    ) -> Race | None:
        """Open the routes (starting engines a pick needs), race, then close them.
        `composer_text`: the composer's text the race was asked from (taken once it runs)."""
        self.race_window.show()
        self.race_window.columns.set_race(question, [])
        self.race_window.columns.status.setText(self.tr("Getting the routes ready…"))
        setup = self.tachy.race_setup()
        try:
            routes = await setup.routes(picks)
            stores = self.tachy.stores
            conversation = self.servers.page.conversation_id
            race = Race(
                stores.history,
                stores.metrics,
                routes,
                question,
                conversation,
                vision=self.tachy.vision,
            )
            running = self.controller.start(race)
            self._take_from_composer(composer_text)
            await asyncio.wait({running})
            return race
        except Exception as error:
            self.race_window.columns.status.setText(user_message(error))
            raise
        finally:
            await setup.aclose()

    def _take_from_composer(self, text: str) -> None:
        """The question went out in the race: the composer no longer holds it (unless
        the user has written something else there meanwhile)."""
        composer = self.main.composer
        if text.strip() and composer.toPlainText().strip() == text.strip():
            composer.clear()

    async def _models_of(self, choice: ServerChoice) -> list[str]:
        if choice.is_local and not is_started(choice):
            return [local_model_name()]
        try:
            return (await self.tachy.server_models(choice))[1]
        except Exception:  # the dialog leaves the model to be typed
            return []

    def _show_in_chat(self, race: Race) -> None:
        page = self.servers.page
        if race.conversation_id is None or page.busy:
            return
        page.show_conversation(race.conversation_id)
        page.conversationChanged.emit(race.conversation_id)  # the list shows it

    async def aclose(self) -> None:
        """At quit: a race under way stops (its answers saved, bounded), then the rest."""
        running = self.controller.task
        self.controller.stop()
        if running is not None and not running.done():
            await asyncio.wait({running}, timeout=SAVE_AT_QUIT_S)
        await self.tasks.aclose()
