"""Syntax colours for the code blocks of a finished answer, from Pygments.

The chat is one QTextDocument of many messages, so a QSyntaxHighlighter (per document,
re-run on every change, streaming included) would colour everything on every chunk.
Instead a finished answer's code blocks get Pygments' token colours once, as character
formats merged over the text: the text itself is never changed (Copy gives it verbatim).
The language is the fence's info string (```python), else Pygments' guess.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from PySide6.QtGui import (
    QColor,
    QFont,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
)

from client.ui.chat.render.markdown.safe_markdown import is_code_block
from client.ui.common.colours import readable

if TYPE_CHECKING:  # pygments loads with the first code block (~30 ms the first frame skips)
    from pygments.lexer import Lexer
    from pygments.token import _TokenType

LIGHT_STYLE, DARK_STYLE = "default", "monokai"
GUESS_LIMIT_CHARS = 20_000  # no language given: guess from at most this much code


def code_blocks(document: QTextDocument, frame: QTextFrame) -> list[tuple[QTextBlock, str, str]]:
    """Each run of code lines in `frame`: (its first block, its text, its language)."""
    runs: list[tuple[QTextBlock, str, str]] = []
    first: QTextBlock | None = None
    lines: list[str] = []
    block = document.findBlock(frame.firstPosition())
    while block.isValid() and block.position() <= frame.lastPosition():
        if is_code_block(block.blockFormat()):
            if first is None:
                first = block
            lines.append(block.text())
        elif first is not None:
            runs.append((first, "\n".join(lines), _language(first)))
            first, lines = None, []
        block = block.next()
    if first is not None:
        runs.append((first, "\n".join(lines), _language(first)))
    return runs


def _language(block: QTextBlock) -> str:
    value = block.blockFormat().property(QTextFormat.Property.BlockCodeLanguage)
    return value if isinstance(value, str) else ""


def lexer_for(language: str, code: str) -> Lexer:
    from pygments.lexers import get_lexer_by_name, guess_lexer
    from pygments.lexers.special import TextLexer
    from pygments.util import ClassNotFound

    try:
        if language:
            return get_lexer_by_name(language)
        if code.strip() and len(code) <= GUESS_LIMIT_CHARS:
            return guess_lexer(code)
    except ClassNotFound:
        pass
    return TextLexer()


@lru_cache(maxsize=256)
def _token_format(style_name: str, token: _TokenType) -> QTextCharFormat | None:
    from pygments.styles import get_style_by_name

    style = get_style_by_name(style_name)
    spec = style.style_for_token(token)
    if not (spec["color"] or spec["bold"] or spec["italic"]):
        return None
    fmt = QTextCharFormat()
    if spec["color"]:
        # Held to 4.5:1 on the style's own background (monokai's error pink is 3.4:1).
        background = QColor(style.background_color)
        fmt.setForeground(readable(QColor(f"#{spec['color']}"), background))
    if spec["bold"]:
        fmt.setFontWeight(QFont.Weight.Bold)
    if spec["italic"]:
        fmt.setFontItalic(True)
    return fmt


def highlight(document: QTextDocument, frame: QTextFrame, dark: bool = False) -> int:
    """Colour every code block in `frame`; returns how many spans were coloured."""
    style_name = DARK_STYLE if dark else LIGHT_STYLE
    coloured = 0
    cursor = QTextCursor(document)
    for first, code, language in code_blocks(document, frame):
        # Consecutive blocks: the text's offset i is at first.position() + i (each
        # block separator is one position, as "\n" is one character).
        start = first.position()
        for offset, token, value in lexer_for(language, code).get_tokens_unprocessed(code):
            fmt = _token_format(style_name, token)
            if fmt is None or not value.strip():
                continue
            cursor.setPosition(start + offset)
            cursor.setPosition(start + offset + len(value), QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(fmt)
            coloured += 1
    return coloured
