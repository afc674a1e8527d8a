"""The race's columns: one per route, side by side, each its answer as it streams (plain
text: model output is never read as HTML) with its figures and marks underneath."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from client.services.chat.session_events import Outcome
from client.services.race.column import ColumnFigures
from client.ui.common.error_text import error_text
from client.ui.common.reading_style import STATUS_PX, TextSizeFollower
from client.ui.hud.tabs.race_view import figures_line


class RaceColumnView(QFrame):
    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("raceColumn")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = _label(name, self)
        font = QFont(self.title.font())
        font.setBold(True)
        self.title.setFont(font)
        self.marks = _label("", self)
        self.marks.setObjectName("raceMarks")
        self.marks.setMinimumHeight(self.marks.fontMetrics().height())  # columns stay aligned
        self.answer = QPlainTextEdit(self)
        self.answer.setReadOnly(True)
        self.answer.setAccessibleName(self.tr("Answer of {route}").format(route=name))
        self.answer.setPlaceholderText(self.tr("Waiting for the first token…"))
        TextSizeFollower(self.answer)  # the chat's body size, following its zoom
        TextSizeFollower(self.answer.viewport())  # where the placeholder is painted
        self.figures = _label("", self)
        self.figures.setObjectName("raceFigures")
        self.problem = _label("", self)  # why the column failed, in the window's language
        self.problem.setObjectName("raceProblem")
        self.problem.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.marks)
        layout.addWidget(self.answer, 1)
        layout.addWidget(self.problem)
        layout.addWidget(self.figures)

    def append(self, text: str) -> None:
        cursor = self.answer.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)  # plain text, never markup

    @property
    def text(self) -> str:
        return self.answer.toPlainText()

    def ended(self, outcome: Outcome) -> None:
        """The column ended: an empty answer no longer says it waits for a token."""
        if outcome is Outcome.COMPLETE:
            empty = self.tr("The model answered with no text.")
        elif outcome is Outcome.STOPPED:
            empty = self.tr("Stopped before the first token.")
        else:
            empty = self.tr("No answer: the reason is below.")
        self.answer.setPlaceholderText(empty)

    def show_problem(self, sentence: str) -> None:
        """The server's or the connection's failure, under what arrived before it."""
        self.problem.setText(error_text(sentence))
        self.problem.setVisible(bool(sentence))

    def show_figures(self, figures: ColumnFigures) -> None:
        self.figures.setText(figures_line(figures))
        marks = []
        if figures.first_token:
            marks.append(self.tr("⚡ first token"))
        if figures.first_finish:
            marks.append(self.tr("🏁 first to finish"))
        self.marks.setText("   ".join(marks))


class RaceColumns(QWidget):
    """The question on top, the columns in a row, and Stop (stops them all)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.question = _label("", self)
        self.question.setObjectName("raceQuestion")
        self.status = _label("", self)
        self.status.setObjectName("raceStatus")
        self.stop_button = QPushButton(self.tr("Stop"), self)
        self.stop_button.setObjectName("raceStop")
        self.stop_button.setToolTip(self.tr("Stop every column (Esc)"))
        self.stop_button.setEnabled(False)
        self.close_button = QPushButton(self.tr("Close"), self)
        self.close_button.setObjectName("raceClose")
        self.close_button.setToolTip(self.tr("Close the race (Esc once it has ended)"))
        self.row = QHBoxLayout()
        self.columns: list[RaceColumnView] = []
        top = QHBoxLayout()
        top.addWidget(self.question, 1)
        top.addWidget(self.stop_button)
        top.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addLayout(self.row, 1)

    def set_race(self, question: str, names: Sequence[str]) -> None:
        for column in self.columns:
            self.row.removeWidget(column)
            column.deleteLater()
        self.question.setText(question)
        self.columns = [RaceColumnView(name, self) for name in names]
        for column in self.columns:
            self.row.addWidget(column, 1)

    def show_figures(self, figures: Sequence[ColumnFigures]) -> None:
        for column, shown in zip(self.columns, figures, strict=False):
            column.show_figures(shown)


def _label(text: str, parent: QWidget, px_at_100: int = STATUS_PX) -> QLabel:
    label = QLabel(text, parent)
    TextSizeFollower(label, px_at_100)  # as the chat's status line, following its zoom
    label.setTextFormat(Qt.TextFormat.PlainText)  # route and model names are not markup
    label.setWordWrap(True)
    return label
