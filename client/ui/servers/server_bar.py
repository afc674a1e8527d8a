"""The server and model pickers above the chat (the model picker: picker/model_picker.py;
what it lists: client/ui/servers/picker/model_lists.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QWidget,
)

from client.ui.chat.chat_window import ChatWindow
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.server_names import shown_name
from client.ui.servers.picker.model_lists import ModelLists
from client.ui.servers.picker.model_picker import ModelPicker
from client.ui.servers.picker.model_rows import RowKind, row_data

if TYPE_CHECKING:  # the window is painted before the network stack (httpx) is imported
    from client.services.servers.servers import ServerChoice

NAME_ROOM = 32  # characters of the current server's name the picker always has room for


class ServerBar(QWidget):
    serverChosen = Signal(object)  # ServerChoice
    modelChosen = Signal(str)  # a model of the server in use
    modelOnServerChosen = Signal(object, str)  # (ServerChoice, model): another server's
    cascadeChosen = Signal()  # the saved cascade's entry
    choicesChanged = Signal()  # the servers listed changed
    addServerRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serverBar")
        layout = self.row = QHBoxLayout(self)  # others add their widgets to it
        layout.setContentsMargins(0, 0, 0, 0)
        self.server_picker = QComboBox(self)
        self.server_picker.setObjectName("serverPicker")
        self.server_picker.setAccessibleName(self.tr("Server"))
        self.server_picker.setMinimumContentsLength(16)
        self.model_picker = ModelPicker(self)  # "llama-3.1-8b…q4_K_M": both ends
        self.model_picker.setObjectName("modelPicker")
        self.model_picker.setAccessibleName(self.tr("Model"))
        self.model_picker.setMinimumContentsLength(14)
        # "+ Add" rather than "Add server…": with the latency dock open, the bar's width
        # went to this button and the server's name was cut ("Local model (SmolLM2").
        self.add_button = QToolButton(self)
        self.add_button.setText(self.tr("+ Add"))
        self.add_button.setToolTip(self.tr("Add server…"))
        self.add_button.setObjectName("addServerButton")
        self.add_button.setAccessibleName(self.tr("Add server"))
        layout.addWidget(_buddy(self.tr("&Server:"), self.server_picker))
        layout.addWidget(self.server_picker, 2)
        layout.addWidget(_buddy(self.tr("&Model:"), self.model_picker))
        layout.addWidget(self.model_picker, 1)
        layout.addWidget(self.add_button)
        self._choices: list[ServerChoice] = []
        self._lists = ModelLists()
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
                    index, self._tip(choice), Qt.ItemDataRole.ToolTipRole
                )
            if current is not None:
                self._show_server(current)
        finally:
            self._quiet = False
        self._show_server_tip()
        self._lists.keep_only({choice.key for choice in self._choices})
        self._rebuild()
        self.choicesChanged.emit()

    def _tip(self, choice: ServerChoice) -> str:
        from client.services.servers.servers import is_started  # (after the first paint)

        where = choice.url if is_started(choice) else self.tr("starts when chosen")
        return f"{shown_name(choice)}  —  {where}"

    def _show_server(self, choice: ServerChoice) -> None:
        keys = [listed.key for listed in self._choices]
        if choice.key in keys:
            self.server_picker.setCurrentIndex(keys.index(choice.key))

    def current_choice(self) -> ServerChoice | None:
        index = self.server_picker.currentIndex()
        return self._choices[index] if 0 <= index < len(self._choices) else None

    def set_models(
        self, models: Sequence[str], current: str | None, server: ServerChoice | None = None
    ) -> None:
        """The models of the server in use (server; else the one the server picker
        shows), shown escaped (a name is whatever the server sent: no control
        character, terminal escape or right-to-left override acts); the raw name is
        what is chosen. 10,000 names fill it in about 25 ms here (the list view asks
        only for the rows it paints)."""
        names = list(models)
        if current and current not in names:
            names.append(current)
        server = server or self.current_choice()
        self._lists.in_use = server
        self._lists.model = current or None
        if server is not None:
            self._lists.names[server.key] = names
        self._rebuild()

    def set_server_models(
        self, choice: ServerChoice, models: Sequence[str] | None, note: str = ""
    ) -> None:
        """Another server's models, listed under its name; None when it gave none,
        with the note saying why ("not reachable" without one)."""
        names = None if models is None else list(models)
        if choice.key in self._lists.names and self._lists.names[choice.key] == names:
            if self._lists.notes.get(choice.key, "") == note:
                return
        self._lists.names[choice.key] = names
        self._lists.notes[choice.key] = note
        self._rebuild()

    def set_details(self, details: dict[tuple[object, str], str]) -> None:
        """ "warm · 28 min left · TTFT 60 ms" beside each model, by (server key, model)."""
        self._lists.details = details
        self.model_picker.rows.set_details(details)

    def set_cascade(self, label: str | None, active: bool) -> None:
        """The saved cascade's entry (None: no complete cascade saved); active when
        the session routes through it."""
        if (label, active) == (self._lists.cascade, self._lists.cascade_on):
            return
        self._lists.cascade, self._lists.cascade_on = label, active and label is not None
        self._rebuild()

    @property
    def server_in_use(self) -> ServerChoice | None:
        return self._lists.in_use

    def model_groups(self) -> list[ServerChoice]:
        """The servers whose models the picker lists, in its order."""
        return self._lists.groups(self._choices)

    def model_names(self) -> list[str]:
        """The raw names of the server in use's models, as listed."""
        in_use = self._lists.in_use
        return self.models_of(in_use) if in_use is not None else []

    def models_of(self, choice: ServerChoice) -> list[str]:
        return list(self._lists.names.get(choice.key) or [])

    def current_model(self) -> str | None:
        """The model of the server in use that the picker shows (or the session's,
        while the cascade's entry is shown)."""
        row = self.model_picker.row(self.model_picker.currentIndex())
        if row is not None and row.kind == RowKind.MODEL:
            return row.name
        return self._lists.model if self.model_picker.count() else None

    def _rebuild(self) -> None:
        rows, current = self._lists.rows(self._choices, shown_name)
        self._quiet = True
        try:
            self.model_picker.rows.set_rows(rows)
            self.model_picker.setCurrentIndex(current)
        finally:
            self._quiet = False
        self._show_model_tip()

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

    def _show_model_tip(self) -> None:
        row = self.model_picker.row(self.model_picker.currentIndex())
        tip = row_data(row, Qt.ItemDataRole.ToolTipRole) if row else ""
        self.model_picker.setToolTip(str(tip or ""))

    def _on_model(self, index: int) -> None:
        row = self.model_picker.row(index)
        if row is None:
            return  # emptied (a rebuild, or the picker being destroyed): touch nothing
        self._show_model_tip()  # a long model name is cut in the picker
        if self._quiet:
            return
        lists = self._lists
        if row.kind == RowKind.CASCADE:
            lists.cascade_on = True
            self.cascadeChosen.emit()
            return
        lists.cascade_on = False
        choice = lists.choice(row.group, self._choices)
        lists.model = row.name
        if choice is None or (lists.in_use is not None and choice.key == lists.in_use.key):
            if row.name:
                self.modelChosen.emit(row.name)
            return
        lists.in_use = choice
        self._quiet = True
        try:
            self._show_server(choice)
        finally:
            self._quiet = False
        self._show_server_tip()
        self.modelOnServerChosen.emit(choice, row.name)


def _buddy(text: str, field: QWidget) -> QLabel:
    """A label that names its field for screen readers; Alt+its letter focuses it."""
    label = QLabel(text, field.parentWidget())
    label.setBuddy(field)
    return label


# Names the app gives its own servers (client.services.servers.servers, client.ui.demo.demo_menu),
# translated where shown; a saved server keeps the name its user typed.
OWN_SERVER_NAMES = (
    QT_TRANSLATE_NOOP("ServerBar", "Local model (SmolLM2-135M)"),
    QT_TRANSLATE_NOOP("ServerBar", "Latency lab (demo)"),
)


def picker_text(choice: ServerChoice) -> str:
    """The local engine's port changes at every start and means nothing to the user:
    its name alone. Other servers show their address (the tooltip has both)."""
    name = shown_name(choice)
    return name if choice.is_local else f"{name}  —  {choice.url}"


class ServersWindow(ChatWindow):
    """The main window as the servers' area (and the areas over it) sees it: the chat's
    column and this bar across its top (the shell's MainWindow makes both)."""

    server_bar: ServerBar
