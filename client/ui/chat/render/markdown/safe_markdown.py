"""Markdown from a model, rendered with every door closed.

Model output is never HTML and never loads a resource: raw HTML is off in the
Markdown dialect (it shows as literal text), the document refuses every resource
request, images become a plain "[image: URL]" text, and links only carry an href
that the chat view opens on click when it is http(s).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import (
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

_Features = QTextDocument.MarkdownFeature
# GitHub dialect (tables, strikethrough, autolinks, task lists) with both HTML flags set.
MARKDOWN_FEATURES = _Features(
    _Features.MarkdownDialectGitHub.value | _Features.MarkdownNoHTML.value
)

WEB_SCHEMES = frozenset({"http", "https"})


class SafeDocument(QTextDocument):
    """A QTextDocument that never loads anything: not files, not the network, not qrc."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.refused_resources: list[str] = []  # what was asked for (tests read this)
        self.edit_depth = 0  # nested one_edit blocks open now (ui.chat.render.markdown.document)
        # What waits for the edit's end: the look of inserted tables (render/look.py).
        self.after_edit: list[Callable[[], None]] = []

    def loadResource(self, kind: int, name: QUrl | str) -> object:
        self.refused_resources.append(name.toString() if isinstance(name, QUrl) else name)
        return None


def insert_markdown(cursor: QTextCursor, text: str, forbidden_scheme: str = "") -> None:
    """Insert Markdown at the cursor, then neutralise what Markdown can still smuggle in."""
    start = cursor.position()
    cursor.insertMarkdown(keep_line_breaks(text), MARKDOWN_FEATURES)
    keep_opening_code_line(cursor.document(), start, text)
    neutralise(cursor.document(), start, cursor.position(), forbidden_scheme)


FENCE = re.compile(r" {0,3}(```|~~~)")
RULE_OR_UNDERLINE = re.compile(r" {0,3}([-=*_])[ \t]*(\1[ \t]*)*$")  # ---, ===, ***


def keep_line_breaks(text: str) -> str:
    """A single line break in prose stays a line break (a poem, an address, a recipe's
    steps): Markdown joins such lines into one. Each prose line followed by another gets
    a hard break ("  "); code (fenced or indented), tables, headings, rules and list
    items stay exactly as written."""
    lines = text.split("\n")
    fence = ""
    for index, line in enumerate(lines[:-1]):
        opening = FENCE.match(line)
        if fence:
            if opening and line.strip().startswith(fence):
                fence = ""
            continue
        if opening:
            fence = opening.group(1)
            continue
        following = lines[index + 1]
        if _prose(line) and _prose(following) and not LIST_ITEM.match(following.lstrip()):
            if not line.endswith(("  ", "\\")):
                lines[index] = line + "  "
    return "\n".join(lines)


def _prose(line: str) -> bool:
    """A line of a paragraph: not blank, code, a table row, a heading, a rule or a fence."""
    stripped = line.strip()
    return not (
        not stripped
        or line.startswith(("    ", "\t"))
        or stripped.startswith("|")
        or HEADING.match(stripped)
        or RULE_OR_UNDERLINE.match(line)
        or FENCE.match(line)
    )


def keep_opening_code_line(document: QTextDocument, start: int, text: str) -> None:
    """Qt merges the first inserted block into the cursor's block and drops its block
    format: Markdown that opens with a code fence lost its first code line from the
    block (shown as prose, left out by Copy code, not coloured). Give it back the
    fence's format, read from a three-line probe (cheap for any length)."""
    lines = text.lstrip(" ").split("\n", 2)
    if not lines[0].startswith(("```", "~~~")):
        return
    first = document.findBlock(start)
    if is_code_block(first.blockFormat()):
        return
    body = lines[1] if len(lines) > 1 else ""  # a fence alone: its block is still code
    probe = QTextDocument()
    probe.setMarkdown(f"{lines[0]}\n{body}\n{lines[0][:3]}", MARKDOWN_FEATURES)
    opening = probe.begin().blockFormat()
    if is_code_block(opening):
        QTextCursor(first).setBlockFormat(opening)


