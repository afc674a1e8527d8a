"""A one-line label that gives way on a narrow window: it asks for its text's width,
accepts none, and when cut says its text with "…" (the whole text in its tooltip).
The server bar's model state ("warm · 28 min left") is one: at 1024 px the bar's
buttons must stay on screen (⇩ Models was cut off)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QWidget


class ShrinkingLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def paintEvent(self, event: QPaintEvent) -> None:
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, rect.width()
        )
        painter = QPainter(self)
        painter.drawText(rect, int(self.alignment()), shown)
