"""A message's text in the chat document: rendered in full, or its streaming tail.

A flush re-renders only the unsettled tail of the streaming message (the text after
its last settled point: safe_markdown.SettledPoint); the settled text goes into chunk
frames of bounded size, held in groups of CHUNKS_PER_GROUP, so appending costs time in
proportion to the new text and Qt's layout and paint walk a few frames, not one per
1,500 characters of the answer. The user's own
words are inserted verbatim; model output is Markdown with HTML off (safe_markdown).
An answer with tool calls is its words cut where each call was made, with the call's
card between the parts (tool_cards.py); while it streams, only the text after the last
card (its segment, from `segment_at`) is rendered again.
"""

from __future__ import annotations

from PySide6.QtGui import (
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrame,
    QTextFrameFormat,
)

from client.ui.chat.render.look import (
    ChatColours,
    prose_block_format,
    style_inserted,
    style_tables_later,
)
from client.ui.chat.render.markdown.document import (
    clear_frame,
    hide,
    hide_empty_blocks_before_frames,
)
from client.ui.chat.render.markdown.safe_markdown import SettledPoint, insert_markdown
from client.ui.chat.render.messages.blocks import MessageBlock
from client.ui.chat.render.messages.tool_cards import card_link, insert_card

CHUNK_CHARS = 1500  # a streaming answer's settled text per chunk frame (see render_tail)
CHUNKS_PER_GROUP = 16  # chunk frames per group frame (see _new_chunk)


def render_full(
    document: QTextDocument, block: MessageBlock, scheme: str, look: ChatColours
) -> None:
    cursor = clear_frame(document, block.content)
    text = block.message.text
    block.last_card, block.segment_at = None, 0
    if block.message.role == "user":
        cursor.setBlockFormat(prose_block_format())  # every line of it, as inserted
        cursor.insertText(text, QTextCharFormat())  # the user's own words, verbatim
    elif block.message.tool_calls:
        text = _insert_with_cards(document, cursor, block, scheme, look)
    else:
        _insert_markdown(document, cursor, text, scheme, look)
    block.settled = SettledPoint()
    block.rendered_settled = block.settled.update(text)
    block.rendered_fence = block.settled.fence
    block.tail_start = -1


def _insert_with_cards(
    document: QTextDocument, cursor: QTextCursor, block: MessageBlock, scheme: str,
    look: ChatColours,
) -> str:  # fmt: skip
    """The answer's words with each tool call's card where it was made; returns the
    words after the last card (the segment a stream goes on in)."""
    text, message = block.message.text, block.message
    live = message.state == "streaming"
    link = card_link(scheme, message.key, look)
    start = 0
    for call in sorted(message.tool_calls, key=lambda c: (c.round, c.position)):
        at = min(max(call.at, start), len(text))
        if text[start:at].strip():
            _insert_markdown(document, cursor, text[start:at], scheme, look)
        start = at
        is_open = (call.round, call.position) in block.cards_open
        block.last_card = insert_card(cursor, call, is_open, live, link, look)
    block.segment_at = start
    tail = text[start:]
    _insert_markdown(document, cursor, tail, scheme, look)
    hide_empty_blocks_before_frames(document, block.content)
    if not tail.strip() and not block.streaming:
        hide(document, cursor.block())  # no blank line under the last card
    return tail


def render_tail(
    document: QTextDocument, block: MessageBlock, scheme: str, look: ChatColours
) -> None:
    text = block.message.text[block.segment_at :]  # after the last tool card, if any
    settled, fence = block.settled.update(text), block.settled.fence
    if block.tail_start >= 0:
        if settled <= block.rendered_settled:
            settled, fence = block.rendered_settled, block.rendered_fence
        if not fence:  # never cut a line of code as if it were prose
            settled = soft_cut(text, settled)
    if block.tail_start < 0:
        # First flush after the plain first chunk: render everything once.
        after_card = block.last_card.lastPosition() + 1 if block.last_card else None
        cursor = clear_frame(document, block.content, after_card)
        block.rendered_settled, block.rendered_fence = 0, ""
        block.chunk = block.group = None
    else:
        cursor = clear_frame(document, block.content, block.tail_start)
    piece = text[block.rendered_settled : settled]
    if piece.strip():
        # Settled text goes into chunk frames of bounded size, so a flush's relayout
        # walks a few chunks and the tail, not every paragraph so far.
        chunk, group = block.chunk, block.group
        if (
            chunk is None
            or group is None
            or chunk.lastPosition() - chunk.firstPosition() > CHUNK_CHARS
        ):
            chunk, group = _new_chunk(document, block, cursor)
        chunk_cursor = chunk.lastCursorPosition()
        if chunk_cursor.block().length() > 1:
            chunk_cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        piece = _continued(block.rendered_fence, piece)
        _insert_markdown(document, chunk_cursor, piece, scheme, look)
        cursor.setPosition(group.lastPosition() + 1)  # the block after the group
    if settled > block.rendered_settled:  # (a blank line alone adds nothing)
        block.rendered_settled, block.rendered_fence = settled, fence
    block.tail_start = cursor.position()
    tail = _continued(block.rendered_fence, text[block.rendered_settled :])
    _insert_markdown(document, cursor, tail, scheme, look)


