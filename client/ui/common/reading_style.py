"""How large the chat's text is, one place for the whole window: the body size, the line
height and the reading column's width, all following one zoom factor.

The chat (client.ui.chat.render.chat_view) and the empty state read it and follow its
`changed` signal; the composer and the status line keep their text at a size times the
zoom with a TextSizeFollower. The View menu's zoom in / out / reset (Ctrl+plus / minus / 0) and
Present call `zoom_in`, `zoom_out`, `reset_zoom` or `set_zoom` on `reading_style()`.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractScrollArea, QTextEdit, QWidget

BODY_PX = 15  # the chat's body text at 100 %
STATUS_PX = 13  # the status line's text at 100 %
LINE_HEIGHT_PERCENT = 150  # of the font's line spacing: about 1.5 lines
COLUMN_MAX_PX = 760  # the reading column, centred in the chat, at 100 %
# The zoom steps of Ctrl+plus / minus, as in a browser (Present uses 1.5).
ZOOM_STEPS = (0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
MIN_ZOOM, MAX_ZOOM = ZOOM_STEPS[0], ZOOM_STEPS[-1]


class ReadingStyle(QObject):
    """The zoom and what follows from it; `changed` is emitted when the zoom changes."""

    changed = Signal()
    zoom_changed = Signal(float)  # the new zoom, 1.0 = 100 % (the View menu, Settings)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._zoom = 1.0

    @property
    def zoom(self) -> float:
        return self._zoom

    @property
    def body_px(self) -> int:
        """The body text's pixel size at this zoom."""
        return self.px(BODY_PX)

    def px(self, at_100: int) -> int:
        """A text's pixel size at this zoom, given its size at 100 %."""
        return max(8, round(at_100 * self._zoom))

    @property
    def column_px(self) -> int:
        """The widest the reading column grows at this zoom."""
        return round(COLUMN_MAX_PX * self._zoom)

    @property
    def line_height_percent(self) -> int:
        return LINE_HEIGHT_PERCENT

    def set_zoom(self, zoom: float) -> None:
        zoom = min(MAX_ZOOM, max(MIN_ZOOM, zoom))
        if abs(zoom - self._zoom) > 1e-6:
            self._zoom = zoom
            self.changed.emit()
            self.zoom_changed.emit(zoom)

    def zoom_in(self) -> None:
        self.set_zoom(next((step for step in ZOOM_STEPS if step > self._zoom + 1e-6), MAX_ZOOM))

    def zoom_out(self) -> None:
        lower = [step for step in ZOOM_STEPS if step < self._zoom - 1e-6]
        self.set_zoom(lower[-1] if lower else MIN_ZOOM)

    def reset_zoom(self) -> None:
        self.set_zoom(1.0)


_shared: ReadingStyle | None = None


class TextSizeFollower(QObject):
    """Keeps a widget's text at `px_at_100` times the zoom, set on the widget itself:
    under the app's stylesheet a widget does not inherit its parent's font, and a new
    stylesheet (a theme switch) puts back the font the widget had when first styled, so
    that is undone here too. A child of the widget: the connection goes with it."""

    def __init__(self, widget: QWidget, px_at_100: int = BODY_PX) -> None:
        super().__init__(widget)
        self.widget, self.px_at_100 = widget, px_at_100
        reading_style().changed.connect(self.apply)
        widget.installEventFilter(self)
        self.apply()

    def apply(self) -> None:
        wanted = reading_style().px(self.px_at_100)
        if self.widget.font().pixelSize() != wanted:
            at_end = _scrolled_to_end(self.widget)
            font = QFont(self.widget.font())
            font.setPixelSize(wanted)
            self.widget.setFont(font)
            if at_end:  # a reader at the end stays there (Present's zoom, Ctrl+plus)
                _keep_at_end(self.widget)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.apply()
        return False


def _scrolled_to_end(widget: QWidget) -> bool:
    if not isinstance(widget, QAbstractScrollArea):
        return False
    bar = widget.verticalScrollBar()
    return bar.value() >= bar.maximum() - 2


def _keep_at_end(widget: QWidget) -> None:
    """Back to the end at the new size (a text view lays itself out when asked for
    its document's size, which sets the scroll bar's new range)."""
    if not isinstance(widget, QAbstractScrollArea):
        return
    if isinstance(widget, QTextEdit):
        widget.document().size()
    bar = widget.verticalScrollBar()
    bar.setValue(bar.maximum())


def reading_style() -> ReadingStyle:
    """The window's one reading style (made on first use, owned by the application)."""
    global _shared
    if _shared is None:
        _shared = ReadingStyle(QCoreApplication.instance())
        _shared.destroyed.connect(_forget)
    return _shared


def _forget() -> None:
    global _shared
    _shared = None
