"""The server and model pickers above the chat."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QWidget,
)

from client.core.visible import visible
from client.ui.elided_combo import MiddleElidedComboBox
from client.ui.noop_tr import QT_TRANSLATE_NOOP

if TYPE_CHECKING:  # the window is painted before the network stack (httpx) is imported
    from client.services.servers import ServerChoice

NAME_ROOM = 32  # characters of the current server's name the picker always has room for


class ServerBar(QWidget):
    serverChosen = Signal(object)  # ServerChoice
    modelChosen = Signal(str)
    addServerRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serverBar")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.server_picker = QComboBox(self)
        self.server_picker.setObjectName("serverPicker")
        self.server_picker.setAccessibleName(self.tr("Server"))
        self.server_picker.setMinimumContentsLength(16)
        self.model_picker = MiddleElidedComboBox(self)  # "llama-3.1-8b…q4_K_M": both ends
        self.model_picker.setObjectName("modelPicker")
        self.model_picker.setAccessibleName(self.tr("Model"))
        self.model_picker.setMinimumContentsLength(14)
        self._model_names: list[str] = []  # as the server sent them; the picker shows them escaped
        # "+" rather than "Add server…": with the latency dock open, the bar's width
        # went to this button and the server's name was cut ("Local model (SmolLM2").
        self.add_button = QToolButton(self)
        self.add_button.setText("+")
        self.add_button.setToolTip(self.tr("Add server…"))
        self.add_button.setObjectName("addServerButton")
        self.add_button.setAccessibleName(self.tr("Add server"))
        layout.addWidget(_buddy(self.tr("&Server:"), self.server_picker))
        layout.addWidget(self.server_picker, 2)
        layout.addWidget(_buddy(self.tr("&Model:"), self.model_picker))
        layout.addWidget(self.model_picker, 1)
        layout.addWidget(self.add_button)
        self._choices: list[ServerChoice] = []
        self._quiet = False
        self.server_picker.currentIndexChanged.connect(self._on_server)
        self.model_picker.currentIndexChanged.connect(self._on_model)
        self.add_button.clicked.connect(self.addServerRequested.emit)

    @property
    def choices(self) -> list[ServerChoice]:
        return list(self._choices)

    def set_choices(self, choices: Sequence[ServerChoice], current: ServerChoice | None) -> None:
        self._quiet = True
        try:
            self._choices = list(choices)
            self.server_picker.clear()
            for index, choice in enumerate(self._choices):
                self.server_picker.addItem(picker_text(choice))
                self.server_picker.setItemData(
                    index, f"{shown_name(choice)}  —  {choice.url}", Qt.ItemDataRole.ToolTipRole
                )
            if current is not None:
                keys = [choice.key for choice in self._choices]
                if current.key in keys:
                    self.server_picker.setCurrentIndex(keys.index(current.key))
        finally:
            self._quiet = False
        self._show_server_tip()

    def current_choice(self) -> ServerChoice | None:
        index = self.server_picker.currentIndex()
        return self._choices[index] if 0 <= index < len(self._choices) else None

    def set_models(self, models: Sequence[str], current: str | None) -> None:
        """The server's models, shown escaped (a name is whatever the server sent: no
        control character, terminal escape or right-to-left override acts); the raw
        name is what is chosen. 10,000 names fill it in about 0.15 s here."""
        names = list(models)
        if current and current not in names:
            names.append(current)
        self._quiet = True
        try:
            self._model_names = names
            self.model_picker.clear()
            self.model_picker.addItems([visible(name) for name in names])
            if current:
                self.model_picker.setCurrentIndex(names.index(current))
        finally:
            self._quiet = False

    def current_model(self) -> str | None:
        index = self.model_picker.currentIndex()
        return self._model_names[index] if 0 <= index < len(self._model_names) else None

    def _on_server(self, index: int) -> None:
        self._show_server_tip()
        if not self._quiet and 0 <= index < len(self._choices):
            self.serverChosen.emit(self._choices[index])

    def _show_server_tip(self) -> None:
        """The closed picker's tooltip: the current server's name and address; and
        room for the name itself (up to NAME_ROOM characters), whatever else the bar
        holds: the layout otherwise shrank it to "Local model (SmolLM2"."""
        picker = self.server_picker
        tip = picker.itemData(picker.currentIndex(), Qt.ItemDataRole.ToolTipRole)
        picker.setToolTip(tip or "")
        text = picker.currentText()[:NAME_ROOM]
        from PySide6.QtWidgets import QStyle, QStyleOptionComboBox  # (elided_combo.paintEvent)

        option = QStyleOptionComboBox()
        picker.initStyleOption(option)
        room = picker.fontMetrics().horizontalAdvance(text) + 8  # the text's own margins
        size = picker.style().sizeFromContents(
            QStyle.ContentsType.CT_ComboBox, option, QSize(room, 0), picker
        )
        picker.setMinimumWidth(size.width())

    def _on_model(self, index: int) -> None:
        if not 0 <= index < len(self._model_names):
            return  # emptied (clear(), or the picker being destroyed): touch nothing
        name = self._model_names[index]
        self.model_picker.setToolTip(visible(name))  # a long model name is cut in the picker
        if not self._quiet and name:
            self.modelChosen.emit(name)


def _buddy(text: str, field: QWidget) -> QLabel:
    """A label that names its field for screen readers; Alt+its letter focuses it."""
    label = QLabel(text, field.parentWidget())
    label.setBuddy(field)
    return label


# Names the app gives its own servers (client.services.servers, client.ui.demo_menu),
# translated where shown; a saved server keeps the name its user typed.
OWN_SERVER_NAMES = (
    QT_TRANSLATE_NOOP("ServerBar", "Local model (SmolLM2-135M)"),
    QT_TRANSLATE_NOOP("ServerBar", "Latency lab (demo)"),
)


# client.services.servers names the servers it detects "<kind> on this computer (<port>)".
DETECTED_NAME = re.compile(r"(Ollama|OpenAI-compatible server) on this computer \((\d+)\)")


def shown_name(choice: ServerChoice) -> str:
    detected = DETECTED_NAME.fullmatch(choice.name)
    if detected is None:
        return QCoreApplication.translate("ServerBar", choice.name)
    if detected[1] == "Ollama":
        text = QCoreApplication.translate("ServerBar", "Ollama on this computer ({port})")
    else:
        text = QCoreApplication.translate(
            "ServerBar", "OpenAI-compatible server on this computer ({port})"
        )
    return text.format(port=detected[2])


def picker_text(choice: ServerChoice) -> str:
    """The local engine's port changes at every start and means nothing to the user:
    its name alone. Other servers show their address (the tooltip has both)."""
    name = shown_name(choice)
    return name if choice.is_local else f"{name}  —  {choice.url}"
