"""The race window and its controller: runs a services Race (client/services/race/race.py)
into the columns, the figures refreshed ten times a second while it runs.

One race = one asyncio task kept here; Stop (the button or Esc) cancels it, and the race
stops every column: each connection closes, each server stops, each answer is kept.
Once nothing runs, Esc (and always the Close button) closes the window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QVBoxLayout, QWidget

from client.core.events import Token, TokenKind
from client.services.chat.session_events import Finished
from client.services.race.column import ColumnFigures
from client.services.race.race import Race, RaceEvent
from client.ui.common.async_errors import spawn
from client.ui.race.race_columns import RaceColumns

FIGURES_TICK_MS = 100

# The HUD's show_race(figures, bring_forward): as they change, and forward as a race starts.
FiguresSink = Callable[[list[ColumnFigures], bool], None]


class RaceWindow(QWidget):
    closing = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("raceWindow")
        self.setWindowTitle(self.tr("Race"))
        self.columns = RaceColumns(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.columns)
        self.stop_shortcut = QShortcut(QKeySequence("Esc"), self)
        self.resize(1100, 560)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.closing.emit()  # a race still running stops with its window
        super().closeEvent(event)


class RaceController(QObject):
    ended = Signal(object)  # the Race, when it has ended (complete, failed or stopped)

    def __init__(self, window: RaceWindow, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self.view = window.columns
        self.race: Race | None = None
        self.task: asyncio.Task[Any] | None = None
        self.figures_sink: FiguresSink | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(FIGURES_TICK_MS)
        self._timer.timeout.connect(lambda: self.refresh())
        self.view.stop_button.clicked.connect(self.stop)
        window.stop_shortcut.activated.connect(self._escape)
        self.view.close_button.clicked.connect(window.close)  # closing stops a race
        window.closing.connect(self.stop)

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self, race: Race) -> asyncio.Task[Any]:
        if self.busy:
            raise RuntimeError("a race is already running")
        self.race = race
        self.view.set_race(race.question, [c.name for c in race.columns])
        self.view.status.setText(self.tr("Racing…"))
        self.view.stop_button.setEnabled(True)
        self.window.show()
        self.window.raise_()
        self._timer.start()
        self.refresh(bring_forward=True)
        self.task = spawn(self._consume(race), name="race")
        return self.task

    def stop(self) -> bool:
        """Stop every column (True when a race ran)."""
        if not self.busy:
            return False
        assert self.task is not None
        self.task.cancel()
        return True

    def _escape(self) -> None:
        """Esc stops a race that runs, else closes the window."""
        if not self.stop():
            self.window.close()

    def refresh(self, bring_forward: bool = False) -> None:
        if self.race is None:
            return
        figures = self.race.figures()
        self.view.show_figures(figures)
        if self.figures_sink is not None:
            self.figures_sink(figures, bring_forward)

    async def _consume(self, race: Race) -> None:
        stopped = False
        try:
            async for item in race:
                self._on_event(item)
        except asyncio.CancelledError:
            stopped = True
            raise
        finally:
            self._timer.stop()
            self.view.stop_button.setEnabled(False)
            self.view.status.setText(self.tr("Stopped.") if stopped else self.tr("Finished."))
            self.refresh()
            self.ended.emit(race)

    def _on_event(self, item: RaceEvent) -> None:
        if isinstance(item.event, Finished):
            self.view.columns[item.column].ended(item.event.outcome)
            if item.event.error_message:
                self.view.columns[item.column].show_problem(item.event.error_message)
        if isinstance(item.event, Token) and item.event.kind is TokenKind.ANSWER:
            column = self.view.columns[item.column]
            first = not column.text
            column.append(item.event.text)
            if first:  # the first token's mark shows in the same frame as the token
                self.refresh()
