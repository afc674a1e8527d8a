"""The model picker's rows (picker/model_picker.py shows them closed, model_popup.py
opened): a server's name, a note under it, a model, or the saved cascade."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

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
        group: tuple[str, str] | str | None = None,
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

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        return row_data(self.rows[index.row()], role)


def row_data(row: PickerRow, role: int) -> object:
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
