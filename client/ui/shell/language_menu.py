"""The Language menu: the system's language, or one Tachy ships, remembered in QSettings.

The choice takes effect at the next start (the window's texts are set once when its
widgets are built); the status line says so.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QLabel, QMenuBar

from client.ui.shell.translations import LANGUAGE_KEY, available_languages


class LanguageMenu(QObject):
    def __init__(self, menu_bar: QMenuBar, settings: QSettings, status: QLabel) -> None:
        super().__init__(menu_bar)
        self.settings, self.status = settings, status
        self.menu = menu = menu_bar.addMenu(self.tr("&Language"))
        menu.setObjectName("languageMenu")
        self.group = QActionGroup(menu)
        stored = settings.value(LANGUAGE_KEY)
        current = stored if isinstance(stored, str) else ""
        choices = {"": self.tr("System language"), **available_languages()}
        self.actions: dict[str, QAction] = {}
        for code, name in choices.items():
            action = QAction(name, menu, checkable=True)
            action.setObjectName(f"language-{code or 'system'}")
            action.setChecked(code == current)
            action.triggered.connect(lambda _=False, c=code: self.choose(c))
            self.group.addAction(action)
            menu.addAction(action)
            self.actions[code] = action

    def choose(self, code: str) -> None:
        self.settings.setValue(LANGUAGE_KEY, code)
        self.settings.sync()
        self.status.setText(self.tr("The new language is used from the next start of Tachy."))