def _new_chunk(
    document: QTextDocument, block: MessageBlock, tail: QTextCursor
) -> tuple[QTextFrame, QTextFrame]:
    """A chunk frame for the settled text that follows, in a group of at most
    CHUNKS_PER_GROUP: Qt's layout, hit test and paint walk the child frames of a frame,
    so the answer holds a few groups and a group a few chunks, however long it grows."""
    if block.group is None or block.group_chunks >= CHUNKS_PER_GROUP:
        block.group = tail.insertFrame(QTextFrameFormat())
        block.group_chunks = 0
        hide_empty_blocks_before_frames(document, block.content)
    group = block.group
    block.chunk = group.lastCursorPosition().insertFrame(QTextFrameFormat())
    block.group_chunks += 1
    hide_empty_blocks_before_frames(document, group)
    last = document.findBlock(group.lastPosition())  # Qt's paragraph after the chunk
    if last.isVisible() and not last.text():
        hide(document, last)
    return block.chunk, group


def _continued(fence: str, text: str) -> str:
    """A piece of text that starts inside a code block: that block, continued (the
    piece before it ended between two lines of code, so the lines join up)."""
    return f"{fence}\n{text}" if fence else text


def _insert_markdown(
    document: QTextDocument, cursor: QTextCursor, text: str, scheme: str, look: ChatColours
) -> None:
    """Markdown at an empty block, as the final render will show it. Qt keeps that
    block empty when the text starts with a list, heading or code block, and text
    that ends in a blank line leaves an empty block (an empty list item after a
    list): both would show while streaming and vanish at the end."""
    first = cursor.block()
    start = cursor.position()
    insert_markdown(cursor, text.rstrip("\n"), scheme)
    if not first.text() and first.next().isValid() and first.next().position() <= cursor.position():
        hide(document, first)
    end = style_inserted(document, start, cursor.position(), look, f"{scheme}:copycode")
    if "|" in text:  # perhaps a table
        style_tables_later(document, start, end, look)


SOFT_CUT_CHARS = 1000  # a long streaming paragraph is cut about this often (see soft_cut)


def soft_cut(text: str, start: int) -> int:
    """Where a long paragraph still being written may be cut, or `start`.

    Qt lays out a changed paragraph in full, so re-rendering a paragraph of 20,000
    characters on every frame costs ~10 ms and grows with the answer. While streaming,
    plain prose with no blank line is cut after a sentence every ~SOFT_CUT_CHARS: the
    text before the cut becomes a paragraph of its own (one extra line break until the
    answer ends; end_stream renders the whole text as written). Only cut where the head
    closes every inline marker, so no emphasis, code span or link is split.
    """
    tail = text[start:]
    if len(tail) < 2 * SOFT_CUT_CHARS or "\n" in tail or not tail[:1].isalpha():
        return start
    end = len(tail) - SOFT_CUT_CHARS
    for _ in range(8):
        cut = tail.rfind(". ", 0, end)
        if cut <= 0:
            return start
        rest = tail[cut + 1 :]
        after = cut + 1 + len(rest) - len(rest.lstrip(" "))  # the next sentence's start
        if tail[after : after + 1].isupper() and closes_inline_markers(tail[:after]):
            return start + after
        end = cut
    return start


def closes_inline_markers(text: str) -> bool:
    return (
        all(text.count(marker) % 2 == 0 for marker in ("`", "*", "_", "~"))
        and text.count("[") == text.count("]")
        and text.count("(") == text.count(")")
        and "<" not in text
    )
