"""The Settings menu: one item per page of the Settings window, so every setting is
two clicks away (the menu, then its page)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtGui import QAction, QKeySequence

from client.ui.common.shortcuts import key_of
from client.ui.settings.settings_window import PAGES, Appearance, SettingsSources, SettingsWindow
from client.ui.tools.tools_controller import ToolsController
from client.ui.tools.tools_window import ToolsWindow

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow


class SettingsMenu(QObject):
    def __init__(
        self, window: QMainWindow, sources: SettingsSources, appearance: Appearance
    ) -> None:
        super().__init__(window)
        self.main, self.sources, self.appearance = window, sources, appearance
        bar = window.menuBar()
        self.menu = bar.addMenu(self.tr("&Settings"))
        self.menu.setObjectName("settingsMenu")
        self.page_actions: list[QAction] = []
        for index, title in enumerate(PAGES):
            name = QCoreApplication.translate("SettingsWindow", title)
            action = self.menu.addAction(self.tr("{page}…").format(page=name))
            action.setObjectName(f"settingsPage{index}")
            action.triggered.connect(lambda _=False, i=index: self.open(i))
            self.page_actions.append(action)
        self.tools_action = self.menu.addAction(self.tr("Tools (MCP servers)…"))
        self.tools_action.setObjectName("toolsSettings")
        self.tools_action.triggered.connect(self.open_tools)
        self.tools: ToolsController | None = None
        self.menu.addSeparator()
        self.all_action = self.menu.addAction(self.tr("All settings…"))
        self.all_action.setShortcut(QKeySequence(key_of("settings")))
        window.addAction(self.all_action)
        self.all_action.triggered.connect(lambda: self.open(None))
        self.window: SettingsWindow | None = None

    def open(self, page: int | None) -> SettingsWindow:
        if self.window is None:
            self.window = SettingsWindow(self.main, self.sources, self.appearance)
        index = page if page is not None else self.window.tabs.currentIndex()
        self.window.show_page(index)
        return self.window

    def open_tools(self) -> ToolsWindow:
        if self.tools is None:
            self.tools = ToolsController(self.sources.tachy.tools, self.main)
        return self.tools.open()
