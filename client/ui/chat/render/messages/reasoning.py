"""A reasoning model's reasoning in the chat: a frame above the answer, plain text.

Never Markdown or HTML. While the answer streams the reasoning is shown in full and
appended as it arrives (cost ~ the new text); once the reply ends it folds away under
a "Thinking · Show thinking" header, unless it is all there is. Inserting text above
a streaming answer moves its tail, so every change here shifts the tails below it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QTextBlockFormat, QTextCharFormat, QTextCursor, QTextDocument, QTextFrame

from client.ui.chat.render.look import shrink, thinking_char_format, thinking_format
from client.ui.chat.render.markdown.document import clear_frame
from client.ui.chat.render.messages.blocks import MessageBlock

LinkFormat = Callable[[str, int], QTextCharFormat]  # (action, message key) -> a link


class ReasoningFrames:
    def __init__(
        self,
        document: QTextDocument,
        blocks: dict[int, MessageBlock],
        link_format: LinkFormat,
        dark: Callable[[], bool],
    ) -> None:
        self.document = document
        self.blocks = blocks  # the view's, shared: every streaming tail may move
        self.link_format = link_format
        self.dark = dark

    def frame(self, block: MessageBlock) -> QTextFrame:
        """The block's reasoning frame, inserted just above its content on first need."""
        if block.thinking_frame is None:
            at = block.content.firstPosition() - 1  # the content frame's own start
            before = self.document.characterCount()
            cursor = QTextCursor(self.document)
            cursor.setPosition(at)
            block.thinking_frame = cursor.insertFrame(thinking_format())
            self._shift_tails(at, self.document.characterCount() - before)
        return block.thinking_frame

    def render(self, block: MessageBlock) -> None:
        """Header ("Thinking", with Show/Hide once the reply ended) and, when open,
        the reasoning. Keeps any streaming tail below it in place."""
        frame = self.frame(block)
        at, before = frame.firstPosition(), self.document.characterCount()
        cursor = clear_frame(self.document, frame)
        header = thinking_char_format(self.dark())
        cursor.insertText(QCoreApplication.translate("ChatView", "Thinking"), header)
        if not block.streaming:
            link = self.link_format("thinking", block.message.key)
            shrink(link)
            cursor.insertText("   ", header)
            shown = (
                QCoreApplication.translate("ChatView", "Hide thinking")
                if block.thinking_open
                else QCoreApplication.translate("ChatView", "Show thinking")
            )
            cursor.insertText(shown, link)
        block.thinking_rendered = 0
        if block.streaming or block.thinking_open:
            cursor.insertBlock(QTextBlockFormat(), header)
            cursor.insertText(block.message.thinking, header)
            block.thinking_rendered = len(block.message.thinking)
        self._shift_tails(at + 1, self.document.characterCount() - before)

    def render_tail(self, block: MessageBlock) -> None:
        """Append the reasoning that arrived since the last paint: cost ~ new text."""
        if block.thinking_frame is None:
            self.render(block)
            return
        new = block.message.thinking[block.thinking_rendered :]
        if not new:
            return
        frame = block.thinking_frame
        at, before = frame.lastPosition(), self.document.characterCount()
        cursor = QTextCursor(self.document)
        cursor.setPosition(frame.lastPosition())
        cursor.insertText(new, thinking_char_format(self.dark()))
        block.thinking_rendered = len(block.message.thinking)
        self._shift_tails(at + 1, self.document.characterCount() - before)

    def shown_text(self, block: MessageBlock) -> str:
        """The reasoning as the chat shows it now ("" when collapsed or absent)."""
        if block.thinking_frame is None:
            return ""
        cursor = QTextCursor(self.document)
        cursor.setPosition(block.thinking_frame.firstPosition())
        cursor.movePosition(QTextCursor.MoveOperation.NextBlock)  # past the header
        if cursor.position() >= block.thinking_frame.lastPosition():
            return ""
        cursor.setPosition(block.thinking_frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        return cursor.selectedText().replace("\u2029", "\n")

    def _shift_tails(self, at: int, delta: int) -> None:
        """Text inserted at `at` moved what follows: keep streaming tails in place."""
        for other in self.blocks.values():
            if other.tail_start >= at:
                other.tail_start += delta
