"""The chat view: streaming paint rules, Markdown as it streams, hostile output inert."""

from __future__ import annotations

import base64
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QFontInfo, QGuiApplication, QTextCursor

from client.ui.chat.render.chat_view import ChatView, ShownMessage
from client.ui.chat.render.markdown.safe_markdown import SettledPoint, is_code_block

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@pytest.fixture
def view(qtbot: Any) -> ChatView:
    chat = ChatView()
    qtbot.addWidget(chat)
    chat.resize(640, 480)
    chat.show()
    return chat


def _images_in(view: ChatView) -> int:
    count = 0
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            count += it.fragment().charFormat().isImageFormat()
            it += 1
        block = block.next()
    return count


def _hrefs(view: ChatView) -> list[str]:
    hrefs = []
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if it.fragment().charFormat().isAnchor():
                hrefs.append(it.fragment().charFormat().anchorHref())
            it += 1
        block = block.next()
    return hrefs


def _stream(view: ChatView, key: int, chunks: list[str]) -> None:
    view.begin_stream(key)
    for chunk in chunks:
        view.append_token(key, chunk)
    view.flush()


def test_first_chunk_painted_now_later_chunks_coalesced(view: ChatView, qtbot: Any) -> None:
    view.begin_stream(1)
    assert view.append_token(1, "Hello") is True
    assert "Hello" in view.toPlainText()  # in the document at once, no timer needed
    for word in [" a", " b", " c", " d"]:
        assert view.append_token(1, word) is False
    assert view.flush_count == 0
    qtbot.waitUntil(lambda: view.flush_count == 1, timeout=60_000)
    assert "Hello a b c d" in view.toPlainText()


def test_streamed_chunks_are_kept_until_the_frame_and_the_message_is_whole_meanwhile(
    view: ChatView,
) -> None:
    """A chunk after the first is only kept (a list append, not a copy of the answer so
    far); the message as the view reports it is whole at any moment, and only a message
    streaming with its first chunk painted takes chunks that way."""
    assert view.append_streamed(7, "x") is False  # no such message
    view.begin_stream(7)
    assert view.append_streamed(7, "early") is False  # its first chunk is not painted yet
    assert view.append_token(7, "One") is True
    for word in [" two", " three"]:
        assert view.append_streamed(7, word) is True
    assert view.message(7).text == "One two three"  # joined when asked, before the frame
    assert view.append_streamed(7, " four") is True
    view.flush()
    assert "One two three four" in view.toPlainText()
    view.end_stream(7, "complete")
    assert view.append_streamed(7, " five") is False  # it ended: nothing kept
    assert view.message(7).text == "One two three four"


