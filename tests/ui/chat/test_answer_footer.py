"""Under each answer: its figures beside Copy and Timing, code in colour with a copy
link, a failure's sentence said once, and long model names readable in the picker."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor, QTextDocument

from client.core.metrics import RequestMetrics
from client.ui.chat.render.markdown.code_highlight import code_blocks, highlight, lexer_for
from client.ui.chat.render.markdown.safe_markdown import SafeDocument
from client.ui.chat.render.messages.answer_footer import footer_text
from client.ui.servers.picker.elided_combo import MiddleElidedComboBox
from tests.ui.conftest import until

# The rate is a QLocale number: 1,257 tok/s has a group separator.
FOOTER = re.compile(
    r"\d+\.\d\d s to first token · [\d,]+ tok/s average · QoE \d\.\d\d · 2 tokens · "
    r"(instant|fast|typing|slow)"
)


def _ask(app: Any, qtbot: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)


def test_the_footer_says_each_figure_it_has() -> None:
    full = RequestMetrics(ttft_ms=212.0, tokens_per_s=48.4, output_tokens=312, tier="fast")
    assert footer_text(full) == "0.21 s to first token · 48 tok/s average · 312 tokens · fast"
    assert footer_text(RequestMetrics(ttft_ms=1530.0)) == "1.53 s to first token"
    read = RequestMetrics(ttft_ms=212.0, tokens_per_s=6.0, output_tokens=73, qoe=0.861)
    assert footer_text(read) == "0.21 s to first token · 6 tok/s average · QoE 0.86 · 73 tokens"
    assert footer_text(RequestMetrics()) == "" and footer_text(None) == ""


def test_an_answer_shows_its_footer_live_and_after_reopening(make_app, server, run, qtbot):
    # Tokens 20 ms apart: two that arrive together have no rate to show.
    server.default = [("token", "Hello"), ("pause", 0.02), ("token", " there."), ("done",)]
    app = make_app(server.url)

    async def ask() -> None:
        _ask(app, qtbot, "hi")
        await until(
            lambda: not app.page.busy and "Hello there." in app.window.chat_view.toPlainText()
        )

    run(ask())
    text = app.window.chat_view.toPlainText()
    line = next(line for line in text.splitlines() if "Copy" in line and "Timing" in line)
    assert FOOTER.search(line), line  # on the line of Copy and Timing
    conversation = app.page.conversation_id
    app.page.show_conversation(None)
    assert not FOOTER.search(app.window.chat_view.toPlainText())
    app.page.show_conversation(conversation)  # from the stored metrics
    assert FOOTER.search(app.window.chat_view.toPlainText())


def test_a_continued_answer_footer_counts_the_whole_message(make_app, server, run, qtbot):
    """Two requests wrote the answer: its footer counts all its tokens (not only the
    continued part's), live and after reopening."""
    server.scripts.append([("token", "Part one, "), ("pause", 0.02), ("token", "two"), ("reset",)])
    server.scripts.append([("token", " three,"), ("pause", 0.02), ("token", " four."), ("done",)])
    app = make_app(server.url)
    w = app.window

    async def ask_and_continue() -> None:
        _ask(app, qtbot, "count")
        await until(lambda: not app.page.busy and "continue" in w.outcome_bar.buttons)
        qtbot.mouseClick(w.outcome_bar.button("continue"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and "four." in w.chat_view.toPlainText())

    run(ask_and_continue())
    key = w.chat_view.keys()[-1]
    assert w.chat_view.message(key).text == "Part one, two three, four."
    # 2 chunks counted for the interrupted part + the server's eval_count 2 for the rest.
    assert "4 tokens in 2 parts" in w.chat_view.message(key).footer
    conversation = app.page.conversation_id
    app.page.show_conversation(None)
    app.page.show_conversation(conversation)  # from the stored metrics of both requests
    assert "4 tokens in 2 parts" in w.chat_view.message(key).footer
    assert "4 tokens in 2 parts" in w.chat_view.toPlainText()


def test_a_failure_is_one_card_said_once(make_app, server, run, qtbot):
    """The sentence and its buttons together in the bar (issue 27: the buttons sat in
    the bar, the sentence in small grey text under it), and nowhere else."""
    server.scripts.append([("status", 500, "out of memory")])
    app = make_app(server.url)

    async def ask() -> None:
        _ask(app, qtbot, "question")
        await until(lambda: not app.page.busy and app.window.outcome_bar.isVisible())

    run(ask())
    w = app.window
    assert "out of memory" in w.outcome_bar.message_label.text()
    assert w.stage_label.text() == ""
    assert list(w.outcome_bar.buttons) == ["retry", "edit_question"]


def test_code_blocks_are_coloured_and_keep_their_text(qapp: Any) -> None:
    document = SafeDocument()
    source = "def add(a, b):\n    return a + b  # sum"
    document.setMarkdown(f"Here:\n\n```python\n{source}\n```\n\nDone.")
    frame = document.rootFrame()
    ((first, code, language),) = code_blocks(document, frame)
    assert (code, language) == (source, "python")
    assert highlight(document, frame) >= 5
    colours = set()
    cursor = QTextCursor(document)
    for offset in range(len(code)):
        cursor.setPosition(first.position() + offset + 1)
        colours.add(cursor.charFormat().foreground().color().name())
    assert len(colours) >= 3  # keyword, name, comment ... not one colour
    assert code in document.toPlainText()  # colour only: the text is unchanged
    assert (
        lexer_for("", "").name == "Text only" and lexer_for("nosuchlang", "x").name == "Text only"
    )


def test_a_finished_answer_has_coloured_code_and_a_copy_link(make_app, server, run, qtbot):
    server.scripts.append([("token", "```python\nimport os\nprint(os.sep)\n```\n"), ("done",)])
    app = make_app(server.url)

    async def ask() -> None:
        _ask(app, qtbot, "code please")
        await until(
            lambda: not app.page.busy and "python    Copy" in app.window.chat_view.toPlainText()
        )

    run(ask())
    document: QTextDocument = app.window.chat_view.document()
    # The fence's first line stays in the code block (Qt's insertMarkdown dropped it).
    assert [code for _, code, _ in code_blocks(document, document.rootFrame())] == [
        "import os\nprint(os.sep)"
    ]
    found = document.find("import")
    assert not found.isNull()
    keyword = QTextCursor(document)
    keyword.setPosition(found.selectionStart() + 1)
    plain = QTextCursor(document)
    plain.setPosition(document.find("code please").selectionStart() + 1)
    assert keyword.charFormat().foreground().color() != plain.charFormat().foreground().color()


def test_long_model_names_keep_both_ends(qtbot: Any) -> None:
    picker = MiddleElidedComboBox()
    qtbot.addWidget(picker)
    name = "qwen2.5-coder-32b-instruct-abliterated-GGUF:Q4_K_M"
    picker.addItems(["short", name])
    picker.setCurrentIndex(1)
    picker.resize(180, picker.sizeHint().height())
    shown = picker.shown_text()
    assert shown != name and "…" in shown
    assert shown.startswith("qwen") and shown.endswith("K_M")
    assert picker.toolTip() == name
    assert picker.itemData(1, Qt.ItemDataRole.ToolTipRole) == name


def test_an_answer_that_waited_for_its_model_says_so_first() -> None:
    from client.services.chat.answer_figures import loading_ms

    stages = [
        {"stage": "loading", "start_ms": -1.0, "end_ms": 2399.0, "expected_ms": 2000.0},
        {"stage": "understanding", "start_ms": 2399.0, "end_ms": 2610.0},
        {"stage": "answering", "start_ms": 2610.0, "end_ms": 3000.0},
    ]
    assert loading_ms(stages) == 2400.0
    assert loading_ms(stages[1:]) is None and loading_ms({}) is None
    instant = [{"stage": "loading", "start_ms": 0.0, "end_ms": 12.0}, *stages[1:]]
    assert loading_ms(instant) is None  # not "Loading the model 0.0 s"
    figures = RequestMetrics(ttft_ms=2610.0)
    assert footer_text(figures, 1, loading_ms(stages)) == (
        "Loading the model 2.4 s · 2.61 s to first token"
    )
