"""A non-modal bar of choices under the chat: what the user can do next.

It is used for outcomes (Continue, Retry, Edit question ...), for a slow start
(Keep waiting / Cancel) and for Undo after a delete. It never blocks the loop.
A choice hides the bar; the keyboard focus goes back to its `focus_home` (the
composer), not to whatever widget Qt would pick next (the Search box).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

if TYPE_CHECKING:  # services.outcomes (and core.metrics) load after the first paint
    from client.services.chat.session_events import NextStep

# Keyed by NextStep's values (a NextStep is its value: a StrEnum). Translated where
# shown (ActionBar.tr); QT_TRANSLATE_NOOP marks them for lupdate.
STEP_LABELS = {
    "continue": QT_TRANSLATE_NOOP("ActionBar", "Continue"),
    "continue_other": QT_TRANSLATE_NOOP("ActionBar", "Continue with the other model"),
    "retry": QT_TRANSLATE_NOOP("ActionBar", "Retry"),
    "edit_question": QT_TRANSLATE_NOOP("ActionBar", "Edit question"),
    "choose_server": QT_TRANSLATE_NOOP("ActionBar", "Choose another server"),
    "use_local": QT_TRANSLATE_NOOP("ActionBar", "Use the local model"),
    "keep_waiting": QT_TRANSLATE_NOOP("ActionBar", "Keep waiting"),
    "cancel": QT_TRANSLATE_NOOP("ActionBar", "Cancel"),
}


class ActionBar(QFrame):
    chosen = Signal(str)  # the action's name (a NextStep value, or "undo")

    def __init__(self, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setAccessibleName(object_name)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(8, 4, 8, 4)
        self.message_label = QLabel(self)
        self.message_label.setWordWrap(True)
        self.message_label.setObjectName(f"{object_name}Message")
        self._layout.addWidget(self.message_label, 1)
        self.buttons: dict[str, QPushButton] = {}
        self.focus_home: QWidget | None = None  # where typing goes after a choice
        self.hide()

    def show_choices(self, message: str, actions: Sequence[tuple[str, str]]) -> None:
        """actions: (name, label) pairs, shown as buttons in that order."""
        for button in self.buttons.values():
            self._layout.removeWidget(button)
            button.deleteLater()
        self.buttons = {}
        self.message_label.setText(message)
        for name, label in actions:
            button = QPushButton(label, self)
            button.setObjectName(f"{name}Button")
            button.setAccessibleName(label)
            button.clicked.connect(lambda _=False, n=name: self._choose(n))
            self._layout.addWidget(button)
            self.buttons[name] = button
        self.show()

    def show_steps(self, message: str, steps: Sequence[NextStep]) -> None:
        self.show_choices(message, [(step.value, self.tr(STEP_LABELS[step])) for step in steps])

    def button(self, name: str) -> QPushButton:
        return self.buttons[name]

    def clear(self) -> None:
        self.show_choices("", [])
        self.hide()

    def _choose(self, name: str) -> None:
        if self.focus_home is not None:
            self.focus_home.setFocus()  # before hiding: the clicked button has it
        self.hide()
        self.chosen.emit(name)
