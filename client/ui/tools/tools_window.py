"""The Tools window: the user's MCP servers on the left, the chosen one's command or
address, state and tools on the right, with each tool's "always allowed" tick (untick to
revoke). It only shows and asks: the controller (tools_controller.py) saves, starts and
removes through services, and hands back what to show.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from client.services.tools.server_settings import StdioServer, ToolServerSettings
from client.services.tools.tool_types import ServerState
from client.ui.tools.problem_words import problem_text

TOOL, DESCRIPTION, ALLOWED = range(3)


class ToolsWindow(QDialog):
    addRequested = Signal()
    importRequested = Signal()
    demoRequested = Signal()
    editRequested = Signal(str)
    removeRequested = Signal(str)
    startRequested = Signal(str)
    allowChanged = Signal(str, str, bool)  # server, tool, always allowed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolsWindow")
        self.setWindowTitle(self.tr("Tools"))
        self.servers: list[ToolServerSettings] = []
        self.states: dict[str, ServerState] = {}
        self.allowed: dict[str, list[str]] = {}
        self.server_list = QListWidget(self)
        self.server_list.setObjectName("toolServerList")
        self.server_list.setAccessibleName(self.tr("Tool servers"))
        self.server_list.currentRowChanged.connect(lambda _: self._show_details())
        details = self._details()
        row = QHBoxLayout()
        row.addWidget(self.server_list, 2)
        row.addWidget(details, 3)
        note = QLabel(
            self.tr(
                "Tachy asks before a tool runs, unless you always allow it. A tool's result "
                "is data for the model: it never makes Tachy act on its own."
            ),
            self,
        )
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(row, 1)
        layout.addLayout(self._server_buttons())
        layout.addWidget(note)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.close)
        layout.addWidget(close)
        self.resize(820, 520)

    def _details(self) -> QWidget:
        panel = QWidget(self)
        column = QVBoxLayout(panel)
        column.setContentsMargins(0, 0, 0, 0)
        self.title_label = QLabel(panel)
        self.title_label.setObjectName("toolServerTitle")
        font = QFont(self.title_label.font())
        font.setBold(True)
        self.title_label.setFont(font)
        self.address_label = _wrapping_label(panel, "toolServerAddress")
        self.address_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.state_label = _wrapping_label(panel, "toolServerState")
        self.start_button = QPushButton(panel)
        self.start_button.setObjectName("toolServerStart")
        self.start_button.clicked.connect(lambda: self._ask(self.startRequested))
        self.tool_table = QTableWidget(0, 3, panel)
        self.tool_table.setObjectName("toolTable")
        self.tool_table.setHorizontalHeaderLabels(
            [self.tr("Tool"), self.tr("What it does"), self.tr("Approval")]
        )
        self.tool_table.verticalHeader().hide()
        self.tool_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tool_table.setWordWrap(True)
        header = self.tool_table.horizontalHeader()
        header.setSectionResizeMode(DESCRIPTION, QHeaderView.ResizeMode.Stretch)
        for column_index in (TOOL, ALLOWED):
            header.setSectionResizeMode(column_index, QHeaderView.ResizeMode.ResizeToContents)
        top = QHBoxLayout()
        top.addWidget(self.state_label, 1)
        top.addWidget(self.start_button, 0, Qt.AlignmentFlag.AlignTop)
        column.addWidget(self.title_label)
        column.addWidget(self.address_label)
        column.addLayout(top)
        column.addWidget(self.tool_table, 1)
        return panel

    def _server_buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.add_button = _button(self, self.tr("Add…"), "toolServerAdd", self.addRequested.emit)
        self.import_button = _button(
            self, self.tr("Import JSON…"), "toolServerImport", self.importRequested.emit
        )
        self.edit_button = _button(
            self, self.tr("Change…"), "toolServerEdit", lambda: self._ask(self.editRequested)
        )
        self.remove_button = _button(
            self, self.tr("Remove…"), "toolServerRemove", lambda: self._ask(self.removeRequested)
        )
        self.demo_button = _button(
            self, self.tr("Add the demo server"), "toolServerDemo", self.demoRequested.emit
        )
        for button in (self.add_button, self.import_button, self.edit_button, self.remove_button):
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(self.demo_button)
        return row

    # --- what to show ----------------------------------------------------------------
    def show_servers(
        self,
        servers: list[ToolServerSettings],
        states: dict[str, ServerState],
        allowed: dict[str, list[str]],
        demo_saved: bool,
    ) -> None:
        chosen = self.chosen_name()
        self.servers, self.states, self.allowed = servers, states, allowed
        self.server_list.blockSignals(True)
        self.server_list.clear()
        for server in servers:
            item = QListWidgetItem(self._row_text(server.name), self.server_list)
            item.setData(Qt.ItemDataRole.UserRole, server.name)
            item.setToolTip(server.address)
        names = [server.name for server in servers]
        self.server_list.setCurrentRow(names.index(chosen) if chosen in names else 0)
        self.server_list.blockSignals(False)
        self.demo_button.setVisible(not demo_saved)
        self._show_details()

    def show_state(self, state: ServerState) -> None:
        """One server's new state (started, failed ...)."""
        self.states[state.name] = state
        for row in range(self.server_list.count()):
            item = self.server_list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == state.name:
                item.setText(self._row_text(state.name))
        if state.name == self.chosen_name():
            self._show_details()

    def chosen_name(self) -> str:
        item = self.server_list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else ""

    def _row_text(self, name: str) -> str:
        return self.tr("{name} — {state}").format(name=name, state=self._phase_word(name))

    def _phase_word(self, name: str) -> str:
        state = self.states.get(name) or ServerState(name, "idle")
        if state.phase == "starting":
            return self.tr("starting…")
        if state.phase == "ready":
            return self.tr("%n tool(s)", "", len(state.tools))
        if state.phase == "failed":
            return self.tr("failed")
        return self.tr("not started")

    def _show_details(self) -> None:
        server = next((s for s in self.servers if s.name == self.chosen_name()), None)
        for widget in (self.edit_button, self.remove_button, self.start_button):
            widget.setEnabled(server is not None)
        if server is None:
            self.title_label.setText(self.tr("No tool servers yet"))
            self.address_label.setText(
                self.tr("Add one, import the JSON of another app, or add the demo server.")
            )
            self.state_label.setText("")
            self._show_tools("", [])
            return
        self.title_label.setText(server.name)
        if isinstance(server, StdioServer):
            self.address_label.setText(self.tr("Runs: {command}").format(command=server.address))
        else:
            self.address_label.setText(self.tr("At: {url}").format(url=server.address))
        state = self.states.get(server.name) or ServerState(server.name, "idle")
        self.state_label.setText(self._state_sentence(state))
        ready = state.phase == "ready"
        if state.phase == "failed":
            self.start_button.setText(self.tr("Try again"))
        else:
            self.start_button.setText(
                self.tr("Restart") if ready else self.tr("Start and list tools")
            )
        self.start_button.setEnabled(state.phase != "starting")
        listed = [(tool.name, tool.description) for tool in state.tools]
        self._show_tools(server.name, listed)

    def _state_sentence(self, state: ServerState) -> str:
        if state.phase == "starting":
            return self.tr("Starting…")
        if state.phase == "ready":
            return self.tr("Ready: %n tool(s).", "", len(state.tools))
        if state.phase == "failed" and state.problem is not None:
            return self.tr("Failed: {why}").format(why=problem_text(state.problem))
        return self.tr("Not started: it starts when one of its tools is first used.")

    def _show_tools(self, server: str, listed: list[tuple[str, str]]) -> None:
        """The listed tools, and the always-allowed ones not listed (not started yet)."""
        allowed = self.allowed.get(server, [])
        names = {name for name, _ in listed}
        rows = listed + [(name, "") for name in allowed if name not in names]
        self.tool_table.setRowCount(len(rows))
        for row, (name, description) in enumerate(rows):
            self.tool_table.setItem(row, TOOL, QTableWidgetItem(name))
            self.tool_table.setItem(row, DESCRIPTION, QTableWidgetItem(description))
            # A choice in words, not a check box: with the app's stylesheet an empty box
            # is drawn without a frame in the dark, where it cannot be seen.
            choice = QComboBox(self.tool_table)
            choice.setObjectName(f"allow:{name}")
            choice.setAccessibleName(self.tr("Approval of {tool}").format(tool=name))
            choice.addItems([self.tr("Ask first"), self.tr("Always allow")])
            choice.setCurrentIndex(1 if name in allowed else 0)
            choice.currentIndexChanged.connect(partial(self._allow_chosen, server, name))
            self.tool_table.setCellWidget(row, ALLOWED, choice)
        self.tool_table.resizeRowsToContents()

    def approval_choice(self, tool: str) -> QComboBox | None:
        """The shown server's Ask first / Always allow choice for `tool` (None: not shown)."""
        for row in range(self.tool_table.rowCount()):
            choice = self.tool_table.cellWidget(row, ALLOWED)
            if isinstance(choice, QComboBox) and choice.objectName() == f"allow:{tool}":
                return choice
        return None

    def _allow_chosen(self, server: str, tool: str, index: int) -> None:
        self.allowChanged.emit(server, tool, index == 1)

    def _ask(self, signal: SignalInstance) -> None:
        name = self.chosen_name()
        if name:
            signal.emit(name)


def _wrapping_label(parent: QWidget, name: str) -> QLabel:
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)  # commands and server sentences, never HTML
    return label


def _button(parent: QWidget, text: str, name: str, clicked: Callable[[], None]) -> QPushButton:
    button = QPushButton(text, parent)
    button.setObjectName(name)
    button.clicked.connect(clicked)
    return button
