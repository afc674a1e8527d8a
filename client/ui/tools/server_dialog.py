"""Add or change one MCP server: a command Tachy starts (stdio) or an address it connects
to (Streamable HTTP). The values of the environment and of the headers go to the system
keyring when saved (services keep only their names).

Non-modal, like the other editors: it answers through `saved(settings, old_name)`; the
controller saves through services and shows a refusal with `show_error`.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QStackedWidget,
    QWidget,
)

from client.services.tools.server_errors import WordedError
from client.services.tools.server_settings import (
    HttpServer,
    StdioServer,
    ToolServerSettings,
    split_command_line,
)
from client.ui.tools.problem_words import problem_text

STDIO, HTTP = 0, 1


class ToolServerDialog(QDialog):
    saved = Signal(object, str)  # the settings, the name they had ("" for a new server)

    def __init__(self, server: ToolServerSettings | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolServerDialog")
        self.setWindowTitle(self.tr("Change tool server") if server else self.tr("Add tool server"))
        self.original = server.name if server else ""
        self.name_edit = QLineEdit(server.name if server else "", self)
        self.name_edit.setObjectName("toolServerName")
        self.kind = QComboBox(self)
        self.kind.setObjectName("toolServerKind")
        self.kind.addItem(self.tr("A command Tachy starts (stdio)"))
        self.kind.addItem(self.tr("An address (Streamable HTTP)"))
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self._stdio_page(server if isinstance(server, StdioServer) else None))
        self.pages.addWidget(self._http_page(server if isinstance(server, HttpServer) else None))
        self.kind.currentIndexChanged.connect(self.pages.setCurrentIndex)
        self.kind.setCurrentIndex(HTTP if isinstance(server, HttpServer) else STDIO)
        self.on_box = QCheckBox(self.tr("On in conversations that have not chosen"), self)
        self.on_box.setChecked(server.on_by_default if server else True)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("toolServerError")
        self.error_label.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow(self.tr("&Name"), self.name_edit)
        form.addRow(self.tr("&Kind"), self.kind)
        form.addRow(self.pages)
        form.addRow(self.on_box)
        form.addRow(self.error_label)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.resize(560, 0)

    def _stdio_page(self, server: StdioServer | None) -> QWidget:
        page, form = _page(self)
        self.command_edit = QLineEdit(server.address if server else "", page)
        self.command_edit.setObjectName("toolServerCommand")
        self.command_edit.setPlaceholderText(
            "npx -y @modelcontextprotocol/server-filesystem ~/Notes"
        )
        self.env_edit = _lines_edit(page, "toolServerEnv", self.tr("NAME=value"))
        self.env_edit.setPlainText(_lines(server.env, "=") if server else "")
        self.cwd_edit = QLineEdit(server.cwd if server else "", page)
        self.cwd_edit.setPlaceholderText(self.tr("Tachy's own"))
        form.addRow(self.tr("&Command"), self.command_edit)
        form.addRow(self.tr("&Environment"), self.env_edit)
        form.addRow(self.tr("&Working folder"), self.cwd_edit)
        note = QLabel(
            self.tr(
                "The command runs with your permissions. It gets only the variables above, "
                "with PATH, HOME, USER, LOGNAME, SHELL and TERM so it can start; their "
                "values are kept in the system keyring."
            ),
            page,
        )
        note.setWordWrap(True)
        form.addRow(note)
        return page

    def _http_page(self, server: HttpServer | None) -> QWidget:
        page, form = _page(self)
        self.url_edit = QLineEdit(server.url if server else "", page)
        self.url_edit.setObjectName("toolServerUrl")
        self.url_edit.setPlaceholderText("https://example.org/mcp")
        self.headers_edit = _lines_edit(page, "toolServerHeaders", self.tr("Name: value"))
        self.headers_edit.setPlainText(_lines(server.headers, ": ") if server else "")
        form.addRow(self.tr("&Address"), self.url_edit)
        form.addRow(self.tr("&Headers"), self.headers_edit)
        note = QLabel(self.tr("The headers' values are kept in the system keyring."), page)
        note.setWordWrap(True)
        form.addRow(note)
        return page

    def show_error(self, sentence: str) -> None:
        self.error_label.setText(sentence)

    def settings(self) -> ToolServerSettings:
        """What the form says; SettingsProblem or a line's ValueError when it cannot say."""
        name, on = self.name_edit.text().strip(), self.on_box.isChecked()
        if self.kind.currentIndex() == HTTP:
            headers = self._pairs(self.headers_edit, ":")
            return HttpServer(name, self.url_edit.text().strip(), headers, on)
        command, args = split_command_line(self.command_edit.text())
        env = self._pairs(self.env_edit, "=")
        return StdioServer(name, command, args, env, self.cwd_edit.text().strip(), on)

    def _pairs(self, edit: QPlainTextEdit, separator: str) -> dict[str, str]:
        pairs: dict[str, str] = {}
        for number, line in enumerate(edit.toPlainText().splitlines(), 1):
            if not line.strip():
                continue
            key, found, value = line.partition(separator)
            if not found or not key.strip():
                sentence = self.tr("Line {number} is not “{form}”.")
                raise ValueError(sentence.format(number=number, form=edit.placeholderText()))
            pairs[key.strip()] = value.strip()
        return pairs

    def _save(self) -> None:
        try:
            settings = self.settings()
        except WordedError as problem:
            self.show_error(problem_text(problem))
            return
        except ValueError as error:
            self.show_error(str(error))
            return
        self.show_error("")
        self.saved.emit(settings, self.original)


def _page(parent: QWidget) -> tuple[QWidget, QFormLayout]:
    page = QWidget(parent)
    form = QFormLayout(page)
    form.setContentsMargins(0, 0, 0, 0)
    return page, form


def _lines_edit(parent: QWidget, name: str, placeholder: str) -> QPlainTextEdit:
    edit = QPlainTextEdit(parent)
    edit.setObjectName(name)
    edit.setPlaceholderText(placeholder)
    edit.setTabChangesFocus(True)
    edit.setMaximumHeight(80)
    return edit


def _lines(values: dict[str, str], separator: str) -> str:
    return "\n".join(f"{key}{separator}{value}" for key, value in values.items())
