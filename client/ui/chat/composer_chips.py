"""Small chips over the composer saying what the next question goes through: the
documents search (Ctrl+K) and the cascade, each shown only while it is on. A click
on a chip turns it off (the action behind it decides, as from its menu)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QToolButton, QWidget


class ComposerChips(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composerChips")
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(6)
        self.row.addStretch(1)
        self.chips: dict[str, QToolButton] = {}
        self._actions: dict[str, QAction] = {}
        self.hide()

    def follow(self, name: str, action: QAction, text: str, tip: str) -> QToolButton:
        """A chip shown while `action` is checked; a click unchecks it."""
        chip = QToolButton(self)
        chip.setObjectName(f"chip-{name}")
        chip.setProperty("chip", True)
        chip.setText(text + "  ×")
        chip.setToolTip(tip)
        chip.setAccessibleName(text)
        chip.setCursor(Qt.CursorShape.PointingHandCursor)
        chip.clicked.connect(lambda: self._turn_off(action))
        self.row.insertWidget(self.row.count() - 1, chip)
        self.chips[name] = chip
        self._actions[name] = action
        action.toggled.connect(lambda on: self._show(chip, on))
        self._show(chip, action.isChecked())
        return chip

    @staticmethod
    def _turn_off(action: QAction) -> None:
        if action.isChecked():
            action.trigger()

    def refresh(self) -> None:
        """After an action was set with its signals blocked (another conversation's)."""
        for name, chip in self.chips.items():
            self._show(chip, self._actions[name].isChecked())

    def _show(self, chip: QToolButton, on: bool) -> None:
        chip.setVisible(on)
        self.setVisible(any(not c.isHidden() for c in self.chips.values()))
