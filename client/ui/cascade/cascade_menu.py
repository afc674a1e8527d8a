"""The Cascade menu: the model chosen now becomes the fast or the strong one, and "Use
the cascade" routes each question between them (client/ui/cascade/cascade_controller.py shows it).
The two halves and the switch are saved (services/saved_cascade.py) and come back at
the next start once a server is chosen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenuBar

from client.services.cascade.saved_cascade import CascadePart, SavedCascade
from client.ui.cascade.cascade_controller import CascadeController
from client.ui.common.async_errors import KeptTasks

COMPRESS_KEY = "cascade/compress_history"

if TYPE_CHECKING:
    from client.services.chat.session import ChatSession
    from client.ui.servers.server_controller import ServerController


class CascadeMenu(QObject):
    changed = Signal()  # the saved cascade, or whether the session uses it, changed

    def __init__(
        self, bar: QMenuBar, servers: ServerController, controller: CascadeController
    ) -> None:
        super().__init__(bar)
        self.servers = servers
        self.controller = controller
        self.saved: SavedCascade = servers.tachy.cascade
        self.tasks = KeptTasks()
        self.menu = bar.addMenu(self.tr("&Cascade"))
        self.fast_action = self._add(self.tr("Use this model as the fast one"), "fast")
        self.strong_action = self._add(self.tr("Use this model as the strong one"), "strong")
        self.menu.addSeparator()
        self.use_action = QAction(self.tr("Use the cascade"), self.menu)
        self.use_action.setCheckable(True)
        self.use_action.toggled.connect(self._toggled)
        self.menu.addAction(self.use_action)
        self.classify_action = QAction(
            self.tr("Let the fast model choose (within 150 ms, else the rules)"), self.menu
        )
        self.classify_action.setCheckable(True)
        self.classify_action.setChecked(self.saved.load().classify)
        self.classify_action.toggled.connect(self._classify_toggled)
        self.menu.addAction(self.classify_action)
        self.menu.addSeparator()
        self.compress_action = QAction(self.tr("Summarise long conversations"), self.menu)
        self.compress_action.setCheckable(True)
        settings = controller.page.window.settings
        self.compress_action.setChecked(bool(settings.value(COMPRESS_KEY, True, type=bool)))
        self.compress_action.toggled.connect(self._compress_toggled)
        self.menu.addAction(self.compress_action)
        controller.compress = self.compress_action.isChecked()
        servers.serverChanged.connect(self._on_server_changed)
        controller.page.sessionChanged.connect(self._on_session)
        self._on_session(controller.page.session)
        servers.choice_hooks.append(self.stop_using)
        self._refresh()

    def _compress_toggled(self, on: bool) -> None:
        self.controller.page.window.settings.setValue(COMPRESS_KEY, on)
        self.controller.compress = on
        if self.controller.page.session is not None:  # the next request already
            self.controller.page.session.configure(compress_history=on)
        self.controller.summary_marker.refresh()  # off: no summary is sent, none is marked

    def _on_session(self, session: ChatSession | None) -> None:
        if session is not None:
            # Before its first answer too: a reopened conversation's stored summary.
            session.configure(
                classify=self.classify_action.isChecked(),
                compress_history=self.compress_action.isChecked(),
            )

    def _classify_toggled(self, on: bool) -> None:
        self.saved.save(replace(self.saved.load(), classify=on))
        if self.controller.page.session is not None:  # the next question already
            self.controller.page.session.configure(classify=on)

    def _add(self, text: str, tier: str) -> QAction:
        action = QAction(text, self.menu)
        action.triggered.connect(lambda: self.set_part(tier))
        self.menu.addAction(action)
        return action

    def set_part(self, tier: str) -> None:
        session, choice = self.controller.page.session, self.servers.current
        if session is None or choice is None:
            self.controller.say(self.tr("Choose a server and a model first."))
            return
        part = CascadePart.of(choice, session.model)
        profile = self.saved.load()
        if tier == "fast":
            profile = replace(profile, fast=part)
            said = self.tr("Fast model: {model}").format(model=part.model)
        else:
            profile = replace(profile, strong=part)
            said = self.tr("Strong model: {model}").format(model=part.model)
        self.saved.save(profile)
        self.controller.say(said)
        self._refresh()

    def _refresh(self) -> None:
        profile = self.saved.load()
        self.use_action.setEnabled(profile.complete)
        self.use_action.blockSignals(True)
        self.use_action.setChecked(profile.on and profile.complete)
        self.use_action.blockSignals(False)
        self.changed.emit()

    def use_cascade(self) -> None:
        """The model picker's Cascade entry: as "Use the cascade"."""
        if self.use_action.isChecked():
            self.tasks.spawn(self.apply(), "use the cascade")
        else:
            self.use_action.setChecked(True)

    def stop_using(self) -> None:
        """The user picked one model or server: the cascade goes off at once, before
        that choice goes on the session (so the restored routes do not override it)."""
        if self.servers.tachy.stop_cascade():
            self._refresh()

    def _toggled(self, on: bool) -> None:
        self.saved.save(replace(self.saved.load(), on=on))
        self.tasks.spawn(self.apply(), "use the cascade")

    def _on_server_changed(self, *_: object) -> None:
        # A session exists now: a cascade saved as on comes back with it.
        if self.saved.load().on and not self.controller.active():
            self.tasks.spawn(self.apply(), "use the cascade")

    async def apply(self) -> None:
        """Puts the saved cascade on the session, or takes it off; the picker then
        shows which (also when a server of the cascade could not be reached)."""
        try:
            await self._apply()
        finally:
            self.changed.emit()

    async def _apply(self) -> None:
        await self.servers.tachy.apply_cascade()

    async def aclose(self) -> None:
        await self.tasks.aclose()
