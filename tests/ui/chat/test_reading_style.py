"""The reading style: one zoom for the chat's text size and reading column."""

from __future__ import annotations

from typing import Any

from client.ui.common.reading_style import BODY_PX, COLUMN_MAX_PX, ReadingStyle, reading_style


def test_zoom_steps_scale_the_body_and_the_column(qtbot: Any) -> None:
    style = ReadingStyle()
    assert (style.body_px, style.column_px) == (BODY_PX, COLUMN_MAX_PX)
    with qtbot.waitSignal(style.changed, timeout=1000):
        style.zoom_in()
    assert style.zoom == 1.1 and style.body_px > BODY_PX
    style.set_zoom(1.5)
    assert style.body_px == round(BODY_PX * 1.5) and style.column_px == round(COLUMN_MAX_PX * 1.5)
    style.zoom_out()
    assert style.zoom == 1.25
    style.reset_zoom()
    assert style.zoom == 1.0
    for _ in range(20):
        style.zoom_out()
    assert style.body_px >= 8  # never below a readable floor


def test_the_window_shares_one_style(qtbot: Any) -> None:
    assert reading_style() is reading_style()
