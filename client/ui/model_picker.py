"""The model picker: every server's models in one list, grouped under the server's name,
each with what is known of it ("warm · 28 min left · TTFT 60 ms"), and a filter.

The closed picker is a combo box (Up/Down step through the models, the current one is
elided in the middle). Opened (click, Space, Alt+Down, or typing a letter), it shows a
popup with a filter line above the list: each word typed narrows the list to the models
(or servers) whose name holds it. Filtering 10,000 names is a list comprehension over
lower-cased names; the list view asks only for the rows it paints. The popup
(client/ui/model_popup.py) is imported when the picker first opens, not before the
window's first paint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QWidget

from client.ui.elided_combo import MiddleElidedComboBox

if TYPE_CHECKING:
    from client.ui.model_popup import ModelPopup

KIND_ROLE = Qt.ItemDataRole.UserRole + 1
DETAIL_ROLE = Qt.ItemDataRole.UserRole + 2
INDENT = 14  # a model under its server's name
AnyIndex = QModelIndex | QPersistentModelIndex


class RowKind:  # (plain strings: an Enum or a dataclass costs the first paint ~1 ms each)
    HEADER = "header"  # a server's name
    NOTE = "note"  # "not reachable" under a server's name
    MODEL = "model"
    CASCADE = "cascade"
    CHOOSABLE = (MODEL, CASCADE)


class PickerRow:
    __slots__ = ("detail", "group", "indented", "kind", "name", "search", "text")

    def __init__(
        self,
        kind: str,
        text: str,
        group: Any = None,
        name: str = "",
        detail: str = "",
        search: str = "",
        indented: bool = False,
    ) -> None:
        self.kind = kind  # a RowKind
        self.text = text  # as shown (names escaped by the caller)
        self.group = group  # the server's key; "cascade" for the cascade
        self.name = name  # the raw model name, as the server sent it
        self.detail = detail  # "warm · 28 min left · TTFT 60 ms"
        self.search = search  # what the filter matches, lower case
        self.indented = indented

    @property
    def choosable(self) -> bool:
        return self.kind in RowKind.CHOOSABLE


class PickerRows(QAbstractListModel):
    """The picker's rows; the combo box and the popup's list both show them."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[PickerRow] = []

    def set_rows(self, rows: list[PickerRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def set_details(self, details: dict[tuple[Any, str], str]) -> None:
        """Each model's detail by (group, raw name); one repaint for them all."""
        changed = False
        for row in self.rows:
            if row.kind == RowKind.MODEL:
                detail = details.get((row.group, row.name), "")
                changed = changed or detail != row.detail
                row.detail = detail
        if changed:
            self.dataChanged.emit(self.index(0), self.index(len(self.rows) - 1))

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid() or not self.rows[index.row()].choosable:
            return Qt.ItemFlag.NoItemFlags  # Up/Down in the closed picker skip it
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        return row_data(self.rows[index.row()], role)


def row_data(row: PickerRow, role: int) -> Any:
    if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
        return row.text
    if role == Qt.ItemDataRole.ToolTipRole:
        return f"{row.text}\n{row.detail}" if row.detail else row.text
    if role == Qt.ItemDataRole.AccessibleTextRole:
        return f"{row.text}, {row.detail}" if row.detail else row.text
    if role == KIND_ROLE:
        return row.kind
    if role == DETAIL_ROLE:
        return row.detail
    if role == Qt.ItemDataRole.UserRole:
        return row.indented
    return None


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
            from client.ui.model_popup import ModelPopup

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
