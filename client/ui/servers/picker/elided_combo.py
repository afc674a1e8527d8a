"""A combo box that cuts a long entry in the middle, where model names differ least.

"qwen2.5-coder-32b-instruct-q4_K_M" cut at the right loses the quantisation, which is
what tells two downloads apart; cut in the middle, both ends stay. The list that drops
down does the same, and each entry's tooltip is its full text.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QWidget


class MiddleElidedComboBox(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.currentTextChanged.connect(self.setToolTip)

    def addItem(self, text: str, *args: object) -> None:  # type: ignore[override]
        super().addItem(text, *args)
        self.setItemData(self.count() - 1, text, Qt.ItemDataRole.ToolTipRole)

    def addItems(self, texts: list[str]) -> None:  # type: ignore[override]
        for text in texts:
            self.addItem(text)

    def shown_text(self) -> str:
        """The current entry as painted: elided in the middle to the text field's width."""
        from PySide6.QtWidgets import QStyle, QStyleOptionComboBox  # (see paintEvent)

        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        return self.fontMetrics().elidedText(
            self.currentText(), Qt.TextElideMode.ElideMiddle, field.width()
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.currentText():  # the window's first frame: Qt's own painting will do
            super().paintEvent(event)
            return
        # QStyle's enums take 5 ms to make: not before the window's first paint.
        from PySide6.QtWidgets import QStyle, QStyleOptionComboBox, QStylePainter

        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.currentText = self.shown_text()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
