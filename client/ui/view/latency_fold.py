"""The latency panel keeps its width, and folds on a narrow window.

The panel (the HUD dock) is given a fixed least width, so a view whose size hint grows
after the first answer (the tier word, the waterfall's title) never widens it and
never narrows the chat under the reader. Below FOLD_BELOW_PX of window width it folds
into a slim strip at the right edge showing the current answer's time to first token
and rate; a click on the strip opens the panel, and widening the window brings it back
as it was.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QLocale, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QKeyEvent, QMouseEvent, QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QLabel,
    QMainWindow,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from client.ui.view.answer_glance import Glance

FOLD_BELOW_PX = 1100  # window width under which the panel folds into the strip
HUD_LEAST_WIDTH = 300  # px: the panel's width floor, whatever its views ask
STRIP_WIDTH = 76
STRIP_REFRESH_MS = 250


class LatencyStrip(QFrame):
    """The folded panel: the current answer's TTFT and rate; a click opens the panel."""

    clicked = Signal()

    def __init__(self, figures: Callable[[], Glance], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("latencyStrip")
        self.setFixedWidth(STRIP_WIDTH)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName(self.tr("Latency (folded): click to open the panel"))
        self.setToolTip(self.tr("Open the latency panel"))
        self.figures = figures
        self.title = self._label(self.tr("Latency"), "latencyStripTitle")
        self.ttft = self._label("–", "latencyStripTtft")
        self.rate = self._label("", "latencyStripRate")
        # Said, not only a tooltip: a click opens the panel with its tabs.
        self.open_hint = self._label(self.tr("◂ open the panel"), "latencyStripOpen")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 4, 8)
        for label in (self.title, self.ttft, self.rate):
            layout.addWidget(label)
        layout.addStretch(1)
        layout.addWidget(self.open_hint)
        self._seen = -1
        self.timer = QTimer(self)
        self.timer.setInterval(STRIP_REFRESH_MS)
        self.timer.timeout.connect(self.refresh)

    def _label(self, text: str, name: str) -> QLabel:
        label = QLabel(text, self)
        label.setObjectName(name)
        label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        label.setWordWrap(True)
        return label

    def refresh(self) -> None:
        glance = self.figures()
        locale = QLocale()
        if glance.ttft_ms is None:
            waiting = self.tr("waiting…") if glance.answering else "–"
            self.ttft.setText(waiting)
        else:
            ms = locale.toString(glance.ttft_ms, "f", 0)
            self.ttft.setText(self.tr("first token\n{ms} ms").format(ms=ms))
        rate = glance.tokens_per_s
        rate_text = "" if rate is None else locale.toString(rate, "f", 0)
        self.rate.setText(self.tr("{rate}\ntokens/s").format(rate=rate_text) if rate_text else "")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()
        self.timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.timer.stop()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.clicked.emit()
            return
        super().keyPressEvent(event)


class LatencyFold(QObject):
    """Folds the window's latency dock into the strip below FOLD_BELOW_PX."""

    def __init__(
        self, window: QMainWindow, dock: QDockWidget, figures: Callable[[], Glance]
    ) -> None:
        super().__init__(window)
        self.window, self.dock = window, dock
        self.strip = LatencyStrip(figures)
        self.bar = QToolBar(self.tr("Latency (folded)"), window)
        self.bar.setObjectName("latencyStripBar")
        self.bar.setMovable(False)
        self.bar.setFloatable(False)
        self.bar.toggleViewAction().setVisible(False)
        self.bar.addWidget(self.strip)
        window.addToolBar(Qt.ToolBarArea.RightToolBarArea, self.bar)
        self.bar.hide()
        self.folded = False
        self.open_when_wide = True  # the dock's state before it folded
        self.suspended = False  # Present: neither folds nor shows the strip
        self.strip.clicked.connect(self.open_panel)
        dock.visibilityChanged.connect(lambda _visible: self.show_strip())
        window.installEventFilter(self)
        self.update()

    def keep_width(self, hud: QWidget) -> None:
        """The panel's floor is this, not its views' size hints (which grow)."""
        hud.setMinimumWidth(HUD_LEAST_WIDTH)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self.window and kind == QEvent.Type.Resize:
            self.update()
        elif watched is self.window and kind == QEvent.Type.Close and self.folded:
            self.dock.setVisible(self.open_when_wide)  # the layout remembered unfolded
        return False

    def update(self) -> None:
        if self.suspended:
            self.bar.hide()
            return
        narrow = self.window.width() < FOLD_BELOW_PX
        if narrow and not self.folded:
            self.folded = True
            self.open_when_wide = not self.dock.isHidden()
            self.dock.hide()
        elif not narrow and self.folded:
            self.folded = False
            self.dock.setVisible(self.open_when_wide)
        self.show_strip()

    def show_strip(self) -> None:
        self.bar.setVisible(self.folded and self.dock.isHidden() and not self.suspended)

    def restore(self, panel_open: bool) -> None:
        """After Present: the panel as it was (folded again when the window is narrow)."""
        self.suspended = False
        if self.folded:
            self.open_when_wide = panel_open
            self.dock.hide()
        else:
            self.dock.setVisible(panel_open)
        self.update()

    def open_panel(self) -> None:
        self.dock.show()
        self.dock.raise_()
        self.show_strip()
