"""How the chat's text looks: its colours in the light and the dark theme, the formats
of a message's frames (speaker, reasoning, content, label line), and one pass over
freshly inserted text that gives it the reading layout.

The pass (style_inserted) runs over what a render just inserted, so it costs time in
proportion to that text: line height about 1.5, code blocks with a header line (the
language and a Copy link) and room inside the rounded box painted behind them
(reading_view.py),
code at the body's size (Qt's Markdown import fixes it at 9 pt), inline code tinted,
tables with borders and a tinted header row, quotes set in and greyed, links in the
theme's link colour. Only formats
are set: the text, which may come from a model, is never read as HTML.
"""

from __future__ import annotations

from functools import partial
from itertools import count

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextLength,
    QTextTable,
)

from client.ui.chat.render.markdown.safe_markdown import SafeDocument, is_code_block
from client.ui.common.colours import LIGHT, ChatColours, text_colours
from client.ui.common.reading_style import LINE_HEIGHT_PERCENT

BOX_INSIDE_PX = 8  # a code box's room above its header and below its last line
CODE_LINE_HEIGHT_PERCENT = 130
TABLE_LINE_HEIGHT_PERCENT = 120
HEADING_LINE_HEIGHT_PERCENT = 125
HEADING_SIZES = {1: 2, 2: 1}  # level -> Qt's size step (1: 1.2x the body, 2: 1.5x), else 1x
CODE_PAD_PX = 14  # the code's distance from its box's sides
CODE_HEADER = QTextFormat.Property.UserProperty + 1  # block property: a code block's header
USER_QUESTION = QTextFormat.Property.UserProperty + 2  # frame property: a question's box
_PROPORTIONAL = QTextBlockFormat.LineHeightTypes.ProportionalHeight.value
_copy_ids = count(1)  # each Copy link's own href (the click finds its block by it)


def colours(dark: bool) -> ChatColours:
    return text_colours(dark)


def prose_block_format() -> QTextBlockFormat:
    fmt = QTextBlockFormat()
    fmt.setLineHeight(LINE_HEIGHT_PERCENT, _PROPORTIONAL)
    return fmt


def question_frame_format() -> QTextFrameFormat:
    """The user's question: a tinted rounded box (painted by ChatView) with room inside."""
    fmt = QTextFrameFormat()
    fmt.setPadding(12)
    fmt.setProperty(USER_QUESTION, True)
    return fmt


def style_inserted(
    document: QTextDocument, start: int, end: int, look: ChatColours, copy_href: str
) -> int:
    """Give the text between `start` and `end` the reading layout; returns the new end
    (a code block's header adds a line). `copy_href` + an id is each Copy link."""
    cursor = QTextCursor(document)
    block = document.findBlock(start)
    before = _visible_before(block)
    if is_code_block(before.blockFormat()):
        _style_code_line(cursor, before)  # code continued here: no longer its last line
    while block.isValid() and block.position() <= end:
        if block.blockFormat().hasProperty(CODE_HEADER):
            block = block.next()
            continue
        if is_code_block(block.blockFormat()):
            shown_before = _visible_before(block).blockFormat()
            if not is_code_block(shown_before) and not shown_before.hasProperty(CODE_HEADER):
                added, block = _insert_header(cursor, block, look, copy_href)
                end += added
            _style_code_line(cursor, block)
        else:
            _style_prose(cursor, block, look)
        block = block.next()
    return end


def style_tables_later(document: QTextDocument, start: int, end: int, look: ChatColours) -> None:
    """Tables inserted between `start` and `end` get their look once the edit ends: Qt
    makes the QTextTable objects of inserted Markdown only then (document.one_edit)."""
    span = QTextCursor(document)
    span.setPosition(start)
    span.setPosition(end, QTextCursor.MoveMode.KeepAnchor)  # moves with later edits
    if isinstance(document, SafeDocument) and document.edit_depth > 0:
        document.after_edit.append(partial(style_tables, document, span, look))
    else:
        style_tables(document, span, look)


def style_tables(document: QTextDocument, span: QTextCursor, look: ChatColours) -> None:
    tables: dict[int, QTextTable] = {}
    block = document.findBlock(span.selectionStart())
    while block.isValid() and block.position() <= span.selectionEnd():
        table = QTextCursor(block).currentTable()
        if table is not None:
            tables.setdefault(table.firstPosition(), table)
            _hide_empty_line_in_cell(table, block)
            _style_cell_line(table, block)
        block = block.next()
    for table in tables.values():
        _style_table(table, look)


