"""The grey line under each message: who wrote it, its state, and its links.

"Answer · Stopped   Copy   Timing   ‹ 1/2 ›   0.21 s to first token ...", the
"Copy code" link under each code block of a finished answer, the "earlier
messages not sent" line (the prompt budget's cut) above the message it names, and the
"earlier turns summarised" line under the last message a history summary stands for
(client/ui/chat/render/markers.py sets them). Links
use the view's private scheme, so a link in model output can never pose as one of
them. Strings are translated in the "ChatView" context, as they were in the view.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QTextBlockFormat, QTextCharFormat, QTextCursor, QTextDocument

from client.services.chat.turn_state import TurnState
from client.ui.chat.render.blocks import MessageBlock, ShownMessage
from client.ui.chat.render.document import clear_frame, code_runs
from client.ui.common.colours import text_colours
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.theme import is_dark
from client.ui.common.turn_words import outcome_words, turn_word

SUMMARY_LINKS = {  # by whether the summary is shown
    False: QT_TRANSLATE_NOOP("ChatView", "Show summary"),
    True: QT_TRANSLATE_NOOP("ChatView", "Hide summary"),
}


class MessageLabels:
    def __init__(
        self, document: QTextDocument, scheme: str, key_before: Callable[[int], int | None]
    ) -> None:
        self.document = document
        self.scheme = scheme
        self.key_before = key_before  # the message shown just above another
        self.code_copies: dict[int, str] = {}  # "Copy code" link id -> the code
        self.cut_before: int | None = None  # the cut line sits above this message
        self.cut_text = ""
        self.summary_after: int | None = None  # the summary line sits under this message
        self.summary_title = ""
        self.summary_text = ""
        self.summary_open = False  # the summary itself shown under the line

    def clear(self) -> None:
        self.code_copies.clear()
        self.cut_before = None
        self.summary_after = None

    def link_format(self, action: str, key: int) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setAnchor(True)
        fmt.setAnchorHref(f"{self.scheme}:{action}/{key}")
        fmt.setForeground(QColor(text_colours(is_dark()).link))
        return fmt

    def render(self, block: MessageBlock) -> None:
        cursor = clear_frame(self.document, block.meta)
        message = block.message
        block.meta_shown = not block.reserved
        if block.reserved:
            return  # an answer not begun yet shows nothing
        grey = QTextCharFormat()
        grey.setForeground(QColor(text_colours(is_dark()).muted))
        label = (
            QCoreApplication.translate("ChatView", "You")
            if message.role == "user"
            else QCoreApplication.translate("ChatView", "Answer")
        )
        state = state_label(message)
        cursor.insertText(label + (f" · {state}" if state else ""), grey)
        if message.state != "streaming":
            self._links(cursor, block, grey)
        self._cut_line(cursor, message.key, grey)
        if self.summary_after == message.key:
            self._summary_line(cursor, message.key, grey)

    def _links(self, cursor: QTextCursor, block: MessageBlock, grey: QTextCharFormat) -> None:
        message = block.message
        links: list[tuple[str, str]] = [(QCoreApplication.translate("ChatView", "Copy"), "copy")]
        if message.role == "user":
            links.append((QCoreApplication.translate("ChatView", "Edit"), "edit"))
        elif message.key > 0:  # its waterfall in the latency HUD
            links.append((QCoreApplication.translate("ChatView", "Timing"), "timing"))
        if message.version is not None and message.version[1] > 1:
            # An edited question's versions, or an answer's: each shows its own branch.
            index, count = message.version
            links += [("‹", "prev"), (f"{index}/{count}", "none"), ("›", "next")]
        for text, action in links:
            cursor.insertText("   ", grey)
            if action == "none":
                cursor.insertText(text, grey)
            else:
                cursor.insertText(text, self.link_format(action, message.key))
        if message.footer:
            cursor.insertText("   " + message.footer, grey)
        if message.citations:  # the answer's sources, each a link: "cite<n>"
            cursor.insertBlock()
            cursor.insertText(message.citations[0], grey)
            for number, label in enumerate(message.citations[1:], start=1):
                cursor.insertText("   ", grey)
                cursor.insertText(label, self.link_format(f"cite{number}", message.key))

    def _cut_line(self, cursor: QTextCursor, key: int, grey: QTextCharFormat) -> None:
        if self.cut_before is not None and self.key_before(self.cut_before) == key:
            cursor.insertBlock()
            cursor.insertText(f"— {self.cut_text} —", grey)

    def _summary_line(self, cursor: QTextCursor, key: int, grey: QTextCharFormat) -> None:
        cursor.insertBlock()
        cursor.insertText(f"— {self.summary_title} —   ", grey)
        link = QCoreApplication.translate("ChatView", SUMMARY_LINKS[self.summary_open])
        cursor.insertText(link, self.link_format("summary", key))
        if self.summary_open:  # the fast model's text: plain text, never HTML
            cursor.insertBlock()
            cursor.insertText(self.summary_text, grey)

    def add_code_copy_links(self, block: MessageBlock) -> None:
        """A "Copy code" link under each code block of a finished answer."""
        for position, code in reversed(code_runs(self.document, block.content)):
            copy_id = len(self.code_copies) + 1
            self.code_copies[copy_id] = code
            cursor = QTextCursor(self.document)
            cursor.setPosition(self.document.findBlock(position).position())
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
            cursor.insertText(
                QCoreApplication.translate("ChatView", "Copy code"),
                self.link_format("copycode", copy_id),
            )


def state_label(message: ShownMessage) -> str:
    """The answer's state with the status line's words: "Stopped", "Failed · not sent:
    server unreachable", "Answering…" while it streams (a reasoning model's "Thinking…"
    before its answer); "" for a whole answer or a question."""
    if message.state == "streaming":
        thinking = message.thinking and not message.text
        return turn_word(TurnState.THINKING if thinking else TurnState.ANSWERING) + "…"
    if message.state == "complete" or message.role != "assistant":
        return ""
    return outcome_words(message.state) or ""
