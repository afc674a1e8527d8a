"""The opened model picker (picker/model_picker.py): a filter line above the list it
narrows. Each word typed must be in a model's name or its server's; a server's name
stays above its matches. Up/Down/PageUp/PageDown move from the filter line, Enter
chooses, Escape closes.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QObject,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFrame,
    QLabel,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from client.ui.servers.picker.model_rows import (
    DETAIL_ROLE,
    INDENT,
    KIND_ROLE,
    AnyIndex,
    PickerRow,
    PickerRows,
    RowKind,
    row_data,
)

POPUP_WIDTH = 480  # at least; wider when the picker is
POPUP_ROWS = 16


class ShownRows(QAbstractListModel):
    """The rows the filter lets through: a server's name stays above its matches."""

    def __init__(self, source: PickerRows, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.source = source
        self.shown: list[int] = []
        self.words: list[str] = []
        source.modelReset.connect(self.refilter)
        source.dataChanged.connect(self._source_changed)
        self.refilter()

    def set_filter(self, text: str) -> None:
        self.words = text.casefold().split()
        self.refilter()

    def refilter(self) -> None:
        self.beginResetModel()
        self.shown = matching_rows(self.source.rows, self.words)
        self.endResetModel()

    def source_row(self, row: int) -> int:
        return self.shown[row]

    def row_of(self, source_row: int) -> int | None:
        try:
            return self.shown.index(source_row)
        except ValueError:
            return None

    def _source_changed(self, *_: object) -> None:
        if self.shown:
            self.dataChanged.emit(self.index(0), self.index(len(self.shown) - 1))

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.shown)

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return self.source.flags(self.source.index(self.shown[index.row()]))

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        return row_data(self.source.rows[self.shown[index.row()]], role)


def matching_rows(rows: list[PickerRow], words: list[str]) -> list[int]:
    """Indexes of the rows holding every word (all of them without words), each
    group's header kept above its matches."""
    if not words:
        return list(range(len(rows)))
    shown: list[int] = []
    header: int | None = None
    for at, row in enumerate(rows):
        if row.kind == RowKind.HEADER:
            header = at
        elif row.choosable and all(word in row.search for word in words):
            if header is not None:
                shown.append(header)
                header = None
            shown.append(at)
    return shown


