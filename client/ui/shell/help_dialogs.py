"""Help > Keyboard shortcuts and Help > About Tachy."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from client.services.settings.about import data_folder, engine_version, tachy_version
from client.ui.common.shortcuts import SHORTCUTS as ALL_SHORTCUTS

# The window's keys and what they do, from the one table (Qt writes each key in the
# platform's way).
SHORTCUTS: tuple[tuple[str, str], ...] = tuple(
    (entry.keys[0], entry.does) for entry in ALL_SHORTCUTS.values()
)


def _tr(text: str) -> str:
    return QCoreApplication.translate("Shortcuts", text)


class ShortcutsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        self.table = QTableWidget(len(SHORTCUTS), 2, self)
        self.table.setObjectName("shortcutsTable")
        self.table.setAccessibleName(self.tr("Keyboard shortcuts"))
        self.table.setHorizontalHeaderLabels([self.tr("Keys"), self.tr("What it does")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, (keys, what) in enumerate(SHORTCUTS):
            shown = QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)
            self.table.setItem(row, 0, QTableWidgetItem(shown))
            self.table.setItem(row, 1, QTableWidgetItem(_tr(what)))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(520, 560)

    def rows(self) -> list[tuple[str, str]]:
        return [(self._text(r, 0), self._text(r, 1)) for r in range(self.table.rowCount())]

    def _text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text() if item is not None else ""


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle(self.tr("About Tachy"))
        title = QLabel(self.tr("Tachy: a chat client for local models that shows every wait."))
        title.setWordWrap(True)
        form = QFormLayout()
        engine = engine_version() or self.tr("not installed")
        self.values = {
            "version": tachy_version(),
            "engine": engine,
            "data": str(data_folder()),
        }
        for key, label in (
            ("version", self.tr("Version")),
            ("engine", self.tr("Local engine")),
            ("data", self.tr("Data folder")),
        ):
            value = QLabel(self.values[key])
            value.setObjectName(f"about-{key}")
            value.setTextFormat(Qt.TextFormat.PlainText)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            form.addRow(label, value)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(form)
        layout.addWidget(buttons)
