"""A reader at the end of the chat stays at the end when the text grows (Ctrl+plus,
Present's 150 %); one reading further up is left where they are."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QTextEdit

from client.ui.common.reading_style import TextSizeFollower, reading_style


@pytest.fixture
def view(qtbot: Any) -> Iterator[QTextEdit]:
    edit = QTextEdit()
    qtbot.addWidget(edit)
    edit.resize(400, 300)
    edit.show()
    TextSizeFollower(edit)
    edit.setPlainText("\n".join(f"line {i} " * 5 for i in range(200)))
    yield edit
    reading_style().reset_zoom()


def test_a_reader_at_the_end_stays_there_when_zoomed(view: QTextEdit) -> None:
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())
    before = bar.maximum()
    reading_style().set_zoom(1.5)
    assert bar.maximum() > before  # the text grew
    assert bar.value() == bar.maximum()


def test_a_reader_further_up_is_not_moved_to_the_end(view: QTextEdit) -> None:
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 3)
    reading_style().set_zoom(1.5)
    assert bar.value() < bar.maximum()
