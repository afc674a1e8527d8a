"""Import MCP servers from the `{"mcpServers": {...}}` JSON of Claude Desktop, LM Studio or
Cursor: pasted, or read from a file. Each server is listed with the command it would run
or the address it would reach, ticked when it can be imported; nothing starts, now or on
Import: a server starts only when one of its tools is first used.

It answers through `importChosen(list of settings)` and `fileRequested()` (the controller
reads the file off the loop and hands the text back with `set_text`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from client.services.tools.mcp_json import ImportedServer, McpJsonError, parse_mcp_json
from client.services.tools.server_settings import StdioServer, ToolServerSettings
from client.ui.tools.problem_words import problem_text

READ_AFTER_MS = 300  # the pasted text is read this long after the last keystroke


class ImportDialog(QDialog):
    importChosen = Signal(list)  # the ticked servers' settings
    fileRequested = Signal()

    def __init__(self, saved_names: set[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolImportDialog")
        self.setWindowTitle(self.tr("Import MCP servers"))
        self.saved_names = saved_names
        self.entries: list[ImportedServer] = []
        self.text_edit = QPlainTextEdit(self)
        self.text_edit.setObjectName("toolImportText")
        self.text_edit.setPlaceholderText(
            self.tr("Paste the JSON here (“mcpServers” from Claude Desktop, LM Studio or Cursor)")
        )
        self.text_edit.setTabChangesFocus(True)
        self._timer = QTimer(self, singleShot=True, interval=READ_AFTER_MS)
        self._timer.timeout.connect(self._read)
        self.text_edit.textChanged.connect(self._timer.start)
        open_file = QPushButton(self.tr("Open a file…"), self)
        open_file.setObjectName("toolImportFile")
        open_file.clicked.connect(self.fileRequested)
        self.problem_label = QLabel(self)
        self.problem_label.setObjectName("toolImportProblem")
        self.problem_label.setWordWrap(True)
        self.server_list = QListWidget(self)
        self.server_list.setObjectName("toolImportList")
        self.server_list.setWordWrap(True)
        self.server_list.setSpacing(3)
        self.server_list.setAlternatingRowColors(True)
        self.server_list.itemChanged.connect(self._count)
        warning = QLabel(
            self.tr(
                "Nothing starts now. A command runs on this computer, with your permissions, "
                "the first time one of its tools is used: import only commands you trust."
            ),
            self,
        )
        warning.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.import_button = self.buttons.addButton(
            self.tr("Import"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.import_button.setObjectName("toolImportButton")
        self.buttons.accepted.connect(self._import)
        self.buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(self.problem_label, 1)
        row.addWidget(open_file)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text_edit, 1)
        layout.addLayout(row)
        layout.addWidget(self.server_list, 2)
        layout.addWidget(warning)
        layout.addWidget(self.buttons)
        self.resize(640, 520)
        self._count()

    def set_text(self, text: str) -> None:
        """A file's text, shown and read at once."""
        self.text_edit.setPlainText(text)
        self._timer.stop()
        self._read()

    def show_problem(self, sentence: str) -> None:
        self.problem_label.setText(sentence)

    def chosen(self) -> list[ToolServerSettings]:
        return [
            entry.server
            for row, entry in enumerate(self.entries)
            if entry.server is not None
            and self.server_list.item(row).checkState() == Qt.CheckState.Checked
        ]

    def _read(self) -> None:
        self.server_list.clear()
        self.entries = []
        text = self.text_edit.toPlainText()
        try:
            self.entries = parse_mcp_json(text) if text.strip() else []
        except McpJsonError as problem:
            self.show_problem(problem_text(problem))
        else:
            self.show_problem("" if not text.strip() or self.entries else self.tr("No servers."))
        self.server_list.blockSignals(True)
        for entry in self.entries:
            self._add_row(entry)
        self.server_list.blockSignals(False)
        self._count()

    def _add_row(self, entry: ImportedServer) -> None:
        item = QListWidgetItem(self._row_text(entry), self.server_list)
        if entry.server is None:  # no box to tick; its text stays readable (not greyed)
            return
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked)
        item.setToolTip(entry.address)

    def _row_text(self, entry: ImportedServer) -> str:
        if entry.server is None:
            why = problem_text(entry.problem) if entry.problem else ""
            return self.tr("{name} cannot be imported: {why}").format(name=entry.name, why=why)
        if isinstance(entry.server, StdioServer):
            lines = [
                self.tr("{name} runs: {command}").format(name=entry.name, command=entry.address)
            ]
            if entry.server.env:
                names = ", ".join(entry.server.env)
                lines.append(self.tr("with the variables {names}").format(names=names))
        else:
            lines = [self.tr("{name} at {url}").format(name=entry.name, url=entry.address)]
        if entry.ignored:
            fields = ", ".join(entry.ignored)
            lines.append(self.tr("Not used by Tachy: {fields}").format(fields=fields))
        if entry.name in self.saved_names:
            lines.append(self.tr("Replaces the saved server of this name."))
        return "\n".join(lines)

    def _count(self) -> None:
        count = len(self.chosen())
        self.import_button.setEnabled(count > 0)
        self.import_button.setText(self.tr("Import %n server(s)", "", count))

    def _import(self) -> None:
        chosen = self.chosen()
        if chosen:
            self.importChosen.emit(chosen)
