"""The chat as a reader sees it: the reading column, who speaks, code blocks with their
header, colours that read in both themes, and long code and lists that stream in pieces
yet look as written."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QGuiApplication

from client.ui.chat.render.chat_view import ChatView, ShownMessage
from client.ui.chat.render.look import is_code_header
from client.ui.common.colours import DARK, LIGHT, ChatColours
from client.ui.common.reading_style import BODY_PX, COLUMN_MAX_PX, reading_style

BACKGROUNDS = {"light": "#ffffff", "dark": "#1e2126"}  # the chat's (style.qss, style-dark.qss)


@pytest.fixture
def view(qtbot: Any) -> ChatView:
    chat = ChatView()
    qtbot.addWidget(chat)
    chat.resize(1400, 700)
    chat.show()
    return chat


def _visible(view: ChatView, key: int) -> list[tuple[str, float, float]]:
    """Each shown paragraph of the message: its text and its margins above and below."""
    content = view._blocks[key].content
    shown = []
    block = view.document().findBlock(content.firstPosition())
    while block.isValid() and block.position() < content.lastPosition():
        if block.isVisible():
            fmt = block.blockFormat()
            shown.append((block.text(), fmt.topMargin(), fmt.bottomMargin()))
        block = block.next()
    return shown


def _same_layout(final: list[Any], streamed: list[Any]) -> bool:
    """The same paragraphs with the same margins (but the last paragraph's: Qt's
    Markdown import spaces the last paragraph of a text on its own differently)."""
    return final[:-1] == streamed[:-1] and final[-1][0] == streamed[-1][0]


def _stream_in_steps(view: ChatView, text: str, step: int) -> int:
    """Stream `text` a few characters a frame; returns the longest tail re-rendered."""
    view.begin_stream(1)
    view.append_token(1, text[:step])
    longest = 0
    for at in range(step, len(text), step):
        view.append_token(1, text[at : at + step])
        view.flush()
        block = view._blocks[1]
        longest = max(longest, len(block.message.text) - block.rendered_settled)
    return longest


def test_a_long_code_block_streams_in_pieces_and_looks_as_written(
    view: ChatView, qtbot: Any
) -> None:
    code = "".join(f"    total = add(total, {i})  # step {i}\n" for i in range(300))
    text = f"Here:\n\n```python\ndef sum_all():\n{code}```\n\nDone."
    longest = _stream_in_steps(view, text, 7)
    assert longest < 200  # the code's last lines, not the whole block, every frame
    streamed = _visible(view, 1)
    view.end_stream(1, "complete")
    qtbot.waitUntil(lambda: not view._blocks[1].final_due, timeout=60_000)  # as written
    assert _same_layout(_visible(view, 1), streamed)  # nothing moves when it ends
    headers = [line for line, *_ in streamed if line == "python    Copy"]
    assert len(headers) == 1  # one header for the one block
    hrefs = view.document().toHtml().count(":copycode/")
    assert hrefs == 1
    header = view.document().find("python    Copy").block()
    assert is_code_header(header)
    href = header.begin().fragment().charFormat().anchorHref() or ""
    if not href:  # the link is the second fragment, after the language
        fragments = header.begin()
        fragments += 1
        href = fragments.fragment().charFormat().anchorHref()
    view._on_anchor(QUrl(href))
    assert QGuiApplication.clipboard().text() == f"def sum_all():\n{code.rstrip()}"


def test_a_long_list_streams_item_by_item_and_keeps_its_numbers(view: ChatView, qtbot: Any) -> None:
    items = "".join(f"{i}. Step {i} of the recipe, done with care\n" for i in range(1, 201))
    text = f"Steps:\n\n{items}\nEnd."
    longest = _stream_in_steps(view, text, 5)
    assert longest < 200
    streamed = _visible(view, 1)
    view.end_stream(1, "complete")
    qtbot.waitUntil(lambda: not view._blocks[1].final_due, timeout=60_000)
    assert _same_layout(_visible(view, 1), streamed)
    block = view.document().find("Step 200 of").block()
    assert block.textList() is not None and block.textList().itemText(block) == "200."


def test_who_speaks_is_above_the_message(view: ChatView) -> None:
    view.add_message(ShownMessage(1, "user", "What is 2 + 2?"))
    view.add_message(ShownMessage(2, "assistant", "Four."))
    text = view.toPlainText()
    assert text.index("You") < text.index("What is 2 + 2?") < text.index("Answer")
    assert text.index("Answer") < text.index("Four.") < text.rindex("Copy")


def test_the_reading_column_is_centred_and_follows_the_zoom(view: ChatView, qtbot: Any) -> None:
    style = reading_style()
    try:
        root = view.document().rootFrame().frameFormat()
        width = view.viewport().width()
        assert root.leftMargin() == root.rightMargin() == (width - COLUMN_MAX_PX) // 2
        assert view.font().pixelSize() == BODY_PX
        style.set_zoom(1.5)
        assert view.font().pixelSize() == round(BODY_PX * 1.5)
        wider = view.document().rootFrame().frameFormat()
        assert wider.leftMargin() == (width - round(COLUMN_MAX_PX * 1.5)) // 2
        view.resize(500, 400)  # narrow: the column takes the width, less small sides
        qtbot.waitUntil(lambda: view.viewport().width() < 500, timeout=60_000)
        assert view.document().rootFrame().frameFormat().leftMargin() == 16
    finally:
        style.reset_zoom()
    assert view.font().pixelSize() == BODY_PX


def _luminance(colour: str) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    q = QColor(colour)
    return 0.2126 * channel(q.red()) + 0.7152 * channel(q.green()) + 0.0722 * channel(q.blue())


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize(("theme", "look"), [("light", LIGHT), ("dark", DARK)])
def test_the_chats_own_colours_read_at_4_5_to_1(theme: str, look: ChatColours) -> None:
    background = BACKGROUNDS[theme]
    for text in (look.secondary, look.thinking, look.link):
        assert contrast(text, background) >= 4.5, (theme, text)
    # The code header's grey and link sit on the code box; labels never on the question.
    for text in (look.secondary, look.link):
        assert contrast(text, look.code) >= 4.5, (theme, text)
    body = "#000000" if theme == "light" else "#e6e6e6"  # the palette's text colour
    for box in (look.question, look.code, look.table_header):
        assert contrast(body, box) >= 4.5, (theme, box)


def test_a_theme_change_recolours_the_finished_messages(view: ChatView) -> None:
    from client.ui.common.theme import dark_palette

    view.add_message(ShownMessage(1, "assistant", "Done.", footer="0.1 s to first token"))

    def label_colour() -> str:
        found = view.document().find("0.1 s to first token")
        return str(found.charFormat().foreground().color().name())

    assert label_colour() == LIGHT.secondary
    view.setPalette(dark_palette())
    assert label_colour() == DARK.secondary


def _header_cells(view: ChatView, key: int) -> list[tuple[str, str, int, float]]:
    """Each header cell's text, background, weight and top on the page."""
    from PySide6.QtGui import QTextCursor

    content = view._blocks[key].content
    layout = view.document().documentLayout()
    cells = []
    block = view.document().findBlock(content.firstPosition())
    while block.isValid() and block.position() < content.lastPosition():
        table = QTextCursor(block).currentTable()
        if table is not None and block.isVisible() and block.text():
            cell = table.cellAt(block.position())
            if cell.row() == 0:
                background = cell.format().background()
                shown = background.color().name() if background.style().value else "none"
                weight = block.begin().fragment().charFormat().fontWeight()
                cells.append((block.text(), shown, weight, layout.blockBoundingRect(block).top()))
        block = block.next()
    return cells


