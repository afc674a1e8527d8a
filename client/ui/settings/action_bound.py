"""Settings controls that mirror a menu's action: a check box beside a checkable action,
a combo box beside a group of exclusive actions. The action stays the one place that
acts: the control triggers it, and follows it when the menu changes it."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QComboBox, QWidget


def bound_check(action: QAction, text: str, parent: QWidget) -> QCheckBox:
    box = QCheckBox(text, parent)
    box.setChecked(action.isChecked())
    box.setEnabled(action.isEnabled())

    def follow() -> None:
        box.blockSignals(True)
        box.setChecked(action.isChecked())
        box.setEnabled(action.isEnabled())
        box.blockSignals(False)

    def act(on: bool) -> None:
        if action.isChecked() != on:
            action.trigger()  # as if chosen in the menu
        follow()  # the action may refuse (a cascade without its two models)

    action.changed.connect(follow)
    action.toggled.connect(lambda _on: follow())
    box.toggled.connect(act)
    return box


def bound_choice(actions: Sequence[QAction], parent: QWidget, label: str = "") -> QComboBox:
    """One item per exclusive action (its text, less the row's `label` where the text
    starts with it: "Prompt budget: 8,000 tokens" under "Prompt budget" reads "8,000
    tokens"), the checked one current."""
    combo = QComboBox(parent)
    for action in actions:
        combo.addItem(_without(action.text().replace("&", ""), label))

    def follow() -> None:
        combo.blockSignals(True)
        for index, action in enumerate(actions):
            if action.isChecked():
                combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def act(index: int) -> None:
        if 0 <= index < len(actions) and not actions[index].isChecked():
            actions[index].trigger()
        follow()

    for action in actions:
        action.toggled.connect(lambda _on: follow())
    combo.currentIndexChanged.connect(act)
    follow()
    return combo


def _without(text: str, label: str) -> str:
    rest = text[len(label) :].lstrip(" :\uff1a") if label and text.startswith(label) else ""
    return rest or text
