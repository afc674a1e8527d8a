"""The chat as a reading page (ChatView's part): text at the reading style's size, a
centred column of at most its width, the theme's colours, and the rounded boxes behind
questions and code blocks and the bars beside quotes, painted under the text.

Only the blocks on screen are visited to paint the boxes, so the cost of a paint does
not grow with the conversation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextBlock,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from client.ui.chat.render.look import (
    BOX_INSIDE_PX,
    USER_QUESTION,
    ChatColours,
    colours,
    is_code_header,
)
from client.ui.chat.render.markdown.document import one_edit
from client.ui.chat.render.markdown.safe_markdown import is_code_block
from client.ui.chat.render.messages.blocks import MessageBlock
from client.ui.chat.render.messages.labels import MessageLabels
from client.ui.chat.render.messages.reasoning import ReasoningFrames
from client.ui.common.reading_style import ReadingStyle
from client.ui.common.theme import is_dark

MIN_SIDE_PX = 16  # the column's distance from the chat's sides when it is narrow
BOX_RADIUS_PX = 8
QUOTE_BAR_PX, QUOTE_BAR_GAP_PX = 3, 14


class ReadingLayout(QTextBrowser):
    """Mixed into ChatView: it has these."""

    reading: ReadingStyle
    labels: MessageLabels
    reasoning: ReasoningFrames
    _blocks: dict[int, MessageBlock]
    _styled_dark: bool

    if TYPE_CHECKING:

        def _render_full(self, block: MessageBlock) -> None: ...

    def _dark(self) -> bool:
        return is_dark(self.palette())

    def _look(self) -> ChatColours:
        return colours(self._dark())

    def _fit_column(self) -> None:
        """A centred reading column (as wide as the reading style says at this zoom):
        the root frame's sides take what is left over."""
        root = self.document().rootFrame()
        fmt = root.frameFormat()
        side = side_margin(self.viewport().width(), self.reading.column_px)
        if (fmt.leftMargin(), fmt.rightMargin()) != (side, side):
            fmt.setLeftMargin(side)
            fmt.setRightMargin(side)
            root.setFrameFormat(fmt)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_column()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._dark() != self._styled_dark:
            self._styled_dark = self._dark()
            self.restyle()

    def restyle(self) -> None:
        """Render the finished messages again in the theme's colours."""
        with one_edit(self.document()):
            for block in self._blocks.values():
                if not block.streaming:
                    self.labels.render_who(block)
                    if block.thinking_frame is not None:
                        self.reasoning.render(block)
                    self._render_full(block)
                    self.labels.render(block)

    def paintEvent(self, event: QPaintEvent) -> None:
        """The boxes behind questions and code, then the text over them."""
        bar = self.verticalScrollBar()
        paint_boxes(self.viewport(), self.document(), bar.value(), self._look())
        super().paintEvent(event)


def side_margin(width: int, column: int) -> int:
    """Each side's share of what the chat's width leaves around the reading column."""
    return max(MIN_SIDE_PX, (width - column) // 2)


def first_block_below(document: QTextDocument, top: float) -> QTextBlock:
    """The first block that reaches below `top`, found by halving (blocks lie in the
    order of their numbers; Qt's hidden empty paragraphs, which have no place, are
    stepped over). The layout's hitTest is no help here: between two frames (a message's
    margins) it answers the end of the document, and nothing on screen got its box."""
    layout = document.documentLayout()
    low, high = 0, document.blockCount() - 1
    while low < high:
        middle = (low + high) // 2
        block = document.findBlockByNumber(middle)
        while block.isValid() and not block.isVisible() and block.blockNumber() < high:
            block = block.next()
        if layout.blockBoundingRect(block).bottom() >= top or not block.isVisible():
            high = middle
        else:
            low = block.blockNumber() + 1
    return document.findBlockByNumber(low)


def paint_boxes(widget: QWidget, document: QTextDocument, scroll_y: int, look: ChatColours) -> None:
    """Rounded tinted boxes behind the questions and the code blocks on screen: only the
    blocks in view are visited, so the cost does not grow with the conversation."""
    layout = document.documentLayout()
    top, bottom = scroll_y, scroll_y + widget.height()
    block = first_block_below(document, top)
    questions: dict[int, QTextFrame] = {}
    code: list[QRectF] = []
    quotes: list[QRectF] = []
    run: QRectF | None = None
    while block.isValid():
        if not block.isVisible():  # Qt's hidden empty paragraphs: no box ends there
            block = block.next()
            continue
        rect = layout.blockBoundingRect(block)
        if rect.top() > bottom:
            break
        frame = QTextCursor(block).currentFrame()
        if frame is not None and frame.frameFormat().hasProperty(USER_QUESTION):
            questions.setdefault(frame.firstPosition(), frame)
        if is_code_block(block.blockFormat()) or is_code_header(block):
            if run is None or is_code_header(block):
                box = layout.frameBoundingRect(frame)
                run = QRectF(box.left(), rect.top() - BOX_INSIDE_PX, box.width(), 0)
                code.append(run)
            run.setBottom(rect.bottom() + BOX_INSIDE_PX)
        else:
            run = None
            fmt = block.blockFormat()
            if fmt.hasProperty(QTextFormat.Property.BlockQuoteLevel):
                left = rect.left() + fmt.leftMargin() - QUOTE_BAR_GAP_PX  # (rect: the frame's)
                quotes.append(QRectF(left, rect.top(), QUOTE_BAR_PX, rect.height()))
        block = block.next()
    if not (questions or code or quotes):
        return
    painter = QPainter(widget)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.translate(0, -scroll_y)
    painter.setBrush(QColor(look.question))
    for frame in questions.values():
        painter.drawRoundedRect(layout.frameBoundingRect(frame), BOX_RADIUS_PX, BOX_RADIUS_PX)
    painter.setBrush(QColor(look.code))
    for box in code:
        painter.drawRoundedRect(box, BOX_RADIUS_PX / 2, BOX_RADIUS_PX / 2)
    painter.setBrush(QColor(look.rule))
    for bar in quotes:  # a quote's bar down its left side
        painter.drawRect(bar)
    painter.end()
