"""The main window as the chat and the areas over it see it: its chat column's widgets.

The shell's MainWindow (client/ui/shell/main_window.py) makes them; the areas type
against this class, so none of them imports the shell (the shell wires the areas
together, never the other way round).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMainWindow

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QShortcut
    from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout

    from client.ui.chat.action_bar import ActionBar
    from client.ui.chat.composer import Composer
    from client.ui.chat.render.chat_view import ChatView


class ChatWindow(QMainWindow):
    settings: QSettings  # the window's own: layout, zoom, theme, menus' switches
    chat_view: ChatView
    composer: Composer
    stage_label: QLabel  # the status line under the chat
    outcome_bar: ActionBar  # what to do next (Continue, Retry ...)
    undo_bar: ActionBar
    send_button: QPushButton
    stop_button: QPushButton
    centre_layout: QVBoxLayout  # the chat's column: panels add their bars and lines to it
    shortcuts: dict[str, QShortcut]  # by name ("stop", "regenerate" ...)

    def set_busy(self, busy: bool) -> None:
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
