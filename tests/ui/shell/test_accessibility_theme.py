"""Without a mouse and in the dark: every control has a name a screen reader says, Tab
walks the window in reading order, and the window (plots included) follows the
system's light or dark scheme."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QTabBar,
    QWidget,
)

from client.ui.common.theme import SchemeFollower, dark_palette, is_dark, stylesheet
from client.ui.hud import LatencyHud
from client.ui.hud.plots.plot_theme import plot_colours
from client.ui.shell.app import TachyApp

READING_ORDER = [
    "searchBox",
    "newButton",
    "conversationList",
    "serverPicker",
    "modelPicker",
    "addServerButton",
    "chatView",
    "composer",
    "sendButton",
]


def _part_of_another_control(widget: QWidget) -> bool:
    """The line edit inside a spin box, a combo box's list, a scroll area's viewport:
    the screen reader names the control they belong to."""
    parent = widget.parentWidget()
    if isinstance(parent, QAbstractScrollArea) and widget is parent.viewport():
        return True
    while parent is not None:
        if isinstance(parent, QComboBox | QAbstractSpinBox | QTabBar):
            return True
        parent = parent.parentWidget()
    return False


def test_every_control_has_a_name_a_screen_reader_says(make_app: Callable[..., TachyApp]) -> None:
    window = make_app().window
    unnamed = []
    controls = [
        widget
        for widget in window.findChildren(QWidget)
        if widget.focusPolicy() & Qt.FocusPolicy.TabFocus and not _part_of_another_control(widget)
    ]
    assert len(controls) > 20  # the chat, the pickers, the HUD's views and fields
    for widget in controls:
        interface = QAccessible.queryAccessibleInterface(widget)
        name = interface.text(QAccessible.Text.Name) if interface else ""
        if not name.strip():
            unnamed.append(f"{type(widget).__name__} in {type(widget.parentWidget()).__name__}")
    assert unnamed == []


def test_tab_walks_the_window_in_reading_order(
    make_app: Callable[..., TachyApp], qtbot: Any
) -> None:
    window = make_app().window
    window.conversations.search_box.setFocus()
    seen: list[str] = []
    for _ in range(60):
        focused = QApplication.focusWidget()
        assert focused is not None
        seen.append(focused.objectName())
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
        if seen.count("searchBox") == 2:
            break  # round the window and back to the start
    assert seen.count("searchBox") == 2, seen
    reached = [name for name in seen if name in READING_ORDER]
    assert reached[: len(READING_ORDER)] == READING_ORDER
    if "welcomeConnect" in seen:  # the welcome panel, shown above the chat: Tab there
        at = seen.index("welcomeConnect")
        assert seen.index("addServerButton") < at < seen.index("chatView"), seen
    window.composer.setFocus()
    qtbot.keyClick(window.composer, Qt.Key.Key_Tab)  # Tab leaves the composer (no tab char)
    assert QApplication.focusWidget() is window.send_button
    assert window.composer.toPlainText() == ""


@pytest.fixture
def restore_look(qapp: QApplication) -> Iterator[None]:
    palette, sheet = qapp.palette(), qapp.styleSheet()
    yield
    QApplication.setPalette(palette)
    qapp.setStyleSheet(sheet)


def _background(widget: Any) -> str:
    return widget.backgroundBrush().color().name()


def test_the_hud_plots_use_the_window_colours_not_black(qtbot: Any) -> None:
    hud = LatencyHud()
    qtbot.addWidget(hud)
    background, _ = plot_colours(hud.palette())
    assert background != "#000000"
    assert {_background(plot) for plot in hud.plots()} == {background}
    axis = hud.requests.plot.getPlotItem().getAxis("left")
    assert axis.pen().color().name() == hud.palette().color(QPalette.ColorRole.Text).name()


def test_a_dark_system_scheme_darkens_the_window_and_the_plots(
    qapp: QApplication, qtbot: Any, restore_look: None
) -> None:
    hud = LatencyHud()
    qtbot.addWidget(hud)
    follower = SchemeFollower(qapp)
    heard: list[bool] = []
    follower.add_listener(heard.append)
    assert heard == [False] and "style-dark" not in qapp.styleSheet()
    # The offscreen platform has no system scheme to flip: a dark palette is what Qt
    # installs when the system turns dark, then it says colorSchemeChanged.
    QApplication.setPalette(dark_palette())
    qapp.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    qapp.processEvents()  # Qt posts the palette change to each widget
    assert is_dark() and heard == [False, True]
    assert qapp.styleSheet() == stylesheet(True) != stylesheet(False)
    dark_base = dark_palette().color(QPalette.ColorRole.Base).name()
    assert {_background(plot) for plot in hud.plots()} == {dark_base}
    QApplication.setPalette(QApplication.style().standardPalette())
    qapp.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Light)
    qapp.processEvents()
    assert heard[-1] is False and qapp.styleSheet() == stylesheet(False)
    assert _background(hud.requests.plot) != dark_base


def test_a_dark_scheme_with_a_light_style_gets_a_dark_palette(
    qapp: QApplication, restore_look: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    follower = SchemeFollower(qapp)
    monkeypatch.setattr("client.ui.common.theme.is_dark", lambda palette=None: True)
    follower._changed(Qt.ColorScheme.Dark)  # Fusion keeps its light palette here
    assert QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128
    monkeypatch.setattr("client.ui.common.theme.is_dark", lambda palette=None: False)
    follower._changed(Qt.ColorScheme.Light)
    assert QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() >= 128


def test_plot_items_of_a_layout_get_the_colours_too(qtbot: Any) -> None:
    hud = LatencyHud()
    qtbot.addWidget(hud)
    items = [i for i in hud.live.graphs.ci.items if isinstance(i, pg.PlotItem)]
    assert len(items) == 2
    text = hud.palette().color(QPalette.ColorRole.Text).name()
    assert all(i.getAxis("bottom").textPen().color().name() == text for i in items)
