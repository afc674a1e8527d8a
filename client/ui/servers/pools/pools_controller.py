"""The Pools button beside the server picker: a menu with New pool… and each saved pool
to edit; saving lists the pool in the server picker (chosen there like a server),
removing takes it out. Pools are stored and checked by services (Tachy.pools)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMenu, QToolButton

from client.services.fleet.pool import POOL_API, ServerPool, pool_choice
from client.services.servers.servers import ServerChoice, default_choice, is_started
from client.ui.common.error_text import error_text
from client.ui.servers.pools.pool_dialog import PoolDialog

if TYPE_CHECKING:
    from client.ui.servers.server_controller import ServerController


class PoolsController(QObject):
    def __init__(self, servers: ServerController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.servers = servers
        bar = servers.window.server_bar
        self.button = QToolButton(bar)
        self.button.setText(self.tr("Pools"))
        self.button.setObjectName("poolsButton")
        self.button.setToolTip(self.tr("Pools: several servers serving one model"))
        self.button.setAccessibleName(self.tr("Pools"))
        self.menu = QMenu(self.button)
        self.menu.aboutToShow.connect(self._fill_menu)
        self.button.setMenu(self.menu)
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        bar.row.addWidget(self.button)
        self.dialog: PoolDialog | None = None

    def _fill_menu(self) -> None:
        self.menu.clear()
        self.menu.addAction(self.tr("New pool…"), lambda: self.open_dialog(None))
        for pool in self.servers.tachy.pools.all():
            action = self.menu.addAction(self.tr("Edit “{name}”…").format(name=pool.name))
            action.triggered.connect(self._opener(pool))

    def _opener(self, pool: ServerPool) -> Callable[[], None]:
        return lambda: self.open_dialog(pool)

    def servers_to_pool(self) -> list[ServerChoice]:
        """The servers a pool may hold: those the picker lists, less pools and the
        local engine (its address changes at every start)."""
        listed = self.servers.window.server_bar.choices
        return [c for c in listed if c.api != POOL_API and not c.is_local and is_started(c)]

    def open_dialog(self, pool: ServerPool | None) -> None:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
        self.dialog = PoolDialog(self.servers_to_pool(), pool, self.servers.window)
        self.dialog.saved.connect(
            lambda made, old: self.servers.tasks.spawn(self.save(made, old), "save pool")
        )
        self.dialog.removeRequested.connect(
            lambda name: self.servers.tasks.spawn(self.remove(name), "remove pool")
        )
        self.dialog.show()  # non-modal: no nested exec() under the qasync loop
        self.dialog.raise_()
        self.dialog.activateWindow()

    async def save(self, pool: ServerPool, old_name: str) -> None:
        try:
            self.servers.tachy.pools.save(pool, old_name or None)
        except ValueError as error:
            if self.dialog is not None:
                self.dialog.show_error(error_text(str(error)))
            return
        if self.dialog is not None:
            self.dialog.accept()
        current = self.servers.current
        in_use = current is not None and current.api == POOL_API
        if in_use and current is not None and current.name in (pool.name, old_name):
            self.servers.current = pool_choice(pool)  # the changed pool from now on
        choices = await self.servers.refresh_choices()
        if in_use and self.servers.current == pool_choice(pool):
            await self.servers.select(pool_choice(pool))
        self.servers.window.server_bar.set_choices(choices, self.servers.current)

    async def remove(self, name: str) -> None:
        if self.dialog is not None:
            self.dialog.accept()
        self.servers.tachy.pools.remove(name)
        current = self.servers.current
        was_current = current is not None and current.api == POOL_API and current.name == name
        if was_current:
            self.servers.current = None  # so the refreshed picker no longer lists it
        choices = await self.servers.refresh_choices()
        if was_current:
            first = default_choice(choices)
            if first is None:
                self.servers.use_local()
            else:
                await self.servers.select(first)