class RowDelegate(QStyledItemDelegate):
    """A row: the name elided in the middle, its detail at the right in a quieter
    colour; a server's name in bold."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget)
        rect.adjust(INDENT if index.data(Qt.ItemDataRole.UserRole) else 0, 0, -4, 0)
        kind = index.data(KIND_ROLE)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        palette = QPalette(opt.palette)
        palette.setCurrentColorGroup(QPalette.ColorGroup.Active)  # a server's name: not greyed
        Role = QPalette.ColorRole
        quiet = Role.HighlightedText if selected else Role.PlaceholderText
        loud = Role.HighlightedText if selected else Role.Text
        font = QFont(opt.font)
        font.setBold(kind == RowKind.HEADER)
        metrics = QFontMetrics(font)
        painter.save()
        painter.setFont(font)
        detail = index.data(DETAIL_ROLE) or ""
        if detail:
            detail = metrics.elidedText(detail, Qt.TextElideMode.ElideRight, rect.width() // 2)
            painter.setPen(palette.color(quiet))
            painter.drawText(
                rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, detail
            )
            rect.adjust(0, 0, -(metrics.horizontalAdvance(detail) + 12), 0)
        painter.setPen(palette.color(quiet if kind == RowKind.NOTE else loud))
        shown = metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, rect.width())
        painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, shown)
        painter.restore()


class ModelPopup(QFrame):
    """The opened picker: a filter line and the list it narrows."""

    chosen = Signal(int)  # a row of the picker's PickerRows

    def __init__(self, rows: PickerRows, parent: QWidget) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("modelPopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.shown = ShownRows(rows, self)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("modelFilter")
        self.filter_edit.setAccessibleName(self.tr("Filter models"))
        self.filter_edit.setPlaceholderText(self.tr("Type to filter models…"))
        self.filter_edit.setClearButtonEnabled(True)
        self.list = QListView(self)
        self.list.setObjectName("modelList")
        self.list.setAccessibleName(self.tr("Models"))
        self.list.setModel(self.shown)
        self.list.setUniformItemSizes(True)  # 10,000 rows: no per-row size query
        # Rows are elided to the width: never a sideways scroll bar.
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setItemDelegate(RowDelegate(self.list))
        self.list.setMouseTracking(True)
        self.empty_label = QLabel(self.tr("No model matches."), self)
        self.empty_label.setObjectName("modelFilterEmpty")
        self.empty_label.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.list)
        layout.addWidget(self.empty_label)
        self.filter_edit.textChanged.connect(self.set_filter)
        self.filter_edit.installEventFilter(self)
        self.list.installEventFilter(self)
        self.list.clicked.connect(self._choose)
        self.picker: QComboBox | None = None
        rows.modelReset.connect(self._rows_arrived)  # (after the filter's own refilter)
        self.list.activated.connect(self._choose)

    def open_below(self, picker: QComboBox, current_row: int, text: str = "") -> None:
        self.picker = picker
        self.filter_edit.setText(text)
        self.set_filter(text)
        self.select_source_row(current_row)
        self._place()
        self.show()
        self.filter_edit.setFocus(Qt.FocusReason.PopupFocusReason)
        if not text:
            self.filter_edit.selectAll()
        else:
            self.filter_edit.end(False)

    def _place(self) -> None:
        """Under the picker (above it without room), as tall as its rows up to
        POPUP_ROWS: again when other servers' models arrive while it is open."""
        picker = self.picker
        if picker is None:
            return
        width = max(picker.width(), POPUP_WIDTH)
        rows = min(max(self.shown.rowCount(), 1), POPUP_ROWS)
        height = rows * self._row_height() + self.filter_edit.sizeHint().height() + 20
        at = picker.mapToGlobal(QPoint(0, picker.height()))
        screen = picker.screen().availableGeometry()
        at.setX(max(screen.left(), min(at.x(), screen.right() - width)))
        if at.y() + height > screen.bottom():  # no room below: above the picker
            at.setY(max(screen.top(), at.y() - picker.height() - height))
        self.setGeometry(at.x(), at.y(), width, height)

    def _rows_arrived(self) -> None:
        if self.isVisible():  # once the picker has set its current row among them
            QTimer.singleShot(0, self._reselect)

    def _reselect(self) -> None:
        if self.isVisible() and self.picker is not None:
            self.select_source_row(self.picker.currentIndex())
            self._place()

    def _row_height(self) -> int:
        return max(self.list.sizeHintForRow(0), self.fontMetrics().height() + 6)

    def set_filter(self, text: str) -> None:
        self.shown.set_filter(text)
        self.empty_label.setVisible(self.shown.rowCount() == 0)
        current = self.list.currentIndex()
        if not current.isValid() or not self.shown.flags(current):
            self._step(1, from_row=-1)

    def select_source_row(self, source_row: int) -> None:
        row = self.shown.row_of(source_row)
        if row is None:
            self._step(1, from_row=-1)
            return
        index = self.shown.index(row)
        self.list.setCurrentIndex(index)
        self.list.scrollTo(index, QListView.ScrollHint.PositionAtCenter)

    def _step(self, by: int, from_row: int | None = None) -> None:
        """Select the next choosable row `by` rows on (server names are passed over)."""
        count = self.shown.rowCount()
        row = self.list.currentIndex().row() if from_row is None else from_row
        target = None
        step = 1 if by > 0 else -1
        for _ in range(abs(by)):
            probe = row + step
            while 0 <= probe < count and not self.shown.flags(self.shown.index(probe)):
                probe += step
            if not 0 <= probe < count:
                break
            row = target = probe
        if target is not None:
            index = self.shown.index(target)
            self.list.setCurrentIndex(index)
            self.list.scrollTo(index)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._key(watched, event)
        return False

    def _key(self, watched: QObject, event: QKeyEvent) -> bool:
        key = event.key()
        page = max(self.list.viewport().height() // self._row_height(), 1)
        moves = {
            Qt.Key.Key_Down: 1,
            Qt.Key.Key_Up: -1,
            Qt.Key.Key_PageDown: page,
            Qt.Key.Key_PageUp: -page,
        }
        move = moves.get(Qt.Key(key))
        if move is not None:
            self._step(move)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._choose(self.list.currentIndex())
            return True
        if key == Qt.Key.Key_Escape:
            self.hide()
            return True
        if watched is self.list and event.text().isprintable() and event.text():
            self.filter_edit.setFocus()  # typing in the list goes to the filter
            self.filter_edit.insert(event.text())
            return True
        return False

    def _choose(self, index: QModelIndex) -> None:
        if index.isValid() and self.shown.flags(index) & Qt.ItemFlag.ItemIsSelectable:
            self.hide()
            self.chosen.emit(self.shown.source_row(index.row()))
