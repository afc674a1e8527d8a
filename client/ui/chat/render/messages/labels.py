"""Who speaks, above each message ("You", "Answer"), and the grey line under it: its
state and its links.

"Stopped   Copy   Timing   ‹ 1/2 ›   0.21 s to first token ...", the "earlier
messages not sent" line (the prompt budget's cut) above the message it names, and the
"earlier turns summarised" line under the last message a history summary stands for
(client/ui/chat/render/messages/markers.py sets them). Links
use the view's private scheme, so a link in model output can never pose as one of
them. Strings are translated in the "ChatView" context, as they were in the view.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor, QTextDocument

from client.services.chat.turn_state import TurnState
from client.ui.chat.render.look import colours, shrink
from client.ui.chat.render.markdown.document import clear_frame
from client.ui.chat.render.messages.blocks import MessageBlock, ShownMessage
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.turn_words import outcome_words, turn_word

SUMMARY_LINKS = {  # by whether the summary is shown
    False: QT_TRANSLATE_NOOP("ChatView", "Show summary"),
    True: QT_TRANSLATE_NOOP("ChatView", "Hide summary"),
}


class MessageLabels:
    def __init__(
        self,
        document: QTextDocument,
        scheme: str,
        key_before: Callable[[int], int | None],
        dark: Callable[[], bool],
    ) -> None:
        self.document = document
        self.scheme = scheme
        self.key_before = key_before  # the message shown just above another
        self.dark = dark  # the theme now (the colours follow it)
        self.cut_before: int | None = None  # the cut line sits above this message
        self.cut_text = ""
        self.summary_after: int | None = None  # the summary line sits under this message
        self.summary_title = ""
        self.summary_text = ""
        self.summary_open = False  # the summary itself shown under the line

    def clear(self) -> None:
        self.cut_before = None
        self.summary_after = None

    def link_format(self, action: str, key: int) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setAnchor(True)
        fmt.setAnchorHref(f"{self.scheme}:{action}/{key}")
        fmt.setForeground(QColor(colours(self.dark()).link))
        return fmt

    def grey(self) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(colours(self.dark()).secondary))
        shrink(fmt)
        return fmt

    def render_who(self, block: MessageBlock) -> None:
        """ "You" or "Answer" above the message; kept as text but see-through while an
        answer is reserved, so its showing moves nothing below it."""
        if block.who is None:
            return
        cursor = clear_frame(self.document, block.who)
        cursor.insertText(self._speaker(block), self._who_format(not block.reserved))

    def _speaker(self, block: MessageBlock) -> str:
        if block.message.role == "user":
            return QCoreApplication.translate("ChatView", "You")
        return QCoreApplication.translate("ChatView", "Answer")

    def _who_format(self, shown: bool) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setFontWeight(QFont.Weight.DemiBold)
        colour = QColor(colours(self.dark()).secondary)
        if not shown:
            colour.setAlpha(0)
        fmt.setForeground(colour)
        return fmt

    def _show_who(self, block: MessageBlock) -> None:
        """The speaker of an answer that was reserved: the same text, now seen."""
        if block.who is None:
            return
        cursor = QTextCursor(self.document)
        cursor.setPosition(block.who.firstPosition())
        cursor.setPosition(block.who.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        cursor.setCharFormat(self._who_format(True))

    def render(self, block: MessageBlock) -> None:
        cursor = clear_frame(self.document, block.meta)
        message = block.message
        was_shown = block.meta_shown
        block.meta_shown = not block.reserved
        if block.reserved:
            return  # an answer not begun yet shows nothing
        if not was_shown:
            self._show_who(block)
        grey = self.grey()
        state = state_label(message)
        cursor.insertText(state, grey)
        if message.state != "streaming":
            self._links(cursor, block, grey, first=not state)
        self._cut_line(cursor, message.key, grey)
        if self.summary_after == message.key:
            self._summary_line(cursor, message.key, grey)

    def _links(
        self, cursor: QTextCursor, block: MessageBlock, grey: QTextCharFormat, first: bool
    ) -> None:
        message = block.message
        links: list[tuple[str, str]] = [(QCoreApplication.translate("ChatView", "Copy"), "copy")]
        if message.role == "user":
            links.append((QCoreApplication.translate("ChatView", "Edit"), "edit"))
        elif message.key > 0:  # a new answer beside it; its waterfall in the latency HUD
            links.append((QCoreApplication.translate("ChatView", "Regenerate"), "regenerate"))
            links.append((QCoreApplication.translate("ChatView", "Timing"), "timing"))
        if message.version is not None and message.version[1] > 1:
            # An edited question's versions, or an answer's: each shows its own branch.
            index, count = message.version
            links += [("‹", "prev"), (f"{index}/{count}", "none"), ("›", "next")]
        for text, action in links:
            if not first:
                cursor.insertText("   ", grey)
            first = False
            if action == "none":
                cursor.insertText(text, grey)
            else:
                link = self.link_format(action, message.key)
                shrink(link)
                cursor.insertText(text, link)
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
