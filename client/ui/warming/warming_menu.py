"""The server bar's keep-alive and prompt-budget menu (client/ui/warming/warming_controller.py
builds it; its strings are translated in WarmingController's context)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

Value = TypeVar("Value")

KEEP_ALIVE_CHOICES: tuple[tuple[str, str | None], ...] = (  # shown through WarmingController.tr
    (QT_TRANSLATE_NOOP("WarmingController", "Keep the model loaded 5 min"), "5m"),
    (QT_TRANSLATE_NOOP("WarmingController", "Keep the model loaded 30 min"), "30m"),
    (QT_TRANSLATE_NOOP("WarmingController", "Keep the model loaded 1 h"), "1h"),
    (QT_TRANSLATE_NOOP("WarmingController", "Let the server unload it"), None),
)
BUDGET_CHOICES: tuple[tuple[str, int | None], ...] = (
    (QT_TRANSLATE_NOOP("WarmingController", "Prompt budget: the model's context"), None),
    (QT_TRANSLATE_NOOP("WarmingController", "Prompt budget: 8,000 tokens"), 8000),
    (QT_TRANSLATE_NOOP("WarmingController", "Prompt budget: 4,000 tokens"), 4000),
    (QT_TRANSLATE_NOOP("WarmingController", "Prompt budget: 2,000 tokens"), 2000),
)


def add_choices(
    menu: QMenu,
    tr: Callable[[str], str],
    choices: tuple[tuple[str, Value], ...],
    current: Value,
    chosen: Callable[[Value], None],
) -> list[QAction]:
    """One checkable action per choice, exclusive, the current one checked."""
    group = QActionGroup(menu)
    actions = []
    for text, value in choices:
        action = QAction(tr(text), menu)
        action.setCheckable(True)
        action.setChecked(value == current)
        action.triggered.connect(lambda _=False, v=value: chosen(v))
        group.addAction(action)
        menu.addAction(action)
        actions.append(action)
    return actions
