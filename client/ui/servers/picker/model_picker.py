"""The model picker: every server's models in one list, grouped under the server's name,
each with what is known of it ("warm · 28 min left · TTFT 60 ms"), and a filter.

The closed picker is a combo box (Up/Down step through the models, the current one is
elided in the middle). Opened (click, Space, Alt+Down, or typing a letter), it shows a
popup with a filter line above the list: each word typed narrows the list to the models
(or servers) whose name holds it. Filtering 10,000 names is a list comprehension over
lower-cased names; the list view asks only for the rows it paints. The popup
(client/ui/servers/picker/model_popup.py) is imported when the picker first opens, not before the
window's first paint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import (
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QWidget

from client.ui.servers.picker.elided_combo import MiddleElidedComboBox
from client.ui.servers.picker.model_rows import PickerRow, PickerRows

if TYPE_CHECKING:
    from client.ui.servers.picker.model_popup import ModelPopup


class ModelPicker(MiddleElidedComboBox):
    """The combo box above the chat; its list is a PickerRows, its popup a ModelPopup."""

    popupOpened = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows = PickerRows(self)
        self.setModel(self.rows)
        self.popup: ModelPopup | None = None  # made when first opened

    def row(self, index: int) -> PickerRow | None:
        return self.rows.rows[index] if 0 <= index < len(self.rows.rows) else None

    def showPopup(self) -> None:
        self.open_filtered("")

    def hidePopup(self) -> None:
        if self.popup is not None:
            self.popup.hide()

    def open_filtered(self, text: str) -> None:
        if self.popup is None:
            from client.ui.servers.picker.model_popup import ModelPopup

            self.popup = ModelPopup(self.rows, self)
            self.popup.chosen.connect(self.setCurrentIndex)
        self.popup.open_below(self, self.currentIndex(), text)
        self.popupOpened.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        text = event.text()
        plain = not event.modifiers() & ~(
            Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier
        )
        if plain and text and text.isprintable() and not text.isspace():
            if self.popup is not None and self.popup.isVisible():
                self.popup.filter_edit.insert(text)  # (the popup has the keyboard)
            else:
                self.open_filtered(text)  # typing a name opens the list filtered by it
            return
        super().keyPressEvent(event)
