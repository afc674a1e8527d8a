"""Edits on the chat's QTextDocument that know nothing of messages (helpers for
client.ui.chat.render.chat_view): one layout pass for a group of edits, clearing a frame, hiding
the empty paragraphs Qt keeps around frames, and reading code blocks back."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtGui import (
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrame,
)

from client.ui.chat.render.markdown.safe_markdown import SafeDocument, is_code_block


@contextmanager
def one_edit(document: QTextDocument) -> Iterator[None]:
    """Group edits so the layout hears of them once: without this every edit
    re-walks the frames of the whole conversation."""
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    safe = document if isinstance(document, SafeDocument) else None
    if safe is not None:
        safe.edit_depth += 1
    try:
        yield
    finally:
        cursor.endEditBlock()
        if safe is not None:
            safe.edit_depth -= 1
            if not safe.edit_depth and safe.after_edit:
                _run_after_edit(safe)


def _run_after_edit(document: SafeDocument) -> None:
    """What needed the edit's end (Qt makes the table objects of inserted Markdown
    only then), as one edit of its own."""
    due, document.after_edit = document.after_edit, []
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    try:
        for step in due:
            step()
    finally:
        cursor.endEditBlock()


def clear_frame(
    document: QTextDocument, frame: QTextFrame, start: int | None = None
) -> QTextCursor:
    """Remove the frame's text (from `start` on) and return a cursor there, with plain
    formats; a paragraph hidden as empty is shown again, since it is in use."""
    cursor = QTextCursor(document)
    cursor.setPosition(frame.firstPosition() if start is None else start)
    cursor.setPosition(frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
    cursor.removeSelectedText()
    cursor.setBlockFormat(QTextBlockFormat())
    cursor.setCharFormat(QTextCharFormat())
    if not cursor.block().isVisible():
        cursor.block().setVisible(True)
        document.markContentsDirty(cursor.block().position(), 1)
    return cursor


def hide(document: QTextDocument, block: QTextBlock) -> None:
    block.setVisible(False)
    document.markContentsDirty(block.position(), block.length())


def hide_empty_paragraphs_around(document: QTextDocument, page: QTextFrame) -> None:
    """Qt keeps an empty paragraph before and after every frame. At the top level
    (around pages) and at the top of a page they would show as a blank band above
    the first message and an uneven gap every page; only the ones between messages
    of a page are the usual spacing."""
    blocks = [document.findBlock(page.firstPosition())]  # the top of the page
    iterator = document.rootFrame().begin()
    while not iterator.atEnd():
        if iterator.currentFrame() is None:
            blocks.append(iterator.currentBlock())
        iterator += 1
    for block in blocks:
        if block.isValid() and block.isVisible() and not block.text():
            hide(document, block)


def hide_empty_blocks_before_frames(document: QTextDocument, frame: QTextFrame) -> None:
    """Qt keeps a paragraph before every frame; before a chunk frame it is empty and
    would show as a blank line above a streaming answer until its final render."""
    iterator = frame.begin()
    previous = None
    while not iterator.atEnd():
        child = iterator.currentFrame()
        if child is not None and previous is not None and previous.isVisible():
            if not previous.text():
                hide(document, previous)
        previous = iterator.currentBlock() if child is None else None
        iterator += 1


def hide_empty_blocks_before(
    document: QTextDocument, frames: tuple[QTextFrame | None, ...]
) -> None:
    """Hide Qt's empty paragraph before each of a new message's frames: the frames' own
    margins space them, not a blank line each. Only for frames inserted in the edit
    under way, which lays them out anyway (no markContentsDirty: 0.2 ms a block)."""
    for frame in frames:
        if frame is not None:
            block = document.findBlock(frame.firstPosition() - 1)
            if block.isVisible() and not block.text():
                block.setVisible(False)


def code_runs(document: QTextDocument, frame: QTextFrame) -> list[tuple[int, str]]:
    """The code blocks in `frame`: (position of the run's last line, its text)."""
    runs: list[tuple[int, str]] = []
    lines: list[str] = []
    block = document.findBlock(frame.firstPosition())
    while block.isValid() and block.position() < frame.lastPosition():
        if is_code_block(block.blockFormat()):
            lines.append(block.text())
        elif lines:
            runs.append((block.previous().position(), "\n".join(lines)))
            lines = []
        block = block.next()
    if lines:
        runs.append((document.findBlock(frame.lastPosition()).position(), "\n".join(lines)))
    return runs


def code_block_text_at(document: QTextDocument, position: int) -> str:
    """The whole code block around `position` (its consecutive code lines)."""
    start = document.findBlock(position)
    while _is_code(_shown_before(start)):
        start = _shown_before(start)
    lines = []
    while _is_code(start):
        lines.append(start.text())
        start = _shown_after(start)
    return "\n".join(lines)


def _is_code(block: QTextBlock) -> bool:
    return block.isValid() and is_code_block(block.blockFormat())


def _shown_before(block: QTextBlock) -> QTextBlock:
    """The block before, past Qt's hidden empty paragraphs (a streamed code block runs
    on across the frames its pieces went into)."""
    block = block.previous()
    while block.isValid() and not block.isVisible() and not block.text():
        block = block.previous()
    return block


def _shown_after(block: QTextBlock) -> QTextBlock:
    block = block.next()
    while block.isValid() and not block.isVisible() and not block.text():
        block = block.next()
    return block


def code_for_copy_link(document: QTextDocument, href: str) -> str:
    """The code under the code header whose Copy link is `href` (looked up on a click)."""
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            if fragments.fragment().charFormat().anchorHref() == href:
                return code_block_text_at(document, block.next().position())
            fragments += 1
        block = block.next()
    return ""
