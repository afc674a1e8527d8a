"""The HUD's Pool tab: for the pool the chat uses, each server's time to first token
(P50, P95, with n), how often its answer was the one shown, the requests sent to it and
its failures (client/services/fleet/book.py keeps the figures)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from client.services.fleet.book import MemberFigures


class PoolView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("poolView")
        self.note = QLabel(self)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.table = QTableWidget(0, 6, self)
        self.table.setObjectName("poolTable")
        self.table.setAccessibleName(self.tr("Servers of the pool"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Server"),
                self.tr("TTFT P50 (ms)"),
                self.tr("TTFT P95 (ms)"),
                self.tr("Answers given"),
                self.tr("Requests sent"),
                self.tr("Failures"),
            ]
        )
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.table)
        self.show_pool(None)

    def show_pool(self, name: str | None, figures: Sequence[MemberFigures] = ()) -> None:
        """The pool in use and its servers' figures; None: the chat uses one server."""
        if name is None:
            self.note.setText(self.tr("The chat uses one server, not a pool."))
            self.table.setRowCount(0)
            return
        self.note.setText(self.tr("Pool “{name}”").format(name=name))
        locale = QLocale()
        self.table.setRowCount(len(figures))
        for row, server in enumerate(figures):
            cells = [
                server.name,
                _ms(locale, server.p50_ms, server.n),
                _ms(locale, server.p95_ms, server.n),
                locale.toString(server.wins),
                locale.toString(server.sent),
                locale.toString(server.failures),
            ]
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()


def _ms(locale: QLocale, value: float | None, n: int) -> str:
    if value is None:
        return "–"
    return f"{locale.toString(value, 'f', 0)} (n={locale.toString(n)})"
