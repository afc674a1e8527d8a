"""Where the user writes: Enter sends, Shift+Enter starts a new line."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from client.ui.common.reading_style import TextSizeFollower

MAX_LINES = 3  # the composer shows this many lines, then scrolls (the chat keeps the rest)


class Composer(QPlainTextEdit):
    submitted = Signal(str)
    stopRequested = Signal()  # Esc when the window's shortcut did not take it

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.setAccessibleName(self.tr("Message"))
        self.setPlaceholderText(self.tr("Ask anything — Enter sends, Shift+Enter for a new line"))
        self.setTabChangesFocus(True)
        TextSizeFollower(self)  # the chat's body size, following the zoom
        self._fit_height()

    def follow_zoom_in_placeholder(self) -> None:
        """The placeholder's text (painted on the viewport) follows the zoom too. Until
        then the viewport has the composer's size at the zoom of the moment. The launch
        calls this after the first paint: Python's first wrapper for a widget Qt made
        (the viewport) loads every lazily loaded PySide class, ~12 ms of CPU."""
        TextSizeFollower(self.viewport())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_height()

    def _fit_height(self) -> None:
        """At most MAX_LINES lines of the current text size (it follows the zoom)."""
        margins = self.contentsMargins()
        room = margins.top() + margins.bottom() + 2 * round(self.document().documentMargin())
        self.setMaximumHeight(self.fontMetrics().lineSpacing() * MAX_LINES + room)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.stopRequested.emit()
            return
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.submit()
            return
        super().keyPressEvent(event)

    def submit(self) -> None:
        text = self.toPlainText().strip()
        if text:
            self.submitted.emit(text)

    def put_back(self, text: str) -> None:
        """Return a question to the composer (Edit question) with the caret at its end."""
        self.setPlainText(text)
        self.moveCursor(self.textCursor().MoveOperation.End)
        self.setFocus()