def neutralise(document: QTextDocument, start: int, end: int, forbidden_scheme: str = "") -> None:
    """Replace images by inert text and drop links that use the ui's own action scheme."""
    replacements: list[tuple[int, int, str]] = []
    unlinks: list[tuple[int, int]] = []
    block = document.findBlock(start)
    while block.isValid() and block.position() <= end:
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            fmt = fragment.charFormat()
            if fmt.isImageFormat():
                url = fmt.toImageFormat().name()
                replacements.append((fragment.position(), fragment.length(), f"[image: {url}]"))
            elif (
                fmt.isAnchor()
                and forbidden_scheme
                and _scheme(fmt.anchorHref()) == forbidden_scheme
            ):
                unlinks.append((fragment.position(), fragment.length()))
            fragments += 1
        block = block.next()
    edit = QTextCursor(document)
    for position, length in unlinks:
        edit.setPosition(position)
        edit.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        plain = QTextCharFormat(edit.charFormat())
        plain.setAnchor(False)
        plain.setAnchorHref("")
        edit.setCharFormat(plain)
    # Back to front, so earlier positions stay valid.
    for position, length, label in reversed(replacements):
        edit.setPosition(position)
        edit.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        edit.insertText(label, QTextCharFormat())


def _scheme(href: str) -> str:
    return QUrl(href).scheme().lower()


def is_code_block(block_format: QTextFormat) -> bool:
    return block_format.hasProperty(
        QTextFormat.Property.BlockCodeFence
    ) or block_format.hasProperty(QTextFormat.Property.BlockCodeLanguage)


LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])[ \t]")  # at the line's start: a top-level item
HEADING = re.compile(r"#{1,6}[ \t]")


class SettledPoint:
    """Where a streaming Markdown text can be cut: the end of the last blank line
    outside a code fence, after a heading, before the next item of a list, or, inside a
    long code block (a fence at the line's start), between two lines of code: cut
    there, both pieces render as the whole does (Qt's import keeps a list's numbering).
    What comes after it may still change meaning (an open fence, a table being built,
    a list item). Scans only the new complete lines.

    `fence` is the code block's opening line when the cut lies inside one: the text
    after the cut is rendered with it in front, as the same code block continued."""

    def __init__(self) -> None:
        self.settled = 0
        self.fence = ""
        self._scanned = 0
        self._open = ""  # the fence open at _scanned, "" outside one
        self._top_level = False  # that fence starts its line (not inside a list item)
        self._code_before = False  # the line before was a line of code, not blank
        self._in_list = False  # the line before belongs to a list item

    def update(self, text: str) -> int:
        while True:
            end = text.find("\n", self._scanned)
            if end < 0:
                return self.settled
            start, line = self._scanned, text[self._scanned : end]
            stripped = line.strip()
            self._scanned = end + 1
            if stripped.startswith(("```", "~~~")):
                self._in_list = False
                self._open = "" if self._open else stripped
                self._top_level = line[:1] not in (" ", "\t")
                self._code_before = False
            elif self._open:
                # Between two lines of code: neither piece starts or ends blank.
                if stripped and self._code_before and self._top_level:
                    self.settled, self.fence = start, self._open
                self._code_before = bool(stripped)
            elif not stripped:
                self.settled, self.fence, self._in_list = self._scanned, "", False
            else:
                self._prose_line(line, start)

    def _prose_line(self, line: str, start: int) -> None:
        item = LIST_ITEM.match(line) is not None
        if item and self._in_list:
            self.settled, self.fence = start, ""  # before the next item
        elif HEADING.match(line):
            self.settled, self.fence = self._scanned, ""  # a heading is one line
        self._in_list = item or (self._in_list and line[:1] in (" ", "\t"))
