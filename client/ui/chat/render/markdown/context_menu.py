"""The chat's context menu: Qt's own for a text browser, plus "Copy code block" when
the pointer is over a code block (client/ui/chat/render/chat_view.py shows it)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QContextMenuEvent, QGuiApplication
from PySide6.QtWidgets import QTextBrowser

from client.ui.chat.render.markdown.document import code_block_text_at
from client.ui.chat.render.markdown.safe_markdown import is_code_block


class CodeBlockMenu:
    def __init__(self, view: QTextBrowser) -> None:
        self.view = view
        # The chat view's translation context, as when this lived in ChatView.
        self.action = QAction(QCoreApplication.translate("ChatView", "Copy code block"), view)
        self.action.triggered.connect(self._copy_code_under_cursor)

    def show(self, event: QContextMenuEvent) -> None:
        menu = self.view.createStandardContextMenu(event.pos())
        cursor = self.view.cursorForPosition(event.pos())
        if is_code_block(cursor.blockFormat()):
            self.action.setData(cursor.position())
            menu.addAction(self.action)
        menu.exec(event.globalPos())
        menu.deleteLater()

    def _copy_code_under_cursor(self) -> None:
        position = int(self.action.data() or 0)
        QGuiApplication.clipboard().setText(code_block_text_at(self.view.document(), position))