@pytest.mark.parametrize("gap", ["\n\n", "\n"])
def test_a_table_after_code_has_a_tinted_bold_header_in_one_line(view: ChatView, gap: str) -> None:
    table = "| Name | Age |\n|---|---|\n| Ada | 36 |\n"
    view.add_message(ShownMessage(1, "assistant", f"Code:\n\n```python\nx = 1\n```{gap}{table}"))
    view.add_message(ShownMessage(2, "assistant", f"Plain:\n\n{table}"))
    for key in (1, 2):
        cells = _header_cells(view, key)
        assert [text for text, *_ in cells] == ["Name", "Age"]
        assert {shown for _, shown, _, _ in cells} == {LIGHT.table_header}, cells
        assert all(weight >= 700 for _, _, weight, _ in cells), cells  # bold, the first too
        assert len({top for *_, top in cells}) == 1, cells  # the first cell not lower
    # The tint shows on the chat's background (it was the code box's, 1.1:1 on white).
    assert contrast(LIGHT.table_header, BACKGROUNDS["light"]) >= 1.2
    assert contrast(DARK.table_header, BACKGROUNDS["dark"]) >= 1.2


def test_the_boxes_are_painted_wherever_the_chat_is_scrolled(view: ChatView) -> None:
    """Each scroll position paints the question's and the code's boxes in view (the
    layout's hitTest, asked for the first block on screen, answered the document's end
    when the top fell between two messages: a streamed answer lost its boxes)."""
    view.resize(700, 300)
    view.add_message(ShownMessage(1, "user", "A question"))
    code = "".join(f"x{i} = {i}\n" for i in range(12))
    view.add_message(ShownMessage(2, "assistant", f"Intro.\n\n```python\n{code}```\n\nAfter."))
    layout = view.document().documentLayout()
    header = view.document().find("python    Copy").block()
    code_top = layout.blockBoundingRect(header).top()
    bar = view.verticalScrollBar()
    assert bar.maximum() > code_top  # the code can reach the top of the view
    for scroll in range(0, int(code_top) + 60, 3):
        bar.setValue(scroll)
        image = view.viewport().grab().toImage()
        y = round(code_top + 60 - bar.value())  # a line inside the code's box
        x = 8 + round(view.document().rootFrame().frameFormat().leftMargin())
        if 0 <= y < image.height():
            assert image.pixelColor(x, y).name() == LIGHT.code, (scroll, y)
