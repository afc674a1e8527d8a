"""The main window: conversations | chat + composer, the stage line, the HUD dock.

The window only arranges widgets and remembers their geometry. What a question,
a Stop or a failure does is in chat_page.ChatPage; servers and models in
server_control.ServerController.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from client.ui.chat.action_bar import ActionBar
from client.ui.chat.composer import Composer
from client.ui.common.reading_style import STATUS_PX, TextSizeFollower
from client.ui.conversations.conversation_list import ConversationPanel
from client.ui.servers.server_bar import ServerBar, ServersWindow
from client.ui.shell.window_geometry import FRAME_ROOM, first_start_geometry, kept_inside

if TYPE_CHECKING:  # the chat view's modules (markdown, code colours ...): after the paint
    from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QShowEvent

    from client.ui.chat.render.chat_view import ChatView

SETTINGS_GEOMETRY = "window/geometry"
SETTINGS_STATE = "window/state"
SETTINGS_SPLITTER = "window/splitter"
HUD_WIDTH = 340  # px: the latency dock at the first start, whatever its views' hints
CONVERSATIONS_MIN_WIDTH = 140


class MainWindow(ServersWindow):
    closed = Signal()  # the app's cleanup (close clients, stop the engine) follows this

    def __init__(
        self, settings: QSettings, parent: QWidget | None = None, chat_view_later: bool = False
    ) -> None:
        """chat_view_later: the first frame shows an empty stand-in where the chat goes
        (it is empty then anyway); finish_chat_view() puts the chat view there, after
        the paint. The launch does that: its modules take ~10 ms to import."""
        super().__init__(parent)
        self.settings = settings
        self.setObjectName("mainWindow")
        self.setWindowTitle(self.tr("Tachy"))
        self.setAccessibleName("Tachy")
        self.conversations = ConversationPanel(self)
        # Across the top, over all three columns: the bar's pickers and buttons made the
        # chat column (and the window) at least 770 px wide in the middle column.
        self.server_toolbar = QToolBar(self.tr("Server and model"), self)
        self.server_toolbar.setObjectName("serverToolBar")
        self.server_toolbar.setMovable(False)
        self.server_toolbar.toggleViewAction().setVisible(False)  # never hidden by mistake
        self.server_bar = ServerBar(self.server_toolbar)
        self.server_toolbar.addWidget(self.server_bar)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.server_toolbar)
        self.chat_view: ChatView
        self._chat_stand_in: QFrame | None = None
        if chat_view_later:
            self._chat_stand_in = QFrame(self)
            self._chat_stand_in.setObjectName("chatView")  # the chat's border and background
            self._chat_stand_in.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # (finish_chat_view)
        else:
            self._make_chat_view()
        self.outcome_bar = ActionBar("outcomeBar", self)
        self.undo_bar = ActionBar("undoBar", self)
        self.outcome_bar.setAccessibleName(self.tr("What to do next"))
        self.undo_bar.setAccessibleName(self.tr("Undo"))
        self.stage_label = QLabel(self)
        self.stage_label.setObjectName("stageLabel")
        self.stage_label.setTextFormat(Qt.TextFormat.PlainText)  # tools and servers name it
        self.stage_label.setAccessibleName(self.tr("Status"))
        self.stage_label.setWordWrap(True)
        TextSizeFollower(self.stage_label, STATUS_PX)  # (the composer follows it too)
        self.composer = Composer(self)
        if not chat_view_later:
            self.composer.follow_zoom_in_placeholder()
        self.outcome_bar.focus_home = self.undo_bar.focus_home = self.composer
        self.send_button = _button(self.tr("Send"), "sendButton", self.tr("Send (Enter)"), self)
        stop_tip = self.tr("Stop the answer (Esc)")
        self.stop_button = _button(self.tr("Stop"), "stopButton", stop_tip, self)
        self.stop_button.setEnabled(False)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.conversations)
        self.splitter.addWidget(self._centre())
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.conversations.setMinimumWidth(CONVERSATIONS_MIN_WIDTH)
        self.setCentralWidget(self.splitter)
        # Filled by client.ui.demo.demo_menu.DemoMenu (the latency lab for presenters).
        self.demo_menu = self.menuBar().addMenu(self.tr("&Demo"))
        self.demo_menu.setObjectName("demoMenu")
        self.hud_dock = QDockWidget(self.tr("Latency"), self)
        self.hud_dock.setObjectName("hudDock")
        self.hud_dock.setAccessibleName(self.tr("Latency HUD"))
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.hud_dock)
        # First start: the chat gets most of the width; the HUD a side column.
        self.first_start = not self._restore_layout()
        if self.first_start:
            self.fit_first_start(self._available())
        self.shortcuts: dict[str, QShortcut] = {}

    def _centre(self) -> QWidget:
        centre = QWidget(self)
        # The chat's column: panels add their bars and lines to it.
        layout = self.centre_layout = QVBoxLayout(centre)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self._chat_stand_in or self.chat_view, 1)
        layout.addWidget(self.undo_bar)
        layout.addWidget(self.outcome_bar)
        layout.addWidget(self.stage_label)
        row = QHBoxLayout()
        row.addWidget(self.composer, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        row.addLayout(buttons)
        layout.addLayout(row)
        return centre

    def _make_chat_view(self) -> None:
        from client.ui.chat.render.chat_view import ChatView

        self.chat_view = ChatView(self)

    def finish_chat_view(self) -> None:
        """The chat view where the first frame's stand-in was, in its place in the Tab
        order too (see chat_view_later)."""
        stand_in = self._chat_stand_in
        if stand_in is None:
            return
        self.composer.follow_zoom_in_placeholder()
        self._make_chat_view()
        self.centre_layout.replaceWidget(stand_in, self.chat_view)
        QWidget.setTabOrder(stand_in, self.chat_view)
        stand_in.hide()
        stand_in.setObjectName("")  # findChild(..., "chatView") finds the chat view
        stand_in.deleteLater()
        self._chat_stand_in = None

    def set_hud_widget(self, widget: QWidget) -> None:
        """The latency HUD's contents (owned by the HUD module)."""
        self.hud_dock.setWidget(widget)
        if self.first_start:  # the same width every first start, not the views' hints
            self.resizeDocks([self.hud_dock], [HUD_WIDTH], Qt.Orientation.Horizontal)

    def add_shortcut(self, name: str, keys: QKeySequence | str, slot: object) -> QShortcut:
        from PySide6.QtGui import QKeySequence, QShortcut  # (after the paint: 0.6 ms)

        shortcut = QShortcut(QKeySequence(keys), self)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(slot)
        self.shortcuts[name] = shortcut
        return shortcut

    # --- where it opens and the remembered layout ----------------------------------
    def _available(self) -> QRect:
        """The screen the window opens on, without panels and docks."""
        return self.screen().availableGeometry()

    def fit_first_start(self, available: QRect) -> None:
        """The first start's size fitted to `available`, the HUD dock HUD_WIDTH wide."""
        geometry = first_start_geometry(available, self.minimumSizeHint())
        self.setGeometry(geometry)
        self.resizeDocks([self.hud_dock], [HUD_WIDTH], Qt.Orientation.Horizontal)
        # On a small screen the chat keeps the width: the conversations a fifth at most.
        left = max(CONVERSATIONS_MIN_WIDTH, min(240, geometry.width() // 5))
        self.splitter.setSizes([left, geometry.width() - HUD_WIDTH - left])

    def keep_on_screen(self, available: QRect) -> None:
        """A remembered geometry from a larger screen made to fit this one."""
        if self.isMaximized() or self.isFullScreen():
            return
        room = (available.size() - FRAME_ROOM).expandedTo(self.minimumSizeHint())
        fitted = QRect(self.geometry().topLeft(), self.geometry().size().boundedTo(room))
        fitted = kept_inside(fitted, available)
        if fitted != self.geometry():
            self.setGeometry(fitted)

    def _restore_layout(self) -> bool:
        """True when a remembered geometry was restored."""
        geometry = self.settings.value(SETTINGS_GEOMETRY)
        restored = isinstance(geometry, QByteArray | bytes)
        if restored:
            self.restoreGeometry(QByteArray(geometry))
            self.keep_on_screen(self._available())
        state = self.settings.value(SETTINGS_STATE)
        if isinstance(state, QByteArray | bytes):
            self.restoreState(QByteArray(state))
        splitter = self.settings.value(SETTINGS_SPLITTER)
        if isinstance(splitter, QByteArray | bytes):
            self.splitter.restoreState(QByteArray(splitter))
        return restored

    def save_layout(self) -> None:
        self.settings.setValue(SETTINGS_GEOMETRY, self.saveGeometry())
        self.settings.setValue(SETTINGS_STATE, self.saveState())
        self.settings.setValue(SETTINGS_SPLITTER, self.splitter.saveState())
        self.settings.sync()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.composer.setFocus(Qt.FocusReason.OtherFocusReason)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        super().closeEvent(event)
        self.closed.emit()


def _button(text: str, name: str, tip: str, parent: QWidget) -> QPushButton:
    button = QPushButton(text, parent)
    button.setObjectName(name)
    button.setAccessibleName(text)
    button.setToolTip(tip)
    return button
