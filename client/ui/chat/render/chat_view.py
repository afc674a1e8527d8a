"""The chat: one read-only document, one frame per message, streaming-friendly.

Painting rules (issue 3): the first chunk of an answer is inserted as plain text and
painted synchronously in the same event-loop turn; later chunks are buffered and
flushed at most once per display frame (16 ms). A flush re-renders only the unsettled
tail of the streaming message (messages/content.py), so appending costs time in
proportion to the new text, not to the whole conversation. The label under each message
is messages/labels.py's, a reasoning model's reasoning messages/reasoning.py's; a long
conversation opens in batches (earlier_messages.py).
"""

from __future__ import annotations

import os
from functools import partial

from PySide6.QtCore import QTimer, QUrl, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDesktopServices,
    QGuiApplication,
    QTextCharFormat,
    QTextCursor,
    QTextFrame,
    QTextFrameFormat,
)
from PySide6.QtWidgets import QWidget

from client.ui.chat.paced_text import PacedText
from client.ui.chat.render.earlier_messages import EarlierMessages
from client.ui.chat.render.look import (
    THINKING_GREY,
    content_format,
    meta_format,
    thinking_format,
    who_format,
)
from client.ui.chat.render.markdown.code_highlight import highlight
from client.ui.chat.render.markdown.context_menu import CodeBlockMenu
from client.ui.chat.render.markdown.document import (
    code_for_copy_link,
    hide_empty_blocks_before,
    hide_empty_paragraphs_around,
    one_edit,
)
from client.ui.chat.render.markdown.safe_markdown import WEB_SCHEMES, SafeDocument
from client.ui.chat.render.messages.blocks import MessageBlock, ShownMessage
from client.ui.chat.render.messages.content import render_full, render_tail
from client.ui.chat.render.messages.labels import MessageLabels
from client.ui.chat.render.messages.markers import ChatMarkers
from client.ui.chat.render.messages.reasoning import ReasoningFrames
from client.ui.chat.render.reading_view import ReadingLayout
from client.ui.chat.render.tool_calls_view import ToolCallsView
from client.ui.common.reading_style import TextSizeFollower, reading_style

__all__ = ["THINKING_GREY", "ChatView", "ShownMessage"]

FRAME_MS = 16
PAGE_SIZE = 16  # messages per page frame (see _page)
# A streamed answer at least this long gets its final render a little after its end
# (see end_stream), once the end's own paint and the HUD's per-reply views (a frame
# after the end, hud_link) have run; a shorter one at once (a few ms at most).
FINAL_RENDER_LATER_CHARS = 4000
FINAL_RENDER_DELAY_MS = 4 * FRAME_MS


