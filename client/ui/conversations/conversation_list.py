"""The left side: the conversations, a search box (Ctrl+F) and New (Ctrl+N)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

if TYPE_CHECKING:  # (the items and the menu are made after the first paint: ~2 ms)
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QListWidgetItem

UNTITLED = QT_TRANSLATE_NOOP("ConversationPanel", "New conversation")
SEARCH_DELAY_MS = 150


class ConversationPanel(QWidget):
    chosen = Signal(int)
    newRequested = Signal()
    renameRequested = Signal(int, str)
    deleteRequested = Signal(int)
    exportRequested = Signal(int, str)  # (conversation id, "markdown" | "json")
    searchChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversationPanel")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.search_box = QLineEdit(self)
        self.search_box.setObjectName("searchBox")
        self.search_box.setAccessibleName(self.tr("Search conversations"))
        self.search_box.setPlaceholderText(self.tr("Search (Ctrl+F)"))
        self.search_box.setClearButtonEnabled(True)
        self.new_button = QPushButton(self.tr("New"), self)
        self.new_button.setObjectName("newButton")
        self.new_button.setAccessibleName(self.tr("New conversation"))
        self.new_button.setToolTip(self.tr("New conversation (Ctrl+N)"))
        top.addWidget(self.search_box, 1)
        top.addWidget(self.new_button)
        layout.addLayout(top)
        self.list = QListWidget(self)
        self.list.setObjectName("conversationList")
        self.list.setAccessibleName(self.tr("Conversations"))
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout.addWidget(self.list, 1)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(lambda: self.searchChanged.emit(self.search_text()))
        self.search_box.textChanged.connect(lambda _: self._search_timer.start())
        self.new_button.clicked.connect(self.newRequested.emit)
        self.list.itemActivated.connect(self._on_item)
        self.list.itemClicked.connect(self._on_item)
        self.list.itemChanged.connect(self._on_edited)
        self.list.customContextMenuRequested.connect(self._menu)
        self._filling = False

    def search_text(self) -> str:
        return self.search_box.text().strip()

    def show_conversations(self, conversations: Sequence[Any], current: int | None) -> None:
        """conversations: objects with .id and .title (store.conversations.history.Conversation)."""
        from PySide6.QtWidgets import QListWidgetItem

        self._filling = True
        try:
            self.list.clear()
            for conversation in conversations:
                item = QListWidgetItem(conversation.title or self.tr(UNTITLED))
                item.setData(Qt.ItemDataRole.UserRole, conversation.id)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.list.addItem(item)
                if conversation.id == current:
                    self.list.setCurrentItem(item)
        finally:
            self._filling = False

    def ids(self) -> list[int]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def item_for(self, conversation_id: int) -> QListWidgetItem | None:
        for i in range(self.list.count()):
            item = self.list.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == conversation_id:
                return item
        return None

    def start_rename(self, conversation_id: int) -> None:
        item = self.item_for(conversation_id)
        if item is not None:
            self.list.editItem(item)

    def focus_search(self) -> None:
        self.search_box.setFocus()
        self.search_box.selectAll()

    def _on_item(self, item: QListWidgetItem) -> None:
        self.chosen.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def _on_edited(self, item: QListWidgetItem) -> None:
        if not self._filling:
            self.renameRequested.emit(int(item.data(Qt.ItemDataRole.UserRole)), item.text())

    def _menu(self, position: QPoint) -> None:
        item = self.list.itemAt(position)
        if item is None:
            return
        from PySide6.QtWidgets import QMenu

        conversation_id = int(item.data(Qt.ItemDataRole.UserRole))
        menu = QMenu(self)
        menu.addAction(self.tr("Rename"), lambda: self.list.editItem(item))
        menu.addAction(
            self.tr("Export as Markdown…"),
            lambda: self.exportRequested.emit(conversation_id, "markdown"),
        )
        menu.addAction(
            self.tr("Export as JSON…"), lambda: self.exportRequested.emit(conversation_id, "json")
        )
        menu.addSeparator()
        menu.addAction(self.tr("Delete"), lambda: self.deleteRequested.emit(conversation_id))
        menu.popup(self.list.viewport().mapToGlobal(position))
