"""A layout that stays still: the latency panel keeps its width through an answer, folds
into a strip below 1,100 px (a click opens it), and Present comes and goes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from client.core.tiers import TierThresholds
from client.ui.common.reading_style import reading_style
from client.ui.shell.app import TachyApp
from client.ui.view.latency_fold import FOLD_BELOW_PX
from client.ui.view.present_mode import PRESENT_ZOOM
from tests.ui.conftest import until

# Tokens a little apart, so the answer has a rate; a long word, as answers have.
SCRIPT = [
    ("token", "Supercalifragilistic"),
    ("pause", 0.02),
    ("token", " answer, "),
    ("pause", 0.02),
    ("token", "done."),
    ("done",),
]


def _ask(app: TachyApp, run: Any, question: str = "hi") -> None:
    hud = app.hud
    assert hud is not None
    replies, shown = len(hud.book.records), hud.tier.recent_label.text()

    async def ask() -> None:
        app.window.composer.setPlainText(question)
        app.window.composer.submit()
        await until(lambda: not app.page.busy and len(hud.book.records) > replies)
        await until(lambda: hud.tier.recent_label.text() != shown)  # the views a frame later

    run(ask())
    QApplication.processEvents()


def _wide(app: TachyApp, qtbot: Any, width: int = 1400) -> None:
    app.window.resize(width, 900)
    qtbot.waitUntil(lambda: app.window.hud_dock.isVisible())
    QApplication.processEvents()


def test_the_panel_keeps_its_width_through_an_answer(
    make_app: Callable[..., TachyApp], server: Any, run: Any, qtbot: Any
) -> None:
    server.default = list(SCRIPT)
    app = make_app(server.url)
    assert app.hud is not None
    # Every reply "slow": the Tier tab's longest sentence ("stages (waiting for the
    # server, reading the question, …)") widened the panel by about 120 px.
    app.hud.set_thresholds(TierThresholds(0.001, 0.002, 0.003))
    _wide(app, qtbot)
    w = app.window
    panel, chat = w.hud_dock.width(), w.splitter.widget(1).width()
    tabs = app.hud.tabs
    for question in ("first", "second"):
        _ask(app, run, question)
        for index in range(tabs.count()):  # the reader looks at each of its tabs
            tabs.setCurrentIndex(index)
            QApplication.processEvents()
            widths = (w.hud_dock.width(), w.splitter.widget(1).width())
            assert widths == (panel, chat), (question, tabs.tabText(index))


def test_below_1100_px_the_panel_folds_into_a_strip_that_opens_it(
    make_app: Callable[..., TachyApp], server: Any, run: Any, qtbot: Any
) -> None:
    server.default = list(SCRIPT)
    app = make_app(server.url)
    _wide(app, qtbot)
    w, fold = app.window, app.view.fold
    w.resize(1024, 640)
    assert w.width() < FOLD_BELOW_PX
    qtbot.waitUntil(lambda: fold.strip.isVisible())
    assert w.hud_dock.isHidden()
    _ask(app, run)
    fold.strip.refresh()
    assert "ms" in fold.strip.ttft.text() and "tokens/s" in fold.strip.rate.text()
    qtbot.mouseClick(fold.strip, Qt.MouseButton.LeftButton)  # opens the panel
    qtbot.waitUntil(lambda: w.hud_dock.isVisible())
    assert fold.bar.isHidden()
    w.hud_dock.close()  # closed again: the strip is back
    qtbot.waitUntil(lambda: fold.strip.isVisible())
    w.resize(1400, 900)  # wide again: the panel as it was before it folded
    qtbot.waitUntil(lambda: w.hud_dock.isVisible())
    assert fold.bar.isHidden()


def test_a_panel_closed_when_wide_stays_closed_after_folding(
    make_app: Callable[..., TachyApp], server: Any, qtbot: Any
) -> None:
    app = make_app(server.url)
    _wide(app, qtbot)
    w = app.window
    w.hud_dock.close()
    w.resize(1024, 640)
    w.resize(1400, 900)
    QApplication.processEvents()
    assert w.hud_dock.isHidden()


def test_present_enters_and_esc_or_f5_leaves(
    make_app: Callable[..., TachyApp], server: Any, run: Any, qtbot: Any
) -> None:
    server.default = list(SCRIPT)
    app = make_app(server.url)
    _wide(app, qtbot)
    w, present, hud = app.window, app.view.present, app.hud
    assert hud is not None
    app.view.menu.present_action.trigger()  # View > Present (F5)
    qtbot.waitUntil(w.isFullScreen)
    assert present.presenting and reading_style().zoom == PRESENT_ZOOM
    assert w.conversations.isHidden() and w.hud_dock.isVisible()
    assert hud.tabs.currentWidget() is hud.tier
    assert present.banner.isVisible()
    _ask(app, run, "one")
    _ask(app, run, "two")
    present.banner.refresh()
    assert present.banner.tier.text() in {"INSTANT", "FAST", "TYPING", "SLOW"}
    assert "ms" in present.banner.ttft.text()
    assert hud.tier.recent_label.text().count(" ms") == 2  # the last replies, not one
    assert not w.shortcuts["stop"].isEnabled()  # Esc leaves Present
    qtbot.keyClick(w.composer, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.isFullScreen())
    assert not present.presenting and reading_style().zoom == 1.0
    assert not w.conversations.isHidden() and not present.banner.isVisible()
    assert w.shortcuts["stop"].isEnabled()
    app.view.menu.present_action.trigger()
    qtbot.waitUntil(w.isFullScreen)
    qtbot.keyClick(w.composer, Qt.Key.Key_F5)  # F5 leaves too
    qtbot.waitUntil(lambda: not w.isFullScreen())
    assert not present.presenting


@pytest.mark.parametrize("width", [1024, 1400])
def test_present_leaves_the_panel_as_it_was(
    width: int, make_app: Callable[..., TachyApp], server: Any, qtbot: Any
) -> None:
    app = make_app(server.url)
    _wide(app, qtbot)
    w, fold = app.window, app.view.fold
    w.resize(width, 640)
    QApplication.processEvents()
    folded = fold.folded
    app.view.present.enter()
    qtbot.waitUntil(w.isFullScreen)
    assert fold.bar.isHidden()
    app.view.present.leave()
    qtbot.waitUntil(lambda: not w.isFullScreen())
    w.resize(width, 640)
    QApplication.processEvents()
    assert fold.folded == folded
    assert w.hud_dock.isHidden() == folded
