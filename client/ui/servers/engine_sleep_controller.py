"""The keep-alive menu's choice applied to the local engine as its unload-after-idle
(llama-server's sleep_idle_seconds: client.services.servers.servers.with_sleep_idle).

Each engine made gets the current choice before it starts. A new choice restarts a
running engine at once when no answer is under way, else when the answer ends (the
Engine menu's path for speculative decoding: client/ui/servers/engine_menu.py); the warmer then
knows the engine is cold with an empty cache, and the model state shows the new
deadline after the next warm-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from client.services.servers.servers import with_sleep_idle
from client.services.warming.warming import KeepAliveWarmer
from client.ui.common.async_errors import KeptTasks

if TYPE_CHECKING:
    from client.services.tachy import ManagedEngine, Tachy
    from client.ui.chat.chat_page import ChatPage


class EngineSleepController(QObject):
    def __init__(
        self, tachy: Tachy, page: ChatPage, warmer: KeepAliveWarmer, tasks: KeptTasks
    ) -> None:
        super().__init__(page)
        self.tachy, self.runner, self.warmer, self.tasks = tachy, page.runner, warmer, tasks
        self.restart_pending = False
        tachy.engine_hooks.append(self._engine_made)
        self.runner.ended.connect(lambda *_: self._restart_if_pending())

    def _engine_made(self, engine: ManagedEngine) -> None:
        with_sleep_idle(engine, self.warmer.settings.keep_alive)

    def keep_alive_changed(self) -> None:
        engine = self.tachy.engine
        if not with_sleep_idle(engine, self.warmer.settings.keep_alive):
            return
        self.restart_pending = True
        if not self.runner.busy:
            self._restart_if_pending()

    def _restart_if_pending(self) -> None:
        if self.restart_pending and not self.runner.busy:
            self.restart_pending = False
            engine = self.tachy.engine
            if engine is not None:
                self.tasks.spawn(self._restart(engine), "restart the local engine")

    async def _restart(self, engine: ManagedEngine) -> None:
        await engine.restart()
        if engine is self.tachy.engine:
            self.warmer.engine_restarted()
