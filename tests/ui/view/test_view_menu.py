"""The View menu: conversations and latency panel shown or hidden, full screen, zoom on
Ctrl+plus / minus / 0, the theme; Help's shortcuts and About; the toolbar's words."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu, QToolButton

from client.ui.common import theme
from client.ui.common.reading_style import BODY_PX, STATUS_PX, reading_style
from client.ui.shell.app import TachyApp
from client.ui.shell.help_dialogs import SHORTCUTS, AboutDialog, ShortcutsDialog
from client.ui.view.view_menu import THEME_KEY, ZOOM_KEY


def _menu(app: TachyApp, name: str) -> QMenu:
    menu = app.window.menuBar().findChild(QMenu, name)
    assert menu is not None, name
    return menu


def _texts(menu: QMenu) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


def test_the_view_menu_has_its_actions_with_their_keys(
    make_app: Callable[..., TachyApp], server: Any
) -> None:
    app = make_app(server.url)
    menu = _menu(app, "viewMenu")
    assert app.window.menuBar().actions()[0] is menu.menuAction()  # View comes first
    assert _texts(menu) == [
        "Conversations",
        "Latency panel",
        "Full screen",
        "Present",
        "Zoom in",
        "Zoom out",
        "Actual size",
        "Smooth streaming",
        "Theme",
    ]
    view = app.view.menu
    keys = {a.text(): a.shortcut().toString() for a in menu.actions() if not a.isSeparator()}
    assert keys["Zoom in"] == "Ctrl++" and keys["Zoom out"] == "Ctrl+-"
    assert keys["Actual size"] == "Ctrl+0" and keys["Present"] == "F5"
    assert keys["Full screen"] == "F11"
    assert [a.text() for a in view.theme_actions.values()] == ["System theme", "Light", "Dark"]


def test_conversations_and_latency_panel_are_shown_and_hidden(
    make_app: Callable[..., TachyApp], server: Any, qtbot: Any
) -> None:
    app = make_app(server.url)
    w, view = app.window, app.view.menu
    w.resize(1400, 900)
    qtbot.waitUntil(lambda: w.hud_dock.isVisible())
    view.conversations_action.trigger()
    assert w.conversations.isHidden()
    view.conversations_action.trigger()
    assert not w.conversations.isHidden()
    view.panel_action.trigger()
    assert w.hud_dock.isHidden()
    view.panel_action.trigger()  # the only way back used to be the menu bar's context menu
    qtbot.waitUntil(lambda: w.hud_dock.isVisible())


def test_zoom_keys_change_the_chat_text_and_are_remembered(
    make_app: Callable[..., TachyApp], server: Any, qtbot: Any
) -> None:
    app = make_app(server.url)
    w, zoom = app.window, reading_style()
    before = w.chat_view.font().pixelSize()  # 15 px at 100 % (the reading style)
    control = Qt.KeyboardModifier.ControlModifier
    w.composer.setFocus()
    qtbot.keyClick(w.composer, Qt.Key.Key_Plus, control)
    assert zoom.zoom == pytest.approx(1.1)
    assert w.chat_view.font().pixelSize() == round(before * 1.1)
    qtbot.keyClick(w.composer, Qt.Key.Key_Minus, control)
    qtbot.keyClick(w.composer, Qt.Key.Key_Minus, control)
    assert zoom.zoom == pytest.approx(0.9)
    assert float(w.settings.value(ZOOM_KEY)) == pytest.approx(0.9)
    qtbot.keyClick(w.composer, Qt.Key.Key_0, control)
    assert zoom.zoom == 1.0
    assert w.chat_view.font().pixelSize() == before


def test_full_screen_goes_and_comes_back(
    make_app: Callable[..., TachyApp], server: Any, qtbot: Any
) -> None:
    app = make_app(server.url)
    action = app.view.menu.full_screen_action
    action.trigger()
    qtbot.waitUntil(app.window.isFullScreen)
    action.trigger()
    qtbot.waitUntil(lambda: not app.window.isFullScreen())
    assert not action.isChecked()


@pytest.fixture
def follower(qapp: QApplication) -> Iterator[theme.SchemeFollower]:
    """The app's scheme follower, as run_app makes it; the test's stylesheet undone."""
    made = theme.SchemeFollower(qapp)
    yield made
    made.choose("light")
    qapp.setStyleSheet("")
    theme._FOLLOWER.clear()
    made.deleteLater()


def test_the_theme_is_chosen_and_remembered(
    make_app: Callable[..., TachyApp],
    server: Any,
    follower: theme.SchemeFollower,
    qapp: QApplication,
) -> None:
    app = make_app(server.url)
    view = app.view.menu
    heard: list[bool] = []
    follower.add_listener(heard.append)
    view.theme_actions["dark"].trigger()
    assert follower.dark and heard[-1] is True
    assert qapp.styleSheet() == theme.stylesheet(dark=True)
    assert app.window.settings.value(THEME_KEY) == "dark"
    view.theme_actions["light"].trigger()
    assert not follower.dark and heard[-1] is False
    assert qapp.styleSheet() == theme.stylesheet(dark=False)
    assert view.theme() == "light"


def test_help_lists_the_keys_and_says_what_runs(
    make_app: Callable[..., TachyApp], server: Any, qtbot: Any, data_dir: Any
) -> None:
    app = make_app(server.url)
    assert _texts(_menu(app, "helpMenu"))[-2:] == ["Keyboard shortcuts", "About Tachy"]
    shortcuts = ShortcutsDialog(app.window)
    qtbot.addWidget(shortcuts)
    rows = dict(shortcuts.rows())
    assert len(rows) == len(SHORTCUTS)
    assert rows["Ctrl+K"] == "Search my documents in this conversation"
    assert rows["F5"].startswith("Present")
    about = AboutDialog(app.window)
    qtbot.addWidget(about)
    assert about.values["version"]
    assert about.values["data"] == str(data_dir)
    assert about.values["engine"]  # a version, or "not installed"


def test_the_toolbar_says_what_its_buttons_do(
    make_app: Callable[..., TachyApp], server: Any
) -> None:
    app = make_app(server.url)
    bar = app.window.server_bar
    for name, word in (
        ("addServerButton", "Add"),
        ("editServerButton", "Edit"),
        ("modelsButton", "Models"),
    ):
        button = bar.findChild(QToolButton, name)
        assert button is not None and word in button.text(), name


def test_every_view_action_works_from_the_window(
    make_app: Callable[..., TachyApp], server: Any
) -> None:
    """The keys work with the menu closed: each action is on the window too."""
    app = make_app(server.url)
    window_actions = set(app.window.actions())
    view = app.view.menu
    for action in (view.zoom_in_action, view.zoom_out_action, view.present_action):
        assert isinstance(action, QAction) and action in window_actions


def test_zoom_and_theme_are_restored_at_the_next_start(
    make_app: Callable[..., TachyApp], server: Any
) -> None:
    first = make_app(server.url)
    reading_style().set_zoom(1.3)
    first.view.menu.set_theme("dark")
    first.window.settings.sync()  # the same window.ini for the second
    zoom = reading_style()
    zoom.blockSignals(True)  # (the first window would remember it)
    zoom.set_zoom(1.0)
    zoom.blockSignals(False)
    second = make_app(server.url)
    assert zoom.zoom == pytest.approx(1.3)
    assert second.view.menu.theme() == "dark"
    assert second.view.menu.theme_actions["dark"].isChecked()
    second.view.menu.zoom_reset_action.trigger()


def test_the_composer_and_status_line_follow_the_zoom_under_the_stylesheet(
    make_app: Callable[..., TachyApp], server: Any, qapp: QApplication
) -> None:
    """Set on each widget, as the app's stylesheet keeps a parent's font from them; and
    kept when a theme switch installs another stylesheet."""
    qapp.setStyleSheet(theme.stylesheet(dark=False))
    try:
        app = make_app(server.url)
        w = app.window

        def sizes() -> tuple[int, ...]:
            document_font = w.composer.document().defaultFont()
            return (
                w.composer.fontMetrics().height(),
                document_font.pixelSize(),
                w.composer.viewport().fontMetrics().height(),  # the placeholder's
                w.stage_label.fontMetrics().height(),
                w.chat_view.fontMetrics().height(),  # these three fell back on a theme switch
                app.welcome.panel.title.fontMetrics().height(),
                app.welcome.panel.running_label.fontMetrics().height(),
                app.welcome.panel.starter_buttons[0].fontMetrics().height(),
            )

        assert w.composer.font().pixelSize() == BODY_PX == w.chat_view.font().pixelSize()
        assert w.stage_label.font().pixelSize() == STATUS_PX
        assert app.welcome.panel.running_label.font().pixelSize() == BODY_PX  # not 9 pt
        before, tall = sizes(), w.composer.maximumHeight()
        app.view.menu.zoom_in_action.trigger()
        app.view.menu.zoom_in_action.trigger()  # 125 %
        assert w.composer.font().pixelSize() == round(BODY_PX * 1.25)
        assert w.stage_label.font().pixelSize() == round(STATUS_PX * 1.25)
        after = sizes()
        assert all(a > b for a, b in zip(after, before, strict=True)), (before, after)
        assert w.composer.maximumHeight() > tall  # room for as many lines
        qapp.setStyleSheet(theme.stylesheet(dark=True))  # a theme switch keeps the size
        assert sizes() == after
        app.view.menu.zoom_reset_action.trigger()
        assert sizes() == before
    finally:
        qapp.setStyleSheet("")
