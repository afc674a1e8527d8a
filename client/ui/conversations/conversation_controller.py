"""Conversations: list, search, new, rename, delete with Undo, export."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from client.services.storage.conversation_list import ConversationList
from client.ui.chat.chat_page import ChatPage
from client.ui.common.async_errors import report

if TYPE_CHECKING:
    from client.services.storage.stores import Stores
    from client.ui.chat.chat_window import ChatWindow
    from client.ui.conversations.conversation_list import ConversationPanel

EXPORT_FILTERS = {"markdown": ("Markdown (*.md)", ".md"), "json": ("JSON (*.json)", ".json")}


class ConversationController(QObject):
    def __init__(
        self,
        window: ChatWindow,
        panel: ConversationPanel,
        page: ChatPage,
        stores: Stores,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.panel = panel
        self.page = page
        self.library = ConversationList(stores)
        self._deleted: int | None = None
        self._export_dialog: QFileDialog | None = None
        panel.chosen.connect(self.choose)
        panel.newRequested.connect(self.new)
        panel.renameRequested.connect(self.rename)
        panel.deleteRequested.connect(self.delete)
        panel.exportRequested.connect(self.export)
        panel.searchChanged.connect(lambda _: self.refresh())
        window.undo_bar.chosen.connect(self._on_undo)
        page.conversationChanged.connect(lambda _: self.refresh())

    def refresh(self) -> None:
        if not self.library.available:
            return
        search = self.panel.search_text() or None
        listed = self.library.list(search)
        self.panel.show_conversations(listed, self.page.conversation_id)

    def new(self) -> None:
        self.page.show_conversation(None)
        self.panel.list.clearSelection()
        self.window.composer.setFocus()

    def choose(self, conversation_id: int) -> None:
        if conversation_id != self.page.conversation_id:
            self.page.show_conversation(conversation_id)
        self.window.composer.setFocus()

    def rename(self, conversation_id: int, title: str) -> None:
        self.library.rename(conversation_id, title)
        self.refresh()

    def delete(self, conversation_id: int) -> None:
        if not self.library.available:
            return
        title = self.library.delete(conversation_id)
        self._deleted = conversation_id
        if conversation_id == self.page.conversation_id:
            self.page.show_conversation(None)
        title = title or self.tr("the conversation")
        deleted = self.tr("Deleted “{title}”.").format(title=title)
        self.window.undo_bar.show_choices(deleted, [("undo", self.tr("Undo"))])
        self.refresh()

    def _on_undo(self, name: str) -> None:
        if name == "undo" and self._deleted is not None:
            self.library.restore(self._deleted)
            self._deleted = None
            self.refresh()

    def export(self, conversation_id: int, kind: str) -> None:
        caption, suffix = EXPORT_FILTERS[kind]
        dialog = QFileDialog(self.window, self.tr("Export conversation"), "", caption)
        dialog.setObjectName("exportDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix(suffix.lstrip("."))
        dialog.fileSelected.connect(lambda path: self.export_to(conversation_id, kind, Path(path)))
        self._export_dialog = dialog
        dialog.open()  # non-modal for the loop

    def export_to(self, conversation_id: int, kind: str, path: Path) -> None:
        if not self.library.available:
            return
        try:
            text = self.library.export(conversation_id, kind)
            path.write_text(text, encoding="utf-8")
        except Exception as error:
            report(error, "export")
            return
        self.window.stage_label.setText(self.tr("Exported to {path}").format(path=path))