def test_markdown_renders_while_streaming(view: ChatView) -> None:
    _stream(
        view,
        1,
        [
            "# Head",
            "ing\n\nSome *emph*",
            "asis\n\n- one\n- two\n\n",
            "```py\nx = 1\n",
            "```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        ],
    )
    text = view.toPlainText()
    assert "Heading" in text and "# Heading" not in text
    assert "*emph" not in text and "emphasis" in text
    assert "- one" not in text and "one" in text
    assert "```" not in text
    frames = view.document().rootFrame().childFrames()
    assert any(frame.childFrames() for frame in frames)  # the table: a frame in the message
    code = _block_with(view, "x = 1")
    assert is_code_block(code.blockFormat())
    assert QFontInfo(code.charFormat().font()).fixedPitch() or "mono" in (
        code.charFormat().font().family().lower()
    )


def _block_with(view: ChatView, text: str) -> Any:
    block = view.document().begin()
    while block.isValid():
        if block.text() == text:
            cursor = QTextCursor(block)
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
            block_with_format = cursor.block()
            return _BlockView(block_with_format, cursor.charFormat())
        block = block.next()
    raise AssertionError(f"no block {text!r}")


class _BlockView:
    def __init__(self, block: Any, char_format: Any) -> None:
        self._block = block
        self._char_format = char_format

    def blockFormat(self) -> Any:
        return self._block.blockFormat()

    def charFormat(self) -> Any:
        return self._char_format


def test_html_is_shown_literally(view: ChatView) -> None:
    hostile = '<b>x</b> <script>alert(1)</script> <img src="x.png"> <a href="file:///etc">f</a>'
    _stream(view, 1, [hostile])
    view.end_stream(1, "complete")
    assert hostile in view.toPlainText()
    assert "<b>x</b>" in view.toPlainText()


def test_markdown_image_with_file_url_is_never_loaded(view: ChatView, tmp_path: Path) -> None:
    picture = tmp_path / "secret.png"
    picture.write_bytes(PNG)
    remote = "![remote](http://example.invalid/track.png)"
    _stream(view, 1, [f"look: ![pic]({picture.as_uri()})\n\n{remote}\n"])
    view.end_stream(1, "complete")
    view.viewport().repaint()
    assert _images_in(view) == 0
    text = view.toPlainText()
    assert f"[image: {picture.as_uri()}]" in text
    assert "[image: http://example.invalid/track.png]" in text
    # Asked or not, the document gives nothing back.
    doc = view.safe_document
    assert doc.loadResource(2, QUrl(picture.as_uri())) is None


def test_links_open_only_http_and_only_on_click(view: ChatView, monkeypatch: Any) -> None:
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    _stream(view, 1, ["[site](https://example.org) [local](file:///etc/passwd)"])
    view.end_stream(1, "complete")
    assert opened == []
    assert not view.openLinks() and not view.openExternalLinks()
    view.anchorClicked.emit(QUrl("file:///etc/passwd"))
    view.anchorClicked.emit(QUrl("javascript:alert(1)"))
    assert opened == []
    view.anchorClicked.emit(QUrl("https://example.org"))
    assert opened == ["https://example.org"]


def test_model_cannot_forge_the_views_action_links(view: ChatView) -> None:
    actions: list[tuple[str, int]] = []
    view.actionRequested.connect(lambda a, k: actions.append((a, k)))
    scheme = view._action_scheme
    _stream(view, 1, [f"[click me]({scheme}:edit/1)"])
    view.end_stream(1, "complete")
    block = view.document().begin()
    hrefs = []
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isAnchor() and it.fragment().text() == "click me":
                hrefs.append(fmt.anchorHref())
            it += 1
        block = block.next()
    assert hrefs == []


def test_code_block_copy_link_and_message_copy(view: ChatView) -> None:
    _stream(view, 1, ["Try:\n\n```\nprint('hi')\nprint('yo')\n```\n\nDone."])
    view.end_stream(1, "complete")
    assert "code    Copy\nprint('hi')" in view.toPlainText()  # a header above the code
    (href,) = [h for h in _hrefs(view) if ":copycode/" in h]
    view._on_anchor(QUrl(href))
    assert QGuiApplication.clipboard().text() == "print('hi')\nprint('yo')"
    view.copy_message(1)
    assert QGuiApplication.clipboard().text().startswith("Try:")


def test_continue_appends_to_the_same_message(view: ChatView) -> None:
    view.add_message(ShownMessage(5, "assistant", "Partial **bold**", "stopped"))
    _stream(view, 5, [" and more"])
    view.end_stream(5, "complete")
    assert view.message(5).text == "Partial **bold** and more"
    assert view.keys() == [5]
    assert "Partial bold and more" in view.toPlainText()


def test_settled_point_skips_code_fences() -> None:
    point = SettledPoint()
    assert point.update("para\n\n") == 6
    text = "para\n\n```\ncode\n\nmore\n"
    assert point.update(text) == 6  # the blank line inside the open fence does not count
    text += "```\n\nafter"
    assert point.update(text) == len(text) - len("after")


def test_settled_point_cuts_between_code_lines_list_items_and_after_headings() -> None:
    point = SettledPoint()
    text = "Intro\n\n```py\na = 1\nb = 2\n"
    assert point.update(text) == text.index("b = 2") and point.fence == "```py"
    text += "\nc = 3\n"  # a blank code line: no piece starts or ends blank
    assert point.update(text) == text.index("b = 2")
    text += "d = 4\n```\n- one\n- two\n"
    assert point.update(text) == text.index("- two") and point.fence == ""
    text += "## Heading\n"
    assert point.update(text) == len(text)
    nested = SettledPoint()
    assert nested.update("- a\n  ```\n  x\n  y\n") == 0  # a fence inside an item: no cut


def test_streamed_rendering_matches_the_final_rendering(view: ChatView) -> None:
    parts = [f"Paragraph {i} with *emphasis*.\n\n" for i in range(20)] + ["- a\n- b\n\nend"]
    view.begin_stream(1)
    for part in parts:
        view.append_token(1, part)
        view.flush()

    def lines() -> list[str]:
        skip = ("Copy", "Timing", "Answering…")
        text = view.toPlainText().splitlines()
        return [
            ln for ln in text if ln.strip() not in ("", "Answer") and not any(s in ln for s in skip)
        ]

    streamed = lines()
    view.end_stream(1, "complete")
    assert streamed == lines()
    assert "Paragraph 19 with emphasis." in streamed


class PaintRegions:
    """Records the area of every paint of the chat's viewport."""

    def __init__(self, view: ChatView) -> None:
        from PySide6.QtCore import QEvent, QObject

        regions = self.regions = []

        class Filter(QObject):
            def eventFilter(self, _watched: Any, event: Any) -> bool:
                if event.type() == QEvent.Type.Paint:
                    regions.append(event.region().boundingRect())
                return False

        self.filter = Filter(view)
        view.viewport().installEventFilter(self.filter)


def test_reserved_answer_shows_nothing_until_its_first_token(view: ChatView, qtbot: Any) -> None:
    view.add_message(ShownMessage(1, "user", "Question"))
    view.reserve_answer(-1)
    qtbot.wait(50)  # any flush or label would have run by now
    assert view.has_message(-1)
    assert view.toPlainText().split() == ["You", "Question", "Copy", "Edit", "Answer"]
    assert view._blocks[-1].meta_shown is False  # its "Answer" is see-through, no label
    paints = PaintRegions(view)
    assert view.append_token(-1, "First words") is True
    assert paints.regions, "the first token was not painted synchronously"
    assert "First words" in view.toPlainText()
    qtbot.waitUntil(lambda: "Answering…" in view.toPlainText(), timeout=60_000)
    assert view._blocks[-1].meta_shown
    assert view.thinking_open(-1) is None  # no reasoning section appeared
    view.end_stream(-1, "complete")
    assert view.toPlainText().split()[-1] == "Copy"


def test_reserved_answer_that_gets_no_text_still_shows_its_outcome(view: ChatView) -> None:
    view.reserve_answer(-2)
    view.end_stream(-2, "failed")
    assert "Answer" in view.toPlainText() and "Failed   Copy" in view.toPlainText()
    assert view._blocks[-2].meta_shown


def test_no_blank_band_above_the_first_message_or_between_pages(view: ChatView) -> None:
    messages = [
        ShownMessage(i, "user" if i % 2 else "assistant", f"Message {i}") for i in range(1, 140)
    ]
    view.set_messages(messages)
    while not view.fully_rendered:
        view._render_earlier_batch()
    for i in range(140, 160):  # appended pages too
        view.add_message(ShownMessage(i, "user", f"Message {i}"))
    layout = view.document().documentLayout()
    tops = [layout.frameBoundingRect(view._blocks[key].who).top() for key in view.keys()]
    assert tops[0] <= view.document().documentMargin()
    roles = [view.message(key).role for key in view.keys()]
    gaps: dict[tuple[str, str], set[int]] = {}
    for (role_a, a), (role_b, b) in pairwise(zip(roles, tops, strict=True)):
        gaps.setdefault((role_a, role_b), set()).add(round(b - a))
    assert all(len(found) == 1 for found in gaps.values()), gaps  # the same everywhere


def test_a_long_answer_shows_its_last_words_at_once_and_is_rendered_as_written_a_turn_later(
    view: ChatView, qtbot: Any
) -> None:
    sentence = "The tide comes in over the flats and goes out again. "
    view.begin_stream(1)
    view.append_token(1, "Start. ")
    for _ in range(150):  # ~8,000 characters, one paragraph: soft-cut while streaming
        view.append_token(1, sentence)
        view.flush()
    view.append_token(1, "Last words.")
    paints = PaintRegions(view)
    view.end_stream(1, "complete")
    assert paints.regions  # the last words were painted in this call
    assert "Last words." in view.toPlainText()
    content = view._blocks[1].content

    def paragraphs() -> int:
        cursor = QTextCursor(view.document())
        cursor.setPosition(content.firstPosition())
        cursor.setPosition(content.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        return cursor.selectedText().count("\u2029") + 1

    assert paragraphs() > 1  # still as streamed (cut after sentences)
    qtbot.waitUntil(lambda: paragraphs() == 1, timeout=60_000)  # as written: one paragraph
    assert view.message(1).state == "complete"
    assert "Copy   Regenerate   Timing" in view.toPlainText()


ANSWER_WITH_LISTS = (
    "Here's a list of tips for writing clean code:\n\n"
    "1. **Use clear names** - a name says what a thing is.\n\n"
    "2. **Keep functions short** - one job each.\n\n"
    "3. **Test it** - a test that can fail.\n\n"
    "## Example\n\n"
    "```python\nx = 5  # a comment\n```\n\n"
    "- a point\n- another point\n\n"
    "That is all."
)


def _visible_blocks(view: ChatView, key: int) -> list[str]:
    """The content as laid out: one line per visible paragraph, list items marked."""
    content = view._blocks[key].content
    lines = []
    block = view.document().findBlock(content.firstPosition())
    while block.isValid() and block.position() < content.lastPosition():
        if block.isVisible():
            marker = "item " if block.textList() is not None else ""
            lines.append(marker + block.text())
        block = block.next()
    return lines


@pytest.mark.parametrize("step", [1, 3, 7])
def test_lists_stream_without_empty_items_or_extra_lines(view: ChatView, step: int) -> None:
    """Qt's Markdown import leaves an empty block before a list (or heading) inserted at
    an empty paragraph, and an empty list item after a list that ends in a blank line:
    while streaming they showed as a numbered item with no text and blank lines."""
    view.begin_stream(1)
    view.append_token(1, ANSWER_WITH_LISTS[:4])
    for at in range(4, len(ANSWER_WITH_LISTS), step):
        view.append_token(1, ANSWER_WITH_LISTS[at : at + step])
        view.flush()
        shown = _visible_blocks(view, 1)
        assert "item " not in shown, (at, shown)  # never an empty list item
        assert "" not in shown[:-1], (at, shown)  # never an empty line inside the answer
    streamed = _visible_blocks(view, 1)
    view.end_stream(1, "complete")
    final = [line for line in _visible_blocks(view, 1) if line != "Copy code"]
    assert final == streamed  # the final render looks the same (plus "Copy code")
    assert sum(line.startswith("item ") for line in streamed) == 5
    assert streamed[0] == "Here's a list of tips for writing clean code:"
