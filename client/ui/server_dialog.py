"""Add a server: name, URL, API type and an optional API key (kept in the keyring only)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)


class AddServerDialog(QDialog):
    """Non-modal: shown with show(), answers through `saved`, never blocks the loop."""

    saved = Signal(str, str, str, str)  # name, url, api, api key ("" = none)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("addServerDialog")
        self.setWindowTitle(self.tr("Add server"))
        form = QFormLayout(self)
        self.name_edit = QLineEdit(self)
        self.name_edit.setObjectName("serverNameEdit")
        self.url_edit = QLineEdit(self)
        self.url_edit.setObjectName("serverUrlEdit")
        self.url_edit.setPlaceholderText("http://127.0.0.1:11434")
        self.api_picker = QComboBox(self)
        self.api_picker.setObjectName("serverApiPicker")
        self.api_picker.addItems(["auto", "ollama", "openai"])
        self.key_edit = QLineEdit(self)
        self.key_edit.setObjectName("serverKeyEdit")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(self.tr("optional; stored in the system keyring"))
        self.error_label = QLabel(self)
        self.error_label.setObjectName("serverDialogError")
        self.error_label.setWordWrap(True)
        form.addRow(self.tr("&Name"), self.name_edit)  # the label is the field's buddy
        form.addRow(self.tr("&URL"), self.url_edit)
        form.addRow(self.tr("&API"), self.api_picker)
        form.addRow(self.tr("API &key"), self.key_edit)
        for field in (self.name_edit, self.url_edit, self.api_picker, self.key_edit):
            label = form.labelForField(field)
            if isinstance(label, QLabel):
                field.setAccessibleName(label.text().replace("&", ""))
        form.addRow(self.error_label)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def show_error(self, sentence: str) -> None:
        self.error_label.setText(sentence)

    def _save(self) -> None:
        name, url = self.name_edit.text().strip(), self.url_edit.text().strip()
        if not name or not url:
            self.show_error(self.tr("A server needs a name and a URL."))
            return
        self.saved.emit(name, url, self.api_picker.currentText(), self.key_edit.text())
        self.key_edit.clear()  # the key lives in the keyring from here on, not in a widget