def _style_cell_line(table: QTextTable, block: QTextBlock) -> None:
    """A cell's line: no margin above (Qt's import gives the first cell of a table that
    follows a code block a paragraph's), bold in the header row (which that cell lost)."""
    fmt = block.blockFormat()
    fmt.setLineHeight(TABLE_LINE_HEIGHT_PERCENT, _PROPORTIONAL)
    fmt.setTopMargin(0)
    cursor = QTextCursor(block)
    cursor.setBlockFormat(fmt)
    if table.cellAt(block.position()).row() == 0 and block.length() > 1:
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        bold = QTextCharFormat()
        bold.setFontWeight(QFont.Weight.Bold)
        cursor.mergeCharFormat(bold)


def _style_prose(cursor: QTextCursor, block: QTextBlock, look: ChatColours) -> None:
    cursor.setPosition(block.position())
    fmt = block.blockFormat()
    level = fmt.headingLevel()
    fmt.setLineHeight(HEADING_LINE_HEIGHT_PERCENT if level else LINE_HEIGHT_PERCENT, _PROPORTIONAL)
    quoted = fmt.hasProperty(QTextFormat.Property.BlockQuoteLevel)
    cursor.setBlockFormat(fmt)
    if level:
        _size_heading(cursor, block, level)
    fragments = block.begin()
    while not fragments.atEnd():
        fragment = fragments.fragment()
        char = fragment.charFormat()
        if char.fontFixedPitch() or quoted or char.isAnchor():
            char.clearProperty(QTextFormat.Property.FontPointSize)
            if char.fontFixedPitch():
                char.setBackground(QColor(look.code))
            if quoted:
                char.setForeground(QColor(look.secondary))
            if char.isAnchor():  # Qt's import paints links #0000ff, in the dark too
                char.setForeground(QColor(look.link))
            cursor.setPosition(fragment.position())
            cursor.setPosition(
                fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor
            )
            cursor.setCharFormat(char)
        fragments += 1


def _size_heading(cursor: QTextCursor, block: QTextBlock, level: int) -> None:
    """Headings a step or two above the body (Qt's import makes a level 1 heading twice
    the body's size: in a chat answer it shouted)."""
    cursor.setPosition(block.position())
    cursor.setPosition(block.position() + block.length() - 1, QTextCursor.MoveMode.KeepAnchor)
    size = QTextCharFormat()
    size.setProperty(QTextFormat.Property.FontSizeAdjustment, HEADING_SIZES.get(level, 0))
    cursor.mergeCharFormat(size)


def _style_code_line(cursor: QTextCursor, block: QTextBlock) -> None:
    fmt = block.blockFormat()
    fmt.setLineHeight(CODE_LINE_HEIGHT_PERCENT, _PROPORTIONAL)
    fmt.setLeftMargin(CODE_PAD_PX)
    fmt.setRightMargin(CODE_PAD_PX)
    fmt.setTopMargin(0)
    fmt.setNonBreakableLines(False)  # long lines wrap in the column, never widen the chat
    last = not is_code_block(_visible_after(block).blockFormat())
    fmt.setBottomMargin(2 * BOX_INSIDE_PX + 6 if last else 0)
    cursor.setPosition(block.position())
    cursor.setBlockFormat(fmt)
    cursor.setPosition(block.position() + block.length() - 1, QTextCursor.MoveMode.KeepAnchor)
    char = QTextCharFormat()
    char.setFontFixedPitch(True)
    char.setFontFamilies(["monospace"])
    cursor.mergeCharFormat(char)
    _clear_point_size(cursor, block)


def _visible_before(block: QTextBlock) -> QTextBlock:
    """The block shown before this one (Qt's hidden empty paragraphs skipped)."""
    before = block.previous()
    while before.isValid() and not before.isVisible() and not before.text():
        before = before.previous()
    return before


def _visible_after(block: QTextBlock) -> QTextBlock:
    after = block.next()
    while after.isValid() and not after.isVisible() and not after.text():
        after = after.next()
    return after


def _clear_point_size(cursor: QTextCursor, block: QTextBlock) -> None:
    """Qt's Markdown import gives code a fixed 9 pt font: let it follow the body (zoom)."""
    fragments = block.begin()
    while not fragments.atEnd():
        fragment = fragments.fragment()
        char = fragment.charFormat()
        if char.hasProperty(QTextFormat.Property.FontPointSize):
            char.clearProperty(QTextFormat.Property.FontPointSize)
            cursor.setPosition(fragment.position())
            cursor.setPosition(
                fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor
            )
            cursor.setCharFormat(char)
        fragments += 1


