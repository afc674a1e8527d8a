"""Models on an Ollama server: pull one by name (a progress bar, Cancel), delete one
after asking, each listed with its size, family and quantisation; and "Pull it" when
a chat fails because the server has no such model.

The "⇩" button beside the model picker opens the dialog (non-modal). The work is in
client/services/servers/model_admin.py; a pulled model then appears in the model picker.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from client.core.printable import visible
from client.services.errors import user_message
from client.services.servers.model_admin import (
    ModelFacts,
    PullProgress,
    can_manage,
    delete_model,
    describe_models,
    missing_model,
    pull_model,
)
from client.ui.chat.action_bar import ActionBar
from client.ui.common.async_errors import KeptTasks
from client.ui.common.error_text import error_text
from client.ui.common.locale_text import size_text

if TYPE_CHECKING:
    from client.services.chat.generation import Generation
    from client.services.planning.planner import Backend
    from client.ui.servers.server_controller import ServerController

PERCENT = 1000  # the bar's range: tenths of a percent


class ModelsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelsDialog")
        self.setWindowTitle(self.tr("Models on this server"))
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.name_edit = QLineEdit(self)
        self.name_edit.setObjectName("pullNameEdit")
        self.name_edit.setPlaceholderText(self.tr("a model name, e.g. llama3.2:1b"))
        self.name_edit.setAccessibleName(self.tr("Model to pull"))
        self.pull_button = QPushButton(self.tr("Pull"), self)
        self.pull_button.setObjectName("pullButton")
        self.cancel_button = QPushButton(self.tr("Cancel pull"), self)
        self.cancel_button.setObjectName("cancelPullButton")
        self.cancel_button.setEnabled(False)
        for widget in (self.name_edit, self.pull_button, self.cancel_button):
            row.addWidget(widget)
        layout.addLayout(row)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("pullProgress")
        self.progress.setRange(0, PERCENT)
        self.progress.hide()
        self.status_label = QLabel(self)
        self.status_label.setObjectName("modelsStatus")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.list = QListWidget(self)
        self.list.setObjectName("modelsList")
        self.list.setAccessibleName(self.tr("Installed models"))
        self.delete_button = QPushButton(self.tr("Delete…"), self)
        self.delete_button.setObjectName("deleteModelButton")
        for part in (self.progress, self.status_label, self.list, self.delete_button):
            layout.addWidget(part)
        self.resize(520, 420)

    def show_models(self, facts: list[ModelFacts]) -> None:
        self.list.clear()
        for fact in facts:
            parts = [
                size_text(fact.size_bytes),
                fact.family,
                fact.parameter_size,
                fact.quantization,
            ]
            details = " · ".join(visible(p) for p in parts if p)
            item = QListWidgetItem(f"{visible(fact.name)}    {details}")
            item.setData(Qt.ItemDataRole.UserRole, fact.name)  # the raw name to send back
            self.list.addItem(item)

    def chosen_model(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def show_progress(self, progress: PullProgress) -> None:
        self.progress.show()
        fraction = progress.fraction
        if fraction is None:
            self.progress.setRange(0, 0)  # busy: no byte count yet
        else:
            self.progress.setRange(0, PERCENT)
            self.progress.setValue(round(fraction * PERCENT))
        text = visible(progress.status)
        if progress.total:
            text += "  " + self.tr("{done} of {total}").format(
                done=size_text(progress.completed) or "0", total=size_text(progress.total)
            )
        self.status_label.setText(text)

    def set_pulling(self, pulling: bool) -> None:
        self.pull_button.setEnabled(not pulling)
        self.name_edit.setEnabled(not pulling)
        self.cancel_button.setEnabled(pulling)


class ModelsController(QObject):
    """The ⇩ button, the dialog, and "Pull it" after a chat met a missing model."""

    def __init__(self, servers: ServerController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.servers, self.page = servers, servers.page
        window = self.window = servers.window
        self.tasks = KeptTasks()
        self.pulling: asyncio.Task[Any] | None = None
        self.dialog: ModelsDialog | None = None
        self.confirm: QMessageBox | None = None
        self.button = QToolButton(window.server_bar)
        self.button.setText(self.tr("⇩ Models"))
        self.button.setObjectName("modelsButton")
        self.button.setToolTip(self.tr("Pull or delete models…"))
        self.button.setAccessibleName(self.tr("Manage models"))
        window.server_bar.row.addWidget(self.button)
        self.button.clicked.connect(self.open)
        self.pull_bar = ActionBar("pullBar", window)
        self.pull_bar.setAccessibleName(self.tr("Pull the missing model"))
        self.pull_bar.focus_home = window.composer
        centre = window.centre_layout
        centre.insertWidget(centre.indexOf(window.outcome_bar) + 1, self.pull_bar)
        self.pull_bar.chosen.connect(self._on_pull_it)
        self._missing = ""
        self.page.runner.ended.connect(self._on_ended)

    async def _backend(self) -> Backend | None:
        if self.servers.current is None:
            return None
        return await self.servers.tachy.backend(self.servers.current)

    def open(self) -> ModelsDialog:
        if self.dialog is None:
            self.dialog = ModelsDialog(self.window)
            self.dialog.pull_button.clicked.connect(self._pull_typed)
            self.dialog.name_edit.returnPressed.connect(self._pull_typed)
            self.dialog.cancel_button.clicked.connect(self.cancel)
            self.dialog.delete_button.clicked.connect(self._ask_delete)
        self.dialog.show()
        self.dialog.raise_()
        self.tasks.spawn(self.refresh(), "list models")
        return self.dialog

    async def refresh(self) -> None:
        dialog, backend = self.dialog, await self._backend()
        if dialog is None or backend is None:
            return
        if not can_manage(backend):
            dialog.status_label.setText(
                self.tr("Only an Ollama server pulls and deletes models from here.")
            )
            dialog.show_models([])
            return
        try:
            dialog.show_models(await describe_models(backend))
        except Exception as error:
            dialog.status_label.setText(error_text(user_message(error)))

    # --- pulling -------------------------------------------------------------------
    def _pull_typed(self) -> None:
        if self.dialog is not None and self.dialog.name_edit.text().strip():
            self.pull(self.dialog.name_edit.text().strip())

    def pull(self, name: str) -> None:
        if self.pulling is not None and not self.pulling.done():
            return
        dialog = self.open()
        dialog.name_edit.setText(name)
        self.pulling = self.tasks.spawn(self._pull(name), "pull a model")

    async def _pull(self, name: str) -> None:
        dialog = self.open()
        dialog.set_pulling(True)
        try:
            backend = await self._backend()
            if backend is None:
                dialog.status_label.setText(self.tr("No server is chosen yet."))
                return
            async for progress in pull_model(backend, name):
                dialog.show_progress(progress)
        except asyncio.CancelledError:
            dialog.status_label.setText(
                self.tr("The pull of {name} was cancelled.").format(name=visible(name))
            )
            raise
        except Exception as error:
            dialog.status_label.setText(error_text(user_message(error)))
            return
        finally:
            dialog.set_pulling(False)
        dialog.status_label.setText(self.tr("{name} is ready.").format(name=visible(name)))
        await self.refresh()
        await self._refresh_picker(name)

    async def _refresh_picker(self, chosen: str | None) -> None:
        """The model picker lists the server's models again; `chosen` is picked (None:
        the server's first)."""
        if self.servers.current is not None:
            await self.servers.select(self.servers.current, chosen)

    def cancel(self) -> None:
        if self.pulling is not None and not self.pulling.done():
            self.pulling.cancel()  # closing the stream stops the server's download

    # --- deleting ------------------------------------------------------------------
    def _ask_delete(self) -> None:
        name = self.dialog.chosen_model() if self.dialog is not None else None
        if not name:
            return
        box = QMessageBox(self.dialog)
        box.setObjectName("deleteModelBox")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Delete model"))
        box.setText(
            self.tr("Delete {name} from this server? Pulling it again downloads it again.").format(
                name=visible(name)
            )
        )
        box.setStandardButtons(QMessageBox.StandardButton.Cancel)
        delete = box.addButton(self.tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)
        delete.setObjectName("confirmDeleteButton")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.buttonClicked.connect(
            lambda b: self.tasks.spawn(self.delete(name), "delete a model") if b is delete else None
        )
        self.confirm = box
        box.open()

    async def delete(self, name: str) -> None:
        try:
            backend = await self._backend()
            if backend is None:
                if self.dialog is not None:
                    self.dialog.status_label.setText(self.tr("No server is chosen yet."))
                return
            await delete_model(backend, name)
        except Exception as error:
            if self.dialog is not None:
                self.dialog.status_label.setText(error_text(user_message(error)))
            return
        await self.refresh()
        session = self.page.session
        keep = session.model if session is not None and session.model != name else None
        await self._refresh_picker(keep)

    # --- "Pull it" -----------------------------------------------------------------
    def _on_ended(self, generation: Generation, _key: int) -> None:
        finished = generation.finished
        name = missing_model(finished.error_message) if finished is not None else None
        backend_ok = self.servers.current is not None and self.servers.current.api == "ollama"
        if not name or not backend_ok:
            self.pull_bar.clear()
            return
        self._missing = name
        text = self.tr("This server has no {name}. Pull it from the registry?")
        self.pull_bar.show_choices(text.format(name=visible(name)), [("pull", self.tr("Pull it"))])

    def _on_pull_it(self, action: str) -> None:
        if action == "pull" and self._missing:
            self.pull(self._missing)

    async def aclose(self) -> None:
        await self.tasks.aclose()
