"""Add a server: name, URL, API type, an optional API key (kept in the keyring only) and,
for a router, its own metrics address (for the Server tab).

When the keyring refuses the key, the dialog says so and offers to use the key for
this session only (kept in memory by client.services.servers.servers, never written).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from client.services.errors import InvalidServerAddress
from client.services.servers.saved_servers import metrics_address
from client.ui.common.error_text import error_text


class AddServerDialog(QDialog):
    """Non-modal: shown with show(), answers through `saved`, never blocks the loop."""

    saved = Signal(str, str, str, str)  # name, url, api, api key ("" = none)
    # The keyring refused the key and the user chose to use it until Tachy quits.
    session_only = Signal(str, str, str, str)  # name, url, api, api key

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
        # The --api names, each shown in the window's language; the name is the data.
        for api, shown in (
            ("auto", self.tr("auto")),
            ("ollama", self.tr("ollama")),
            ("openai", self.tr("openai")),
        ):
            self.api_picker.addItem(shown, api)
        self.key_edit = QLineEdit(self)
        self.key_edit.setObjectName("serverKeyEdit")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(self.tr("optional; stored in the system keyring"))
        self.metrics_edit = QLineEdit(self)
        self.metrics_edit.setObjectName("routerMetricsEdit")
        self.metrics_edit.setPlaceholderText(self.tr("optional; http://host:29000"))
        self.metrics_edit.setToolTip(
            self.tr(
                "A router's own metrics (vllm-router's --prometheus-port): the Server tab "
                "then shows the requests each worker served, the routing decisions and "
                "each worker's circuit breaker."
            )
        )
        self.metrics_address = ""  # as checked by Save ("" for none)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("serverDialogError")
        self.error_label.setWordWrap(True)
        form.addRow(self.tr("&Name"), self.name_edit)  # the label is the field's buddy
        form.addRow(self.tr("&URL"), self.url_edit)
        form.addRow(self.tr("&API"), self.api_picker)
        form.addRow(self.tr("API &key"), self.key_edit)
        form.addRow(self.tr("Router &metrics"), self.metrics_edit)
        for field in self._fields():
            label = form.labelForField(field)
            if isinstance(label, QLabel):
                field.setAccessibleName(label.text().replace("&", ""))
        form.addRow(self.error_label)
        self.session_button = QPushButton(self.tr("Use the key for this session only"), self)
        self.session_button.setObjectName("sessionKeyButton")
        self.session_button.setAccessibleName(self.session_button.text())
        self.session_button.clicked.connect(self._use_for_session)
        self.session_button.hide()
        form.addRow(self.session_button)
        # Between Save and the keyring's answer: in memory only, dropped on close.
        self._pending: tuple[str, str, str, str] | None = None
        self.finished.connect(self._forget_pending)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._fit_placeholders()

    def _fit_placeholders(self) -> None:
        """Each field as wide as its placeholder (the longest in this language), so no
        hint is cut ("optional; stored in…"); an error wraps within that width."""
        for edit in (self.url_edit, self.key_edit):
            text = edit.placeholderText()
            room = (
                edit.fontMetrics().horizontalAdvance(text)
                + 4 * edit.fontMetrics().averageCharWidth()
            )
            for field in self._fields():
                field.setMinimumWidth(max(field.minimumWidth(), room))

    def _fields(self) -> tuple[QWidget, ...]:
        return (self.name_edit, self.url_edit, self.api_picker, self.key_edit, self.metrics_edit)

    def show_error(self, sentence: str) -> None:
        self.error_label.setText(sentence)
        self.adjustSize()  # a sentence of two lines gets its two lines, never one and a half

    def offer_session_key(self, sentence: str) -> None:
        """The keyring refused: say why and offer to use the key until Tachy quits."""
        self.show_error(
            self.tr(
                "{reason} The key was not saved anywhere. You can use it for this "
                "session only: Tachy forgets it when you quit."
            ).format(reason=sentence)
        )
        self.session_button.setVisible(self._pending is not None)

    def _use_for_session(self) -> None:
        pending, self._pending = self._pending, None
        self.session_button.hide()
        if pending is not None:
            self.session_only.emit(*pending)

    def _forget_pending(self) -> None:
        self._pending = None
        self.session_button.hide()

    def _save(self) -> None:
        name, url = self.name_edit.text().strip(), self.url_edit.text().strip()
        if not name or not url:
            self.show_error(self.tr("A server needs a name and a URL."))
            return
        try:
            self.metrics_address = metrics_address(self.metrics_edit.text())
        except InvalidServerAddress as error:
            said = self.tr("Router metrics: {sentence}")
            self.show_error(said.format(sentence=error_text(str(error))))
            return
        key = self.key_edit.text()
        self._pending = (name, url, self.api_picker.currentData(), key) if key else None
        self.session_button.hide()
        self.saved.emit(name, url, self.api_picker.currentData(), key)
        self.key_edit.clear()  # the key lives in the keyring from here on, not in a widget
