"""The View menu: the conversations and the latency panel shown or hidden, full screen,
zoom in / out / reset, Smooth streaming, the theme (system, light, dark) and Present.
Zoom, theme and Smooth streaming are remembered in the window's QSettings (zoom and theme
are needed before the first paint, like the language).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.reading_style import ReadingStyle
from client.ui.common.shortcuts import key_of, sequences
from client.ui.common.theme import THEME_KEY, THEMES, chosen_theme, scheme_follower

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget, QWidget

    from client.ui.chat.chat_window import ChatWindow

ZOOM_KEY = "view/zoom"
SMOOTH_KEY = "view/smooth_streaming"
THEME_NAMES = {
    "system": QT_TRANSLATE_NOOP("ViewMenu", "System theme"),
    "light": QT_TRANSLATE_NOOP("ViewMenu", "Light"),
    "dark": QT_TRANSLATE_NOOP("ViewMenu", "Dark"),
}


def smooth_streaming(settings: QSettings) -> bool:
    """Whether View > Smooth streaming is on (off until it is switched on)."""
    return str(settings.value(SMOOTH_KEY, "false")).lower() in ("true", "1")


class ViewMenu(QObject):
    def __init__(
        self, window: ChatWindow, conversations: QWidget, panel: QDockWidget, zoom: ReadingStyle
    ) -> None:
        """conversations: the window's list of them; panel: the latency panel's dock."""
        super().__init__(window)
        self.window, self.settings, self.zoom = window, window.settings, zoom
        bar = window.menuBar()
        self.menu = QMenu(self.tr("&View"), bar)
        self.menu.setObjectName("viewMenu")
        first = bar.actions()[0] if bar.actions() else None
        bar.insertMenu(first, self.menu) if first is not None else bar.addMenu(self.menu)
        self.conversations_action = self._check(
            self.tr("Conversations"), key_of("conversations"), not conversations.isHidden()
        )
        self.conversations_action.toggled.connect(conversations.setVisible)
        self.panel_action = panel.toggleViewAction()
        self.panel_action.setText(self.tr("Latency panel"))
        self.panel_action.setShortcut(QKeySequence(key_of("latency_panel")))
        self.menu.addAction(self.panel_action)
        self.menu.addSeparator()
        self.full_screen_action = self._check(self.tr("Full screen"), key_of("full_screen"), False)
        self.full_screen_action.toggled.connect(self.set_full_screen)
        self.present_action = self._action(self.tr("Present"), key_of("present"))
        self.menu.addSeparator()
        self.zoom_in_action = self._action(self.tr("Zoom in"), key_of("zoom_in"))
        self.zoom_in_action.setShortcuts(sequences("zoom_in"))
        self.zoom_in_action.triggered.connect(self.zoom_in)
        self.zoom_out_action = self._action(self.tr("Zoom out"), key_of("zoom_out"))
        self.zoom_out_action.triggered.connect(self.zoom_out)
        self.zoom_reset_action = self._action(self.tr("Actual size"), key_of("zoom_reset"))
        self.zoom_reset_action.triggered.connect(lambda: self.zoom.set_zoom(1.0))
        self.smooth_action = self._check(
            self.tr("Smooth streaming"), "", smooth_streaming(window.settings)
        )
        self.smooth_action.setToolTip(
            self.tr("Show an answer's words at a steady pace, at most a second behind")
        )
        self.smooth_action.toggled.connect(self._set_smooth)
        self.menu.addSeparator()
        self.theme_actions = self._theme_menu()
        zoom.zoom_changed.connect(self._remember_zoom)
        window.installEventFilter(self)  # full screen left by the window manager

    def _action(self, text: str, keys: str) -> QAction:
        action = QAction(text, self.menu)
        action.setShortcut(QKeySequence(keys))
        self.window.addAction(action)  # the shortcut works with the menu closed
        self.menu.addAction(action)
        return action

    def _check(self, text: str, keys: str, checked: bool) -> QAction:
        action = self._action(text, keys)
        action.setCheckable(True)
        action.setChecked(checked)
        return action

    def _theme_menu(self) -> dict[str, QAction]:
        sub = self.menu.addMenu(self.tr("Theme"))
        sub.setObjectName("themeMenu")
        group = QActionGroup(sub)
        actions = {}
        for theme in THEMES:
            action = QAction(self.tr(THEME_NAMES[theme]), sub)
            action.setCheckable(True)
            action.setObjectName(f"theme-{theme}")
            action.triggered.connect(lambda _=False, t=theme: self.set_theme(t))
            group.addAction(action)
            sub.addAction(action)
            actions[theme] = action
        actions[self.theme()].setChecked(True)
        return actions

    # --- what the menu and the Settings window set ---------------------------------
    def restore(self) -> None:
        """The remembered zoom, theme and Smooth streaming (at start)."""
        self.window.chat_view.pacing.enabled = self.smooth_action.isChecked()
        stored = self.settings.value(ZOOM_KEY, 1.0)
        try:
            self.zoom.set_zoom(float(str(stored)))
        except ValueError:
            self.zoom.set_zoom(1.0)
        self.set_theme(self.theme())

    def theme(self) -> str:
        return chosen_theme(self.settings)

    def set_theme(self, theme: str) -> None:
        theme = theme if theme in THEMES else "system"
        self.settings.setValue(THEME_KEY, theme)
        self.theme_actions[theme].setChecked(True)
        follower = scheme_follower()
        if follower is not None:
            follower.choose(theme)

    def zoom_in(self) -> None:
        self.zoom.zoom_in()

    def zoom_out(self) -> None:
        self.zoom.zoom_out()

    def set_full_screen(self, on: bool) -> None:
        if on and not self.window.isFullScreen():
            self.window.showFullScreen()
        elif not on and self.window.isFullScreen():
            self.window.showNormal()

    def _set_smooth(self, on: bool) -> None:
        """The chat view paces answers from the next one (client/ui/chat/paced_text.py)."""
        self.settings.setValue(SMOOTH_KEY, on)
        self.window.chat_view.pacing.enabled = on

    def _remember_zoom(self, factor: float) -> None:
        self.settings.setValue(ZOOM_KEY, factor)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.WindowStateChange:
            self.full_screen_action.blockSignals(True)
            self.full_screen_action.setChecked(self.window.isFullScreen())
            self.full_screen_action.blockSignals(False)
        return False
