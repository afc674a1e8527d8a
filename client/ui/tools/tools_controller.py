"""Adapts the user's MCP servers (Tachy.tools, client/services/tools) to the Tools window
and its dialogs: add, change, remove, import, start to list the tools, and the "always
allowed" ticks. Every change goes through services; nothing here decides policy.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from client.services.errors import SecretsUnavailable
from client.services.tools.server_errors import ToolServerError, WordedError
from client.services.tools.server_settings import (
    DEMO_SERVER_NAME,
    ToolServerSettings,
    demo_tool_server,
)
from client.services.tools.tool_servers import ToolServers
from client.services.tools.tool_types import ServerState
from client.ui.common.async_errors import KeptTasks
from client.ui.common.error_text import error_text
from client.ui.tools.import_dialog import ImportDialog
from client.ui.tools.problem_words import problem_text
from client.ui.tools.server_dialog import ToolServerDialog
from client.ui.tools.tools_window import ToolsWindow

LARGEST_FILE = 1_000_000  # bytes: an MCP servers file is a few kB


class ToolsController(QObject):
    def __init__(self, tools: ToolServers, parent: QWidget) -> None:
        super().__init__(parent)
        self.tools = tools
        self.parent_widget = parent
        self.tasks = KeptTasks()
        self.window: ToolsWindow | None = None
        self.editor: ToolServerDialog | None = None
        self.importer: ImportDialog | None = None
        self.confirm: QMessageBox | None = None
        self._watching = False

    def open(self) -> ToolsWindow:
        if self.window is None:
            self.window = self._make_window()
        if not self._watching:
            self.tools.watch(self._state_changed)
            self._watching = True
        self.refresh()
        self.window.show()  # non-modal: no nested exec() under the qasync loop
        self.window.raise_()
        self.window.activateWindow()
        return self.window

    def _make_window(self) -> ToolsWindow:
        window = ToolsWindow(self.parent_widget)
        window.addRequested.connect(lambda: self.open_editor(None))
        window.editRequested.connect(self.open_editor)
        window.removeRequested.connect(self.ask_remove)
        window.importRequested.connect(self.open_import)
        window.demoRequested.connect(lambda: self.tasks.spawn(self.add_demo(), "add demo tools"))
        window.startRequested.connect(lambda name: self.tasks.spawn(self.start(name), "start"))
        window.allowChanged.connect(self.set_allowed)
        return window

    def refresh(self) -> None:
        if self.window is None:
            return
        servers = self.tools.saved.servers()
        states = {server.name: self.tools.state(server.name) for server in servers}
        demo_saved = self.tools.saved.get(DEMO_SERVER_NAME) is not None
        self.window.show_servers(servers, states, self.tools.approval.allowed(), demo_saved)

    def _state_changed(self, state: ServerState) -> None:
        if self.window is not None:
            self.window.show_state(state)

    # --- starting and allowing ---------------------------------------------------------
    async def start(self, name: str) -> None:
        try:
            await self.tools.restart(name)
        except ToolServerError:
            pass  # its state says why, in the window

    def set_allowed(self, server: str, tool: str, on: bool) -> None:
        if on:
            self.tools.approval.always_allow(server, tool)
        else:
            self.tools.approval.revoke(server, tool)
        if self.window is not None:
            self.window.allowed = self.tools.approval.allowed()

    async def add_demo(self) -> None:
        await self.tools.save(demo_tool_server())
        self.refresh()

    # --- adding and changing -------------------------------------------------------------
    def open_editor(self, name: str | None) -> None:
        self.tasks.spawn(self._open_editor(name), "open tool server editor")

    async def _open_editor(self, name: str | None) -> None:
        server = self.tools.saved.get(name) if name else None
        if server is not None:
            try:
                server = await self.tools.saved.with_secrets(server)
            except SecretsUnavailable as error:
                self._tell(error_text(str(error)))
                return
        if self.editor is not None:
            self.editor.close()
            self.editor.deleteLater()
        self.editor = ToolServerDialog(server, self.window)
        self.editor.saved.connect(
            lambda settings, old: self.tasks.spawn(self.save(settings, old), "save tool server")
        )
        self.editor.show()

    async def save(self, server: ToolServerSettings, old_name: str) -> None:
        try:
            await self.tools.save(server, old_name or None)
        except WordedError as problem:
            if self.editor is not None:
                self.editor.show_error(problem_text(problem))
            return
        except SecretsUnavailable as error:
            if self.editor is not None:
                self.editor.show_error(error_text(str(error)))
            return
        if self.editor is not None:
            self.editor.accept()
        self.refresh()

    # --- removing -----------------------------------------------------------------------
    def ask_remove(self, name: str) -> None:
        box = QMessageBox(self.window)
        box.setObjectName("removeToolServerBox")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Remove tool server"))
        box.setText(
            self.tr(
                "Remove {name}? Its settings, the values kept in the keyring and its always "
                "allowed tools are forgotten."
            ).format(name=name)
        )
        box.setStandardButtons(QMessageBox.StandardButton.Cancel)
        remove = box.addButton(self.tr("Remove"), QMessageBox.ButtonRole.DestructiveRole)
        remove.setObjectName("confirmRemoveToolServer")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.buttonClicked.connect(
            lambda b: (
                self.tasks.spawn(self.remove(name), "remove tool server") if b is remove else None
            )
        )
        self.confirm = box
        box.open()

    async def remove(self, name: str) -> None:
        try:
            await self.tools.remove(name)
        except SecretsUnavailable as error:
            self._tell(error_text(str(error)))
        self.refresh()

    # --- importing ----------------------------------------------------------------------
    def open_import(self) -> None:
        if self.importer is not None:
            self.importer.close()
            self.importer.deleteLater()
        names = {server.name for server in self.tools.saved.servers()}
        self.importer = ImportDialog(names, self.window)
        self.importer.fileRequested.connect(self._choose_file)
        self.importer.importChosen.connect(
            lambda chosen: self.tasks.spawn(self.import_servers(chosen), "import tool servers")
        )
        self.importer.show()

    def _choose_file(self) -> None:
        chooser = QFileDialog(self.importer, self.tr("Open an MCP servers file"))
        chooser.setNameFilter(self.tr("JSON files (*.json);;All files (*)"))
        chooser.setFileMode(QFileDialog.FileMode.ExistingFile)
        chooser.fileSelected.connect(
            lambda path: self.tasks.spawn(self.read_file(Path(path)), "read MCP servers file")
        )
        chooser.open()

    async def read_file(self, path: Path) -> None:
        try:
            text = await asyncio.to_thread(_small_text, path)
        except (OSError, UnicodeDecodeError, ValueError) as error:
            too_big = isinstance(error, FileTooLarge)
            why = self.tr("it is larger than 1 MB") if too_big else str(error)
            if self.importer is not None:
                sentence = self.tr("{file} cannot be read: {why}")
                self.importer.show_problem(sentence.format(file=path.name, why=why))
            return
        if self.importer is not None:
            self.importer.set_text(text)

    async def import_servers(self, chosen: list[ToolServerSettings]) -> None:
        saved = {server.name for server in self.tools.saved.servers()}
        for server in chosen:
            try:
                await self.tools.save(server, server.name if server.name in saved else None)
            except (WordedError, SecretsUnavailable) as error:
                why = problem_text(error) if isinstance(error, WordedError) else str(error)
                if self.importer is not None:
                    sentence = self.tr("{name} was not imported: {why}")
                    self.importer.show_problem(sentence.format(name=server.name, why=why))
                self.refresh()
                return
        if self.importer is not None:
            self.importer.accept()
        self.refresh()

    def _tell(self, sentence: str) -> None:
        if self.window is not None:
            self.window.state_label.setText(sentence)

    async def aclose(self) -> None:
        await self.tasks.aclose()


class FileTooLarge(ValueError):
    pass


def _small_text(path: Path) -> str:
    if path.stat().st_size > LARGEST_FILE:
        raise FileTooLarge(path)
    return path.read_text(encoding="utf-8")
