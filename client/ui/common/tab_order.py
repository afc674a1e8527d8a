"""Tab order for widgets added after the window was built: Qt appends a new widget's
controls to the end of the focus chain, wherever the layout puts them on screen."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget


def tab_before(controls: Sequence[QWidget], anchor: QWidget) -> None:
    """Put `controls`, in that order, right before `anchor` in the Tab order."""
    before = _focusable_before(anchor)
    chain: list[QWidget] = [before, *controls, anchor] if before else [*controls, anchor]
    for first, second in itertools.pairwise(chain):
        QWidget.setTabOrder(first, second)


def _focusable_before(anchor: QWidget) -> QWidget | None:
    """The control Tab reaches just before `anchor` (None when it is alone)."""
    before = anchor.previousInFocusChain()
    while before is not None and before is not anchor:
        if before.focusPolicy() & Qt.FocusPolicy.TabFocus:
            return before
        before = before.previousInFocusChain()
    return None
