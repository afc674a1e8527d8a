"""Opening a long conversation (ChatView's part): its last SHOWN_FIRST messages are
rendered at once and the earlier ones above them in batches, in later loop turns (Qt lays
out a 2,000-message document in about a second; the last screenful is what the user
looks at). An earlier message that is asked for before its turn is rendered at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextCursor, QTextFrameFormat

from client.ui.chat.render.markdown.document import hide_empty_paragraphs_around, one_edit
from client.ui.chat.render.messages.blocks import MessageBlock, ShownMessage

if TYPE_CHECKING:
    from PySide6.QtGui import QTextDocument, QTextFrame
    from PySide6.QtWidgets import QScrollBar

SHOWN_FIRST = 60
EARLIER_BATCH = 40


class EarlierMessages:
    """Mixed into ChatView: it has these."""

    _blocks: dict[int, MessageBlock]
    _order: list[int]
    _pages: list[QTextFrame]

    if TYPE_CHECKING:

        def document(self) -> QTextDocument: ...
        def verticalScrollBar(self) -> QScrollBar: ...
        def setUpdatesEnabled(self, enable: bool) -> None: ...
        def clear_messages(self) -> None: ...
        def add_message(self, message: ShownMessage) -> None: ...
        def _add_block(self, message: ShownMessage, page: QTextFrame) -> None: ...
        def scroll_to_end(self) -> None: ...

    def _set_up_earlier(self, timer: QTimer) -> None:
        self._earlier: list[ShownMessage] = []  # not rendered yet, oldest first
        self._earlier_by_key: dict[int, ShownMessage] = {}
        self._earlier_timer = timer
        timer.setSingleShot(True)
        timer.setInterval(0)
        timer.timeout.connect(self._render_earlier)

    def _clear_earlier(self) -> None:
        self._earlier_timer.stop()
        self._earlier.clear()
        self._earlier_by_key.clear()

    def set_messages(self, messages: list[ShownMessage]) -> None:
        self.setUpdatesEnabled(False)
        try:
            self.clear_messages()
            # One edit for the lot: the layout runs once at the end, not once per
            # message over a growing document (2,000 messages: 35 s -> well under 1 s).
            with one_edit(self.document()):
                for message in messages[-SHOWN_FIRST:]:
                    self.add_message(message)
        finally:
            self.setUpdatesEnabled(True)
        self._earlier = list(messages[:-SHOWN_FIRST])
        self._earlier_by_key = {message.key: message for message in self._earlier}
        self._order[:0] = [message.key for message in self._earlier]
        if self._earlier:
            self._earlier_timer.start()
        self.scroll_to_end()

    @property
    def fully_rendered(self) -> bool:
        """Every message is in the document (earlier ones of a long conversation
        are rendered in later loop turns)."""
        return not self._earlier

    def _render_earlier(self) -> None:
        """Render the next batch of earlier messages above the shown ones, keeping
        what the user looks at in place. Waits while an answer streams: the stream's
        rendering keeps document positions between frames."""
        if not self._earlier:
            return
        if any(block.streaming for block in self._blocks.values()):
            self._earlier_timer.start(50)
            return
        self._render_earlier_batch()
        if self._earlier:
            self._earlier_timer.start(0)

    def _render_all_earlier(self) -> None:
        """Now, in this turn: a change to an earlier message needs its block."""
        self._earlier_timer.stop()
        while self._earlier:
            self._render_earlier_batch()

    def _render_earlier_batch(self) -> None:
        batch = self._earlier[-EARLIER_BATCH:]
        del self._earlier[-EARLIER_BATCH:]
        bar = self.verticalScrollBar()
        from_bottom = bar.maximum() - bar.value()
        with one_edit(self.document()):
            cursor = QTextCursor(self.document())
            cursor.setPosition(self.document().rootFrame().firstPosition())
            page = cursor.insertFrame(QTextFrameFormat())
            self._pages.insert(0, page)
            for shown in self._pages[:2]:
                hide_empty_paragraphs_around(self.document(), shown)
            for message in batch:
                del self._earlier_by_key[message.key]
                self._add_block(message, page)
        bar.setValue(bar.maximum() - from_bottom)
