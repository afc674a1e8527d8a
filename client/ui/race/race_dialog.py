"""The Race dialog: the question and 2-4 routes to race it on, each a saved server, a
model and how it runs (the saved cascade, speculative decoding, keep-alive, knowledge).
It only collects the picks; client/services/race/race_routes.py turns them into routes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from client.services.race.race import MAX_ROUTES, MIN_ROUTES
from client.services.race.race_routes import RoutePick
from client.services.servers.servers import ServerChoice
from client.ui.common.async_errors import KeptTasks

ModelsOf = Callable[[ServerChoice], Awaitable[list[str]]]


class RouteRow:
    """One route's widgets, laid out on one row of the dialog's grid."""

    def __init__(
        self, parent: QWidget, choices: Sequence[ServerChoice], words: tuple[str, str, str, str]
    ) -> None:
        self.choices = list(choices)
        self.server = QComboBox(parent)
        self.server.addItems([choice.name for choice in self.choices])
        self.model = QComboBox(parent)
        self.model.setEditable(True)
        self.model.setMinimumContentsLength(16)
        cascade, speculation, knowledge, keep_alive = words
        self.cascade = QCheckBox(cascade, parent)
        self.speculation = QCheckBox(speculation, parent)
        self.knowledge = QCheckBox(knowledge, parent)
        self.keep_alive = QLineEdit(parent)
        self.keep_alive.setPlaceholderText(keep_alive)
        self.widgets: list[QWidget] = [
            self.server,
            self.model,
            self.cascade,
            self.speculation,
            self.knowledge,
            self.keep_alive,
        ]

    @property
    def choice(self) -> ServerChoice | None:
        index = self.server.currentIndex()
        return self.choices[index] if 0 <= index < len(self.choices) else None

    def pick(self) -> RoutePick | None:
        choice = self.choice
        if choice is None:
            return None
        return RoutePick(
            choice,
            self.model.currentText().strip(),
            cascade=self.cascade.isChecked(),
            speculation=self.speculation.isChecked() and choice.is_local,
            knowledge=self.knowledge.isChecked(),
            keep_alive=self.keep_alive.text().strip() or None,
        )


class RaceDialog(QDialog):
    def __init__(
        self,
        choices: Sequence[ServerChoice],
        models_of: ModelsOf,
        question: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("raceDialog")
        self.setWindowTitle(self.tr("Race"))
        self.choices = list(choices)
        self.models_of = models_of
        self.tasks = KeptTasks()
        self.question = QLineEdit(question, self)
        self.question.setPlaceholderText(self.tr("The question every route answers"))
        self.question.setAccessibleName(self.tr("Question"))
        self.grid = QGridLayout()
        headings = (self.tr("Server"), self.tr("Model"), "", "", "", self.tr("Keep-alive"))
        for column, heading in enumerate(headings):
            self.grid.addWidget(QLabel(heading, self), 0, column)
        self.rows: list[RouteRow] = []
        self.add_button = QPushButton(self.tr("Add a route"), self)
        self.remove_button = QPushButton(self.tr("Remove the last route"), self)
        self.add_button.clicked.connect(self.add_row)
        self.remove_button.clicked.connect(self.remove_row)
        buttons = QDialogButtonBox(self)
        accept = QDialogButtonBox.ButtonRole.AcceptRole
        self.race_button = buttons.addButton(self.tr("Race"), accept)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        more = QHBoxLayout()
        more.addWidget(self.add_button)
        more.addWidget(self.remove_button)
        more.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Question"), self))
        layout.addWidget(self.question)
        layout.addLayout(self.grid)
        layout.addLayout(more)
        layout.addWidget(buttons)
        for index in range(MIN_ROUTES):
            self.add_row(index)
        self.question.textChanged.connect(self._update_buttons)
        self._update_buttons()

    def add_row(self, preferred: int | bool = False) -> None:
        if len(self.rows) >= MAX_ROUTES:
            return
        words = (
            self.tr("Cascade"),
            self.tr("Speculation"),
            self.tr("Knowledge"),
            self.tr("e.g. 10m"),
        )
        row = RouteRow(self, self.choices, words)
        number = len(self.rows) + 1
        for column, widget in enumerate(row.widgets):
            self.grid.addWidget(widget, number, column)
        self.rows.append(row)
        start = int(preferred) if not isinstance(preferred, bool) else len(self.rows) - 1
        row.server.currentIndexChanged.connect(lambda _=0, r=row: self._server_changed(r))
        if self.choices:
            row.server.setCurrentIndex(min(start, len(self.choices) - 1))
            self._server_changed(row)
        self._update_buttons()

    def remove_row(self) -> None:
        if len(self.rows) <= MIN_ROUTES:
            return
        row = self.rows.pop()
        for widget in row.widgets:
            self.grid.removeWidget(widget)
            widget.deleteLater()
        self._update_buttons()

    def picks(self) -> list[RoutePick]:
        return [pick for row in self.rows if (pick := row.pick()) is not None]

    def question_text(self) -> str:
        return self.question.text().strip()

    def _update_buttons(self) -> None:
        self.add_button.setEnabled(len(self.rows) < MAX_ROUTES)
        self.remove_button.setEnabled(len(self.rows) > MIN_ROUTES)
        ready = bool(self.question_text()) and len(self.picks()) >= MIN_ROUTES
        self.race_button.setEnabled(ready)

    def _server_changed(self, row: RouteRow) -> None:
        choice = row.choice
        row.speculation.setEnabled(choice is not None and choice.is_local)
        if choice is not None:
            self.tasks.spawn(self._fill_models(row, choice), "list the server's models")

    async def _fill_models(self, row: RouteRow, choice: ServerChoice) -> None:
        models = await self.models_of(choice)
        if row.choice != choice or row not in self.rows:
            return  # another server was picked meanwhile
        typed = row.model.currentText()
        row.model.clear()
        row.model.addItems(models)
        if typed in models:
            row.model.setCurrentText(typed)