class ChatView(ChatMarkers, EarlierMessages, ToolCallsView, ReadingLayout):
    actionRequested = Signal(str, int)  # (action, message key): copy, edit, prev, next, ...

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatView")
        self.setAccessibleName(self.tr("Chat"))
        self.safe_document = SafeDocument(self)
        self.setDocument(self.safe_document)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setUndoRedoEnabled(False)
        self.document().setUndoRedoEnabled(False)
        self.anchorClicked.connect(self._on_anchor)
        # os.urandom, not secrets: secrets loads OpenSSL (hmac), 5 ms before the first paint
        self._action_scheme = f"tachy-{os.urandom(4).hex()}"
        self._blocks: dict[int, MessageBlock] = {}
        self._order: list[int] = []
        self._pages: list[QTextFrame] = []
        self._in_last_page = 0
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FRAME_MS)
        self._flush_timer.timeout.connect(self.flush)
        self._pending: set[int] = set()
        self._pending_thinking: set[int] = set()
        self._pending_meta: set[int] = set()  # answers whose label is due (see _unreserve)
        self.pacing = PacedText(self, self._show_streamed)  # View > Smooth streaming
        self._set_up_earlier(QTimer(self))  # a long conversation's first messages
        self.flush_count = 0  # how many coalesced flushes ran (tests, benchmarks)
        self.labels = MessageLabels(
            self.safe_document, self._action_scheme, self._key_before, self._dark
        )
        self.reasoning = ReasoningFrames(
            self.safe_document, self._blocks, self.labels.link_format, self._dark
        )
        self._menu = CodeBlockMenu(self)
        self._styled_dark = self._dark()
        self.reading = reading_style()
        TextSizeFollower(self)  # the body size, following the zoom
        self.reading.changed.connect(self._fit_column)
        self._fit_column()

    # --- building ----------------------------------------------------------------
    def clear_messages(self) -> None:
        self._flush_timer.stop()
        self._pending.clear()
        self._pending_thinking.clear()
        self._pending_meta.clear()
        self._clear_earlier()
        self._blocks.clear()
        self._order.clear()
        self._pages.clear()
        self._in_last_page = 0
        self.labels.clear()
        self.document().clear()
        self._fit_column()

    def _page(self) -> QTextFrame:
        """The frame new messages go into. Messages sit in pages of PAGE_SIZE so that
        Qt's layout, which walks the items of a changed frame's parent, walks a few
        pages and one page's messages, not every message of a long conversation."""
        if not self._pages or self._in_last_page >= PAGE_SIZE:
            cursor = self.document().rootFrame().lastCursorPosition()
            page = cursor.insertFrame(QTextFrameFormat())
            self._pages.append(page)
            self._in_last_page = 0
            hide_empty_paragraphs_around(self.document(), page)
        self._in_last_page += 1
        return self._pages[-1]

    def add_message(self, message: ShownMessage) -> None:
        self._order.append(message.key)
        self._add_block(message, self._page())

    def _add_block(self, message: ShownMessage, page: QTextFrame) -> None:
        with one_edit(self.document()):  # frames, text and hidden paragraphs laid out once
            who = page.lastCursorPosition().insertFrame(who_format())
            thinking = None
            if message.thinking:
                thinking = page.lastCursorPosition().insertFrame(thinking_format())
            content = page.lastCursorPosition().insertFrame(content_format(message.role))
            meta = page.lastCursorPosition().insertFrame(meta_format())
            hide_empty_blocks_before(self.document(), (thinking, content, meta))
            block = MessageBlock(message, content, meta, who, thinking_frame=thinking)
            # A finished answer's reasoning starts collapsed, unless it is all there is.
            block.thinking_open = not message.text.strip()
            self._blocks[message.key] = block
            self.labels.render_who(block)
            if thinking is not None:
                self.reasoning.render(block)
            self._render_full(block)
            self.labels.render(block)

    def message_frames(self, key: int) -> tuple[QTextFrame, QTextFrame]:
        """A shown message's content and label frames (its images go between them)."""
        block = self._blocks[key]
        return block.content, block.meta

    @property
    def action_scheme(self) -> str:
        """The private scheme of the view's own links (a model's text cannot use it)."""
        return self._action_scheme

    def has_message(self, key: int) -> bool:
        return key in self._blocks or key in self._earlier_by_key

    def message(self, key: int) -> ShownMessage:
        block = self._blocks.get(key)
        return block.join_streamed() if block is not None else self._earlier_by_key[key]

    def keys(self) -> list[int]:
        return list(self._order)

    def rekey(self, old: int, new: int) -> None:
        """A message got its stored id (it was shown under a temporary key)."""
        if old in self._earlier_by_key:
            self._render_all_earlier()
        if old == new or old not in self._blocks:
            return
        block = self._blocks.pop(old)
        block.message.key = new
        self._blocks[new] = block
        self._order[self._order.index(old)] = new
        for pending in (self._pending, self._pending_thinking, self._pending_meta):
            if old in pending:
                pending.discard(old)
                pending.add(new)
        with one_edit(self.document()):
            if block.thinking_frame is not None:
                self.reasoning.render(block)  # its link names the key
            if block.message.tool_calls and not block.streaming:
                self._render_full(block)  # its tool cards' links name it too
            self.labels.render(block)

    # --- streaming ---------------------------------------------------------------
    def reserve_answer(self, key: int) -> None:
        """Lay out an empty answer block while the request is on its way, so that the
        first token only inserts text into a frame that is already laid out, then paints
        (no new frames, no relayout of the page on the paint path: 4.8 -> 1.8 ms). It
        shows nothing, not even a label, until text arrives: no indicator in 300 ms."""
        if key in self._blocks:
            return
        follow = self._at_bottom()
        self.add_message(ShownMessage(key, "assistant", "", "streaming"))
        block = self._blocks[key]
        block.reserved = True
        with one_edit(self.document()):
            self.labels.render_who(block)  # see-through until its first words
        self.begin_stream(key)
        if follow:
            self.scroll_to_end()

    def begin_stream(self, key: int, text: str = "") -> None:
        """Start streaming into message `key` (added if absent); existing text is kept."""
        if key in self._earlier_by_key:
            self._render_all_earlier()
        if key not in self._blocks:
            self.add_message(ShownMessage(key, "assistant", text, "streaming"))
        block = self._blocks[key]
        block.message.state = "streaming"
        block.streaming = True
        block.painted_first = False
        block.thinking_painted = False
        with one_edit(self.document()):
            if block.thinking_frame is not None:
                block.thinking_open = True
                self.reasoning.render(block)
            self.labels.render(block)

    def append_token(self, key: int, text: str) -> bool:
        """Add streamed text. Returns True when it was painted right now (first chunk)."""
        block = self._blocks[key]
        if not block.painted_first:
            block.message.text += text
            block.painted_first = True
            self._paint_first_text(block, text)
            return True
        return not self.append_streamed(key, text)

    def append_streamed(self, key: int, text: str) -> bool:
        """A chunk after the first: kept for the next frame's flush (a list append).
        False, and nothing kept, unless `key` is streaming with its first chunk painted."""
        block = self._blocks.get(key)
        if block is None or not block.streaming or not block.painted_first:
            return False
        text = self.pacing.arrive(key, text)  # View > Smooth streaming may hold some
        if text:
            self._show_streamed(key, text)
        return True

    def _show_streamed(self, key: int, text: str) -> None:
        block = self._blocks.get(key)
        if block is not None and block.streaming:
            block.unjoined.append(text)
            self._pending.add(key)
            if not self._flush_timer.isActive():
                self._flush_timer.start()

    def append_thinking(self, key: int, text: str) -> bool:
        """Add streamed reasoning (shown above the answer, as plain text). Same rules
        as append_token: True when painted right now (the stream's first chunk)."""
        block = self._blocks[key]
        block.message.thinking += text
        if not block.thinking_painted:
            block.thinking_painted = True
            follow = self._at_bottom()
            with one_edit(self.document()):
                self.reasoning.render_tail(block)
            self._unreserve(block)
            if follow:
                self.scroll_to_end()
            self.viewport().repaint()  # synchronous: the first words show in this turn
            return True
        self._pending_thinking.add(key)
        if not self._flush_timer.isActive():
            self._flush_timer.start()
        return False

    def thinking_text(self, key: int) -> str:
        """The reasoning as the chat shows it now ("" when collapsed or absent)."""
        block = self._blocks.get(key)
        return "" if block is None else self.reasoning.shown_text(block)

    def thinking_open(self, key: int) -> bool | None:
        """Whether message `key`'s reasoning is expanded (None: it has none)."""
        block = self._blocks.get(key)
        if block is None or block.thinking_frame is None:
            return None
        return block.thinking_open

    def toggle_thinking(self, key: int) -> None:
        block = self._blocks.get(key)
        if block is None or block.thinking_frame is None or block.streaming:
            return
        block.thinking_open = not block.thinking_open
        with one_edit(self.document()):
            self.reasoning.render(block)
        self.viewport().update()

    def _paint_first_text(self, block: MessageBlock, text: str) -> None:
        """The stream's first words: inserted as plain text and painted synchronously,
        in this loop turn (a reserved answer's frame is already laid out)."""
        follow = self._at_bottom()
        cursor = QTextCursor(self.document())
        cursor.setPosition(block.content.lastPosition())
        cursor.insertText(text, QTextCharFormat())
        if follow:
            self.scroll_to_end()
        self._unreserve(block)
        self.viewport().repaint()

    def _unreserve(self, block: MessageBlock) -> None:
        """Text arrived in a reserved answer: its label comes with the next flush."""
        if block.reserved:
            block.reserved = False
            self._pending_meta.add(block.message.key)
            self._flush_timer.start()

    def flush(self) -> None:
        """Render what arrived since the last frame (at most once per 16 ms)."""
        self._flush_timer.stop()
        if not (self._pending or self._pending_thinking or self._pending_meta):
            return
        follow = self._at_bottom()
        with one_edit(self.document()):
            for key in list(self._pending_thinking):
                block = self._blocks.get(key)
                if block is not None:
                    self.reasoning.render_tail(block)
            self._pending_thinking.clear()
            for key in list(self._pending):
                block = self._blocks.get(key)
                if block is not None:
                    block.join_streamed()
                    self._render_tail(block)
            for key in list(self._pending_meta):
                block = self._blocks.get(key)
                if block is not None and not block.meta_shown:
                    self.labels.render(block)
        self._pending.clear()
        self._pending_meta.clear()
        self.flush_count += 1
        if follow:
            self.scroll_to_end()
        # No viewport().update() here: the document's layout already asks for one.

    def end_stream(
        self, key: int, state: str, text: str | None = None, thinking: str | None = None
    ) -> None:
        """The answer ended (complete, stopped, interrupted ...): final render and label.
        A long streamed answer is already on screen as streamed: its last words are
        painted now and its final render (the text as written, one layout of the whole
        answer) follows a few frames later, so the loop is never held for both."""
        block = self._blocks.get(key)
        held = self.pacing.finish(key)  # an ended answer is shown whole at once
        if block is None:
            return
        if held:
            self._show_streamed(key, held)
        block.join_streamed()
        streamed = block.streaming and text is None
        if streamed and (key in self._pending or key in self._pending_thinking):
            self.flush()
            self.viewport().repaint()
        self._pending.discard(key)
        self._pending_thinking.discard(key)
        self._pending_meta.discard(key)
        block.streaming = False
        block.reserved = False
        block.message.state = state
        if text is not None:
            block.message.text = text
        if thinking is not None:
            block.message.thinking = thinking
        block.final_due = streamed and len(block.message.text) >= FINAL_RENDER_LATER_CHARS
        with one_edit(self.document()):
            if block.message.thinking:
                # Collapsed once the answer is there; kept open if it is all there is.
                block.thinking_open = not block.message.text.strip()
                self.reasoning.render(block)
            if not block.final_due:
                self._render_full(block)
            self.labels.render(block)
        if block.final_due:
            # With the view as context: dropped if the view is gone by then.
            QTimer.singleShot(FINAL_RENDER_DELAY_MS, self, partial(self._render_final, block))
        self.viewport().update()

    def _render_final(self, block: MessageBlock) -> None:
        if not block.final_due or block.streaming:
            return  # rendered already, or streaming again (Continue)
        block.final_due = False
        if self._blocks.get(block.message.key) is block:  # not cleared or replaced
            with one_edit(self.document()):
                self._render_full(block)

    def set_footer(self, key: int, footer: str, citations: list[str] | None = None) -> None:
        """citations (knowledge): a heading, then "[1] path:line" links (action cite<n>)."""
        block = self._blocks.get(key)
        new = citations if citations is not None else block.message.citations if block else []
        if block is not None and (block.message.footer, block.message.citations) != (footer, new):
            block.message.footer, block.message.citations = footer, list(new)
            self.labels.render(block)

    def set_state(self, key: int, state: str) -> None:
        if key in self._earlier_by_key:
            self._render_all_earlier()
        block = self._blocks[key]
        block.message.state = state
        self.labels.render(block)

    # --- rendering ---------------------------------------------------------------
    def _render_full(self, block: MessageBlock) -> None:
        block.join_streamed()
        render_full(self.safe_document, block, self._action_scheme, self._look())
        if block.message.role != "user" and not block.streaming:
            highlight(self.document(), block.content, self._dark())

    def _render_tail(self, block: MessageBlock) -> None:
        render_tail(self.safe_document, block, self._action_scheme, self._look())

    def _key_before(self, key: int) -> int | None:
        index = self._order.index(key) if key in self._order else 0
        return self._order[index - 1] if index > 0 else None

    # --- interaction -------------------------------------------------------------
    def _on_anchor(self, url: QUrl) -> None:
        scheme = url.scheme().lower()
        if scheme == self._action_scheme:
            action, _, key = url.path().partition("/")
            if action == "copycode":
                code = code_for_copy_link(self.document(), url.toString())
                QGuiApplication.clipboard().setText(code)
            elif action == "copy":
                self.copy_message(int(key))
            elif action == "thinking":
                self.toggle_thinking(int(key))
            elif action == "summary":
                self.toggle_summary()
            elif action.startswith("tool"):  # a tool card's header: fold, unfold
                self.toggle_tool_call(int(key), action)
            else:
                self.actionRequested.emit(action, int(key))
        elif scheme in WEB_SCHEMES:
            QDesktopServices.openUrl(url)  # only on a click, only the web
        # file://, javascript:, data: ... stay inert.

    def copy_message(self, key: int) -> None:
        QGuiApplication.clipboard().setText(self.copied_text(key))

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        self._menu.show(event)

    def _at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 4

    def scroll_to_end(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())