def _insert_header(
    cursor: QTextCursor, first: QTextBlock, look: ChatColours, copy_href: str
) -> tuple[int, QTextBlock]:
    """A line above the code block's first line: its language and a Copy link. Inserted
    as a new block at the code's start; returns its length and the code's first block."""
    language = first.blockFormat().property(QTextFormat.Property.BlockCodeLanguage)
    code_format = first.blockFormat()
    cursor.setPosition(first.position())
    cursor.insertBlock(code_format, first.charFormat())  # the code moves down a line
    cursor.movePosition(QTextCursor.MoveOperation.PreviousBlock)
    header = QTextBlockFormat()
    header.setProperty(CODE_HEADER, True)
    header.setLeftMargin(CODE_PAD_PX)
    header.setRightMargin(CODE_PAD_PX)
    header.setTopMargin(BOX_INSIDE_PX + 6)
    header.setBottomMargin(4)
    cursor.setBlockFormat(header)
    grey = QTextCharFormat()
    grey.setForeground(QColor(look.secondary))
    grey.setProperty(QTextFormat.Property.FontSizeAdjustment, -1)
    name = language if isinstance(language, str) and language else ""
    name = name or QCoreApplication.translate("ChatView", "code")
    link = QTextCharFormat(grey)
    link.setAnchor(True)
    link.setAnchorHref(f"{copy_href}/{next(_copy_ids)}")
    link.setForeground(QColor(look.link))
    copy = QCoreApplication.translate("ChatView", "Copy")
    cursor.insertText(name + "    ", grey)
    cursor.insertText(copy, link)
    return len(name) + 4 + len(copy) + 1, cursor.block().next()


def _hide_empty_line_in_cell(table: QTextTable, block: QTextBlock) -> None:
    """Qt's Markdown import leaves an empty line at the top of the first cell of a
    table that follows a code block."""
    after = block.next()
    if block.text() or not after.isValid() or not block.isVisible():
        return
    if table.cellAt(block.position()) == table.cellAt(after.position()):
        block.setVisible(False)
        block.document().markContentsDirty(block.position(), block.length())


def _style_table(table: QTextTable, look: ChatColours) -> None:
    fmt = table.format()
    fmt.setBorder(1)
    fmt.setBorderBrush(QBrush(QColor(look.rule)))
    fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    fmt.setBorderCollapse(True)
    fmt.setCellPadding(6)
    fmt.setCellSpacing(0)
    fmt.setTopMargin(10)
    fmt.setBottomMargin(6)
    fmt.setWidth(QTextLength(QTextLength.Type.VariableLength, 0))
    table.setFormat(fmt)
    for column in range(table.columns()):
        cell = table.cellAt(0, column)
        cell_format = cell.format().toTableCellFormat()
        cell_format.setBackground(QColor(look.table_header))
        cell.setFormat(cell_format)


def is_code_header(block: QTextBlock) -> bool:
    return block.blockFormat().hasProperty(CODE_HEADER)


THINKING_GREY = LIGHT.thinking  # (in the light theme; colours(dark).thinking in the dark)


def content_format(role: str) -> QTextFrameFormat:
    """The question in a tinted box (look.question_frame_format), the answer plain."""
    if role == "user":
        return question_frame_format()
    return QTextFrameFormat()


def who_format() -> QTextFrameFormat:
    """The line above a message that says who speaks; below it, room for the top of a
    code box an answer may open with (the header's own margin is not kept there)."""
    fmt = QTextFrameFormat()
    fmt.setTopMargin(18)
    fmt.setBottomMargin(BOX_INSIDE_PX + 2)
    return fmt


def thinking_format() -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setLeftMargin(8)
    fmt.setTopMargin(6)
    fmt.setPadding(4)
    fmt.setBorder(0)
    return fmt


def shrink(fmt: QTextCharFormat) -> None:
    """A step smaller than the body (0.8 of it, following the zoom)."""
    fmt.setProperty(QTextFormat.Property.FontSizeAdjustment, -1)


def thinking_char_format(dark: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(colours(dark).thinking))
    shrink(fmt)
    return fmt


def meta_format() -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setTopMargin(2)
    fmt.setBottomMargin(4)
    return fmt
