"""How the chat's text is laid out: frame and character formats, fonts, and where a
paragraph still being written may be cut (pure helpers for client.ui.chat.render.chat_view)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QTextCharFormat, QTextFormat, QTextFrameFormat

from client.ui.chat.render.look import LIGHT, colours, question_frame_format

SOFT_CUT_CHARS = 1000  # a long streaming paragraph is cut about this often (see soft_cut)
THINKING_GREY = LIGHT.thinking  # (in the light theme; colours(dark).thinking in the dark)


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
    """The question in a tinted box (look.question_frame_format), the answer plain."""
    if role == "user":
        return question_frame_format()
    fmt = QTextFrameFormat()
    fmt.setTopMargin(2)
    return fmt


def who_format() -> QTextFrameFormat:
    """The line above a message that says who speaks."""
    fmt = QTextFrameFormat()
    fmt.setTopMargin(18)
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
