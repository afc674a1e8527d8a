"""Light or dark, as the system says (QStyleHints.colorScheme), and what follows it:
the stylesheet's colours, the HUD's plots (client.ui.hud.plots.plot_theme) and the code
colours of answers (client.ui.chat.render.markdown.code_highlight).

Qt itself switches the palette of the platform style when the system scheme changes;
this module re-applies Tachy's stylesheet for the new scheme and tells the listeners.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from client.ui.common.colours import readable_palette
from client.ui.common.resources import resource

SchemeListener = Callable[[bool], None]  # called with dark: bool
THEMES = ("system", "light", "dark")  # View > Theme: the system's scheme, or one kept
THEME_KEY = "view/theme"  # (QSettings)
_FOLLOWER: list[SchemeFollower] = []  # the app's one follower, when run_app made it


def chosen_theme(settings: QSettings) -> str:
    """The theme chosen in View > Theme ("system" until one is): read before the first
    paint, so here and not with the View menu (its actions' modules, ~1 ms)."""
    stored = settings.value(THEME_KEY, "system")
    return stored if isinstance(stored, str) and stored in THEMES else "system"


def is_dark(palette: QPalette | None = None) -> bool:
    """Dark when the system says so, else when the window's background is dark (a
    platform that reports no scheme, or a dark palette set by hand)."""
    app = QGuiApplication.instance()
    if palette is None and isinstance(app, QGuiApplication):
        scheme = app.styleHints().colorScheme()
        if scheme is not Qt.ColorScheme.Unknown:
            return scheme is Qt.ColorScheme.Dark
    palette = palette or QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def stylesheet(dark: bool, folder: Path | None = None) -> str:
    """style.qss, then style-dark.qss over it in the dark."""
    folder = folder or resource("")
    text = (folder / "style.qss").read_text(encoding="utf-8")
    if dark and (folder / "style-dark.qss").exists():
        text += "\n" + (folder / "style-dark.qss").read_text(encoding="utf-8")
    return text


class SchemeFollower(QObject):
    """Keeps the app's stylesheet and the listeners in step with the system scheme."""

    def __init__(self, app: QGuiApplication) -> None:
        super().__init__(app)
        self.app = app
        self.listeners: list[SchemeListener] = []
        self.theme = "system"
        self.dark = is_dark()
        self._own_palette = False
        app.styleHints().colorSchemeChanged.connect(self._changed)
        self.apply()
        _FOLLOWER[:] = [self]

    def add_listener(self, listener: SchemeListener) -> None:
        self.listeners.append(listener)
        listener(self.dark)

    def choose(self, theme: str) -> None:
        """ "light" or "dark" whatever the system says; "system" follows it again."""
        theme = theme if theme in THEMES else "system"
        if theme == self.theme == "system":
            return  # (at start: nothing to change)
        self.theme = theme
        schemes = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}
        self.app.styleHints().setColorScheme(schemes.get(self.theme, Qt.ColorScheme.Unknown))
        self._changed(Qt.ColorScheme.Unknown)

    def _changed(self, _scheme: Qt.ColorScheme) -> None:
        chosen = {"light": False, "dark": True}.get(self.theme)
        self.dark = is_dark() if chosen is None else chosen
        self.apply()
        for listener in self.listeners:
            listener(self.dark)

    def apply(self) -> None:
        if not isinstance(self.app, QApplication):  # a stylesheet needs the widgets module
            return
        self._match_palette()
        fixed = readable_palette(QGuiApplication.palette())
        if fixed is not None:  # e.g. Fusion's light placeholder and selection
            QApplication.setPalette(fixed)
        self.app.setStyleSheet(stylesheet(self.dark))

    def _match_palette(self) -> None:
        """A style that keeps its light palette under a dark system scheme (Fusion
        where Qt has no platform theme) gets a dark one; it is undone when light."""
        light = QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() >= 128
        if self.dark and light:
            QApplication.setPalette(dark_palette())
            self._own_palette = True
        elif not self.dark and self._own_palette:
            QApplication.setPalette(QApplication.style().standardPalette())
            self._own_palette = False


def scheme_follower() -> SchemeFollower | None:
    """The follower run_app made (None in tests that made none)."""
    return _FOLLOWER[0] if _FOLLOWER else None


def dark_palette() -> QPalette:
    palette = QPalette()
    roles = QPalette.ColorRole
    for role, colour in (
        (roles.Window, "#2b2d31"),
        (roles.WindowText, "#e6e6e6"),
        (roles.Base, "#1e2126"),
        (roles.AlternateBase, "#2b2d31"),
        (roles.Text, "#e6e6e6"),
        (roles.Button, "#35383d"),
        (roles.ButtonText, "#e6e6e6"),
        (roles.Highlight, "#3b6fb6"),
        (roles.HighlightedText, "#ffffff"),
        (roles.ToolTipBase, "#35383d"),
        (roles.ToolTipText, "#e6e6e6"),
        (roles.PlaceholderText, "#8a9099"),
        (roles.Link, "#7aa7e6"),
    ):
        palette.setColor(role, QColor(colour))
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7f87"))
    return palette
