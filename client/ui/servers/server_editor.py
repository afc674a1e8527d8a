"""Edit or remove a saved server: its name, URL, API, API key and router metrics address.

The "✎" button beside the server picker opens the Add server dialog filled in with
the saved server the picker shows, also one that could not be used (unreachable, its
key unreadable). The key field starts empty: left empty, the saved key stays; typed,
it replaces it. Remove asks first, then deletes the endpoint and its key from the
keyring. Both dialogs are non-modal (no nested exec() under the qasync loop).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QPushButton, QToolButton, QWidget

from client.services.errors import InvalidServerAddress, SecretsUnavailable
from client.services.servers.servers import (
    ServerChoice,
    default_choice,
    delete_api_key,
    move_api_key,
    save_api_key,
    use_key_for_session,
)
from client.ui.common.error_text import error_text
from client.ui.servers.server_dialog import AddServerDialog

if TYPE_CHECKING:
    from client.ui.servers.server_controller import ServerController


class EditServerDialog(AddServerDialog):
    removeRequested = Signal(str)  # the saved name

    def __init__(self, choice: ServerChoice, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editServerDialog")
        self.setWindowTitle(self.tr("Edit server"))
        self.original = choice.name
        self.name_edit.setText(choice.name)
        self.url_edit.setText(choice.url)
        index = self.api_picker.findData(choice.api)
        self.api_picker.setCurrentIndex(max(index, 0))
        self.key_edit.setPlaceholderText(self.tr("leave empty to keep the saved key"))
        self.remove_button = QPushButton(self.tr("Remove this server…"), self)
        self.remove_button.setObjectName("removeServerButton")
        self.remove_button.setAccessibleName(self.tr("Remove this server"))
        self.remove_button.clicked.connect(lambda: self.removeRequested.emit(self.original))
        layout = self.layout()
        if layout is not None:
            layout.addWidget(self.remove_button)


class ServerEditor(QObject):
    """The edit button, its dialog and the removal, wired to the server control."""

    def __init__(self, servers: ServerController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.servers = servers
        bar = servers.window.server_bar
        self.button = QToolButton(bar)
        self.button.setText(self.tr("✎ Edit"))
        self.button.setObjectName("editServerButton")
        self.button.setToolTip(self.tr("Edit or remove this saved server…"))
        self.button.setAccessibleName(self.tr("Edit server"))
        bar.row.addWidget(self.button)
        self.button.clicked.connect(self.open_editor)
        servers.serverChanged.connect(lambda *_: self._sync_button())
        # The server the picker shows, even one that could not be used (unreachable,
        # its key unreadable): that is the one a user wants to edit or remove.
        bar.server_picker.currentIndexChanged.connect(lambda *_: self._sync_button())
        self.dialog: EditServerDialog | None = None
        self.confirm: QMessageBox | None = None
        self._sync_button()

    def shown(self) -> ServerChoice | None:
        """The server the server picker shows (else the one in use)."""
        return self.servers.window.server_bar.current_choice() or self.servers.current

    def _sync_button(self) -> None:
        self.button.setEnabled(self.servers.saved.is_saved(self.shown()))

    def open_editor(self) -> None:
        choice = self.shown()
        if choice is None or not self.servers.saved.is_saved(choice):
            return
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
        self.dialog = EditServerDialog(choice, self.servers.window)
        self.dialog.metrics_edit.setText(self.servers.saved.metrics_url(choice.url) or "")
        self.dialog.saved.connect(
            lambda *a: self.servers.tasks.spawn(self.update(choice, *a), "edit server")
        )
        self.dialog.session_only.connect(self._use_key_for_session)
        self.dialog.removeRequested.connect(lambda _: self.ask_remove(choice))
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()

    def _use_key_for_session(self, name: str, url: str, api: str, api_key: str) -> None:
        use_key_for_session(name, api_key)
        if self.dialog is not None:
            self.dialog.accept()

    async def update(self, old: ServerChoice, name: str, url: str, api: str, key: str) -> None:
        dialog = self.dialog
        try:
            choice = self.servers.saved.update(old.name, name, url, api)
        except (InvalidServerAddress, ValueError) as error:
            if dialog is not None:
                dialog.show_error(error_text(str(error)))
            return
        if choice is None:
            return
        if dialog is not None:  # a router's metrics address, kept under its address
            self.servers.saved.set_metrics_url(old.url, "")
            self.servers.saved.set_metrics_url(choice.url, dialog.metrics_address)
        try:
            if key:
                await save_api_key(choice.name, key)
                if choice.name != old.name:
                    await delete_api_key(old.name)
            elif choice.name != old.name:
                await move_api_key(old.name, choice.name)
        except SecretsUnavailable as error:
            if dialog is not None:
                dialog.offer_session_key(error_text(str(error)))
            return
        if dialog is not None:
            dialog.accept()
        await self.servers.forget(old)
        await self.servers.forget(choice)
        await self.servers.refresh_choices()
        await self.servers.select(choice)
        self.servers.window.server_bar.set_choices(self.servers.window.server_bar.choices, choice)

    # --- removing ------------------------------------------------------------------
    def ask_remove(self, choice: ServerChoice) -> None:
        box = QMessageBox(self.servers.window)
        box.setObjectName("removeServerBox")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Remove server"))
        box.setText(
            self.tr("Remove “{name}”? Its API key is deleted from the system keyring too.").format(
                name=choice.name
            )
        )
        box.setStandardButtons(QMessageBox.StandardButton.Cancel)
        remove = box.addButton(self.tr("Remove"), QMessageBox.ButtonRole.DestructiveRole)
        remove.setObjectName("confirmRemoveButton")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def answered(button: object) -> None:
            if button is remove:
                self.servers.tasks.spawn(self.remove(choice), "remove server")

        box.buttonClicked.connect(answered)
        self.confirm = box
        box.open()  # window-modal without a nested event loop

    async def remove(self, choice: ServerChoice) -> None:
        if self.dialog is not None:
            self.dialog.accept()
        self.servers.saved.remove(choice.name)
        try:
            await delete_api_key(choice.name)
        except SecretsUnavailable as error:  # the endpoint is gone; say the key is not
            self.servers.window.stage_label.setText(error_text(str(error)))
        await self.servers.forget(choice)
        was_current = self.servers.current is not None and self.servers.current.key == choice.key
        if was_current:
            self.servers.current = None  # so the refreshed picker no longer lists it
        choices = await self.servers.refresh_choices()
        if was_current:
            first = default_choice(choices)
            if first is None:
                self.servers.use_local()
            else:
                await self.servers.select(first)
        self._sync_button()
