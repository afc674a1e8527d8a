"""How the chat's text is laid out: frame and character formats, fonts, and where a
paragraph still being written may be cut (pure helpers for client.ui.chat.render.chat_view)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QTextCharFormat, QTextFrameFormat

from client.ui.common.colours import LIGHT, text_colours
from client.ui.common.theme import is_dark

SOFT_CUT_CHARS = 1000  # a long streaming paragraph is cut about this often (see soft_cut)
THINKING_GREY = LIGHT.thinking  # (DARK.thinking in a dark window)
THINKING_SCALE = 0.88  # of the chat's font size: reasoning reads as a side note


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


def content_format(role: str) -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setPadding(8)
    fmt.setTopMargin(10)
    if role == "user":
        fmt.setBackground(QColor(59, 111, 182, 28))  # a blue tint on light and dark alike
    return fmt


def thinking_format() -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setLeftMargin(8)
    fmt.setTopMargin(10)
    fmt.setPadding(4)
    fmt.setBorder(0)
    return fmt


def shrink(fmt: QTextCharFormat, point_size: float) -> None:
    if point_size > 0:
        fmt.setFontPointSize(point_size * THINKING_SCALE)


def thinking_char_format(point_size: float) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(text_colours(is_dark()).thinking))
    shrink(fmt, point_size)
    return fmt


def meta_format() -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setLeftMargin(8)
    fmt.setBottomMargin(6)
    return fmt
