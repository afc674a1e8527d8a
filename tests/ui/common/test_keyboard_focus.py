"""Without a mouse: Tab from the composer goes round every control the main window shows
and comes back, and wherever the focus lands, its ring is drawn in the stylesheet's
focus colour (client/ui/common/colours.py and resources/style.qss)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QWidget

from client.ui.common.theme import dark_palette, stylesheet
from client.ui.shell.app import TachyApp

RINGS = {False: QColor("#1f5fbf"), True: QColor("#8ab4f8")}  # style(-dark).qss's rings
ROUNDS = 300  # Tab presses before giving up on coming back


@pytest.fixture(params=[False, True], ids=["light", "dark"])
def ring(qapp: QApplication, request: Any) -> Iterator[QColor]:
    """The window in the light or dark scheme; the focus ring's colour there."""
    sheet, palette = qapp.styleSheet(), qapp.palette()
    if request.param:
        QApplication.setPalette(dark_palette())
    qapp.setStyleSheet(stylesheet(request.param))
    yield RINGS[request.param]
    QApplication.setPalette(palette)
    qapp.setStyleSheet(sheet)


def _control(widget: QWidget) -> QWidget:
    """The control a widget is part of: a spin box's or a combo box's line edit is it."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QComboBox | QAbstractSpinBox):
            return parent
        parent = parent.parentWidget()
    return widget


def _reachable_controls(window: QWidget) -> set[QWidget]:
    """What Tab should reach: every visible, enabled control that takes Tab focus."""
    return {
        _control(widget)
        for widget in window.findChildren(QWidget)
        if widget.isVisible()
        and widget.isEnabled()
        and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        and widget.window() is window
        and widget.focusProxy() is None
    }


def _name(widget: QWidget) -> str:
    return f"{type(widget).__name__}#{widget.objectName() or widget.accessibleName()}"


def _tab_round(window: QWidget, start: QWidget, qtbot: Any) -> list[QWidget]:
    """The controls Tab visits from `start` until it is back there."""
    start.setFocus(Qt.FocusReason.TabFocusReason)
    seen: list[QWidget] = []
    for _ in range(ROUNDS):
        focused = QApplication.focusWidget()
        assert focused is not None, [_name(w) for w in seen]
        seen.append(_control(focused))
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
        if _control(QApplication.focusWidget() or window) is start:
            return seen
    names = list(dict.fromkeys(map(_name, seen)))  # each once: a trap repeats one
    raise AssertionError(f"Tab never came back to the composer; it went: {names}")


def _shows_ring(widget: QWidget, ring: QColor) -> bool:
    """The widget's left and right edges (4 px each) have pixels of the ring's colour
    along at least 8 px of their height."""
    image = widget.grab().toImage()
    width = image.width()
    edges = [*range(min(4, width)), *range(max(0, width - 4), width)]
    hits = 0
    for y in range(image.height()):
        for x in edges:
            colour = image.pixelColor(x, y)
            channels = zip(colour.getRgb()[:3], ring.getRgb()[:3], strict=True)
            hits += max(abs(shown - wanted) for shown, wanted in channels) < 24
    return hits >= min(8, image.height())


def test_tab_from_the_composer_reaches_every_control_and_shows_where_it_is(
    make_app: Callable[..., TachyApp], qtbot: Any, ring: QColor
) -> None:
    window = make_app().window
    window.resize(1400, 900)
    qtbot.waitExposed(window)
    hud = window.findChild(QWidget, "latencyHud")
    tabs = [None] if hud is None else list(range(hud.tabs.count()))  # type: ignore[attr-defined]
    for tab in tabs:  # each of the HUD's views shows other controls
        if hud is not None and tab is not None:
            hud.tabs.setCurrentIndex(tab)  # type: ignore[attr-defined]
        seen = _tab_round(window, window.composer, qtbot)
        missing = _reachable_controls(window) - set(seen)
        assert not missing, f"HUD tab {tab}: Tab never reaches {sorted(map(_name, missing))}"
        without_ring = []
        for control in dict.fromkeys(seen):
            control.setFocus(Qt.FocusReason.TabFocusReason)
            if not _shows_ring(control, ring):
                without_ring.append(_name(control))
        assert without_ring == [], f"HUD tab {tab}: no visible focus on {without_ring}"
