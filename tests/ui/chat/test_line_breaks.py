"""A poem's single line breaks are kept (Markdown would join its lines); code blocks
and tables render exactly as before."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QTextCursor, QTextDocument

from client.ui.chat.render.markdown.safe_markdown import (
    MARKDOWN_FEATURES,
    SafeDocument,
    insert_markdown,
)

POEM = "Roses are red,\nviolets are blue,\nsugar is sweet.\n\nAnd so\nare you."
CODE = "```python\ndef f(x):\n    return x\n```"
TABLE = "| fruit | colour |\n|---|---|\n| apple | red |\n| lime | green |"


def _rendered(text: str) -> QTextDocument:
    document = SafeDocument()
    insert_markdown(QTextCursor(document), text)
    return document


def _plain_qt(text: str) -> QTextDocument:
    document = QTextDocument()
    document.setMarkdown(text, MARKDOWN_FEATURES)
    return document


def _lines(document: QTextDocument) -> list[str]:
    return document.toPlainText().replace("\u2028", "\n").split("\n")


def test_a_poem_keeps_its_lines(qapp: Any) -> None:
    lines = [line.strip() for line in _lines(_rendered(POEM)) if line.strip()]
    assert lines == [
        "Roses are red,",
        "violets are blue,",
        "sugar is sweet.",
        "And so",
        "are you.",
    ]


def test_code_and_tables_are_unchanged(qapp: Any) -> None:
    for text in (CODE, TABLE, f"Intro line\n\n{TABLE}\n\n{CODE}"):
        assert _rendered(text).toMarkdown() == _plain_qt(text).toMarkdown(), text
        assert _rendered(text).toPlainText() == _plain_qt(text).toPlainText(), text


def test_lists_headings_and_rules_are_unchanged(qapp: Any) -> None:
    text = "Title\n=====\n\n- one\n- two\n\n# Head\n\n---\nend"
    assert _rendered(text).toPlainText() == _plain_qt(text).toPlainText()
