"""The waterfall reads at the HUD's default width: the rows are named above their bars,
so the bars get the plot's width (as a left axis the names took about 75 % of the dock
and left the bars 10-14 %). A name that does not fit is elided with its text in a tooltip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QLocale, QPointF, QSettings
from PySide6.QtGui import QHelpEvent, QPalette
from PySide6.QtWidgets import QApplication, QToolTip

from client.services.cascade.route_record import OUT_OF_BUDGET, RouteNote
from client.services.hud.hud_model import HudRecord, StageSpan
from client.services.hud.waterfall import build_waterfall
from client.ui.common.theme import dark_palette
from client.ui.hud import LatencyHud
from client.ui.hud.plots.locale_axis import LocaleAxis
from client.ui.hud.tabs.waterfall_view import BAR_HEIGHT, BAR_TOP, WaterfallView
from client.ui.shell.main_window import MainWindow
from tests.ui.conftest import ENGLISH

FAST = RouteNote(
    "fast", "SmolLM2-135M", "a short everyday question", 150.2, "rules", OUT_OF_BUDGET, 1, 151.0
)
AGAIN = RouteNote(
    "strong", "qwen2.5:7b-instruct", "the fast model failed", by="fallback", attempt=2
)


def _cascade_record() -> HudRecord:
    """The most rows a reply gets: a cascade whose classifier ran out of its budget, then a
    fallback, retrieval, thinking, and llama.cpp's timings with a prompt cache and drafts."""
    timings = {"prompt_ms": 320.3, "prompt_n": 36, "cache_n": 1400, "predicted_ms": 4948.0}
    return HudRecord(
        time=1_800_000_000.0,
        model="qwen2.5:7b-instruct",
        ttft_ms=1324.3,
        e2el_ms=6211.0,
        headers_ms=14.0,
        paint_ms=1.5,
        outcome="complete",
        stages=[
            StageSpan("loading", 0.0, 40.0),
            StageSpan("understanding", 40.0, 200.0, note=FAST),
            StageSpan("understanding", 200.0, 260.0, note=AGAIN),
            StageSpan("retrieving", 260.0, 300.0, (("passages", 3), ("tokens", 1200))),
            StageSpan("thinking", 300.0, 1000.0),
            StageSpan("answering", 1324.3, None),
        ],
        server_timings={"llamacpp": {**timings, "draft_n": 2048, "draft_n_accepted": 1999}},
    )


def _local_record() -> HudRecord:
    """A plain answer from the local engine (SmolLM2-135M on llama-server)."""
    timings = {"prompt_ms": 320.3, "prompt_n": 36, "cache_n": 0, "predicted_ms": 4948.0}
    return HudRecord(
        time=1_800_000_000.0,
        model="smollm2-135m-instruct",
        ttft_ms=324.3,
        e2el_ms=5211.0,
        headers_ms=14.0,
        paint_ms=1.5,
        outcome="complete",
        stages=[StageSpan("understanding", 0.0, 344.4), StageSpan("answering", 264.5, None)],
        server_timings={"llamacpp": timings},
    )


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> MainWindow:
    """The main window at its first-start size, the HUD in its dock."""
    window = MainWindow(QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.set_hud_widget(LatencyHud())
    window.show()
    qtbot.waitExposed(window)
    return window


def _shown(view: WaterfallView, qtbot: Any) -> None:
    view.window().findChild(LatencyHud).tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.plot.getPlotItem().getViewBox().width() > 0, timeout=60_000)
    QApplication.processEvents()  # (tests only) the layout settles before we measure


def _label_problems(view: WaterfallView) -> list[str]:
    """Rows whose name is neither shown whole inside the plot nor whole in a tooltip."""
    plot = view.plot.getPlotItem().getViewBox().sceneBoundingRect()
    problems = []
    for item, text in zip(view.labels.items, view.row_texts(), strict=False):
        box = item.textItem.sceneBoundingRect()
        whole = item.textItem.toPlainText() == text and box.right() <= plot.right() + 1
        if not (whole or item.toolTip() == text):
            problems.append(text)
    return problems


def test_at_the_default_width_the_bars_get_the_plot_and_every_row_is_named(
    language: str, window: MainWindow, qtbot: Any
) -> None:
    hud = window.hud_dock.widget()
    assert isinstance(hud, LatencyHud)
    hud.show_waterfall(_cascade_record())
    view = hud.waterfall
    _shown(view, qtbot)
    assert window.hud_dock.width() <= 420  # the first start's side column
    bars = view.plot.getPlotItem().getViewBox().width()
    assert bars >= 0.6 * view.width(), (bars, view.width())
    texts = view.row_texts()
    assert len(texts) >= 15 and len(view.labels.shown()) == len(texts)
    assert _label_problems(view) == []
    for shown, text in zip(view.labels.shown(), texts, strict=True):
        # whole, or elided in the middle (a long model name): the stage and time stay
        assert shown.split()[-1] == text.split()[-1] and shown[:8] == text[:8], shown
    if language == "en":
        assert any(t.startswith("Reading your question · fast · SmolLM2-135M ") for t in texts)
        assert any(t.startswith("route decision · classifier out of budget ") for t in texts)
    hud.show_waterfall(_local_record())  # a plain answer on the local engine: all whole
    assert len(view.row_texts()) == 12 and view.labels.shown() == view.row_texts()
    assert _label_problems(view) == []


def test_each_name_sits_between_the_bar_above_and_its_own(
    language: str, window: MainWindow, qtbot: Any
) -> None:
    hud = window.hud_dock.widget()
    assert isinstance(hud, LatencyHud)
    hud.show_waterfall(_cascade_record())
    view = hud.waterfall
    _shown(view, qtbot)
    box = view.plot.getPlotItem().getViewBox()
    top = box.sceneBoundingRect().top()
    for row, item in enumerate(view.labels.items[: len(view.row_texts())]):
        text = item.textItem.sceneBoundingRect()
        own_bar = box.mapViewToScene(QPointF(0, row + BAR_TOP)).y()
        bar_above = box.mapViewToScene(QPointF(0, row - 1 + BAR_TOP + BAR_HEIGHT)).y()
        assert max(bar_above, top) <= text.top() + 1, (row, text, bar_above, top)
        assert text.bottom() <= own_bar + 1, (row, text, own_bar)


def test_a_name_wider_than_the_plot_is_elided_and_whole_in_its_tooltip(qtbot: Any) -> None:
    view = WaterfallView()
    qtbot.addWidget(view)
    view.resize(160, 500)
    view.show()
    qtbot.waitExposed(view)
    view.show_waterfall(build_waterfall(_cascade_record()), "title")
    qtbot.waitUntil(lambda: view.plot.getPlotItem().getViewBox().width() > 0, timeout=60_000)
    shown, texts = view.labels.shown(), view.row_texts()
    assert any(s != t and "…" in s for s, t in zip(shown, texts, strict=True))
    assert [item.toolTip() for item in view.labels.items[: len(texts)]] == texts
    assert _label_problems(view) == []
    cut = next(i for i, (s, t) in enumerate(zip(shown, texts, strict=True)) if s != t)
    at = view.plot.mapFromScene(view.labels.items[cut].textItem.sceneBoundingRect().center())
    hover = QHelpEvent(QEvent.Type.ToolTip, at, view.plot.viewport().mapToGlobal(at))
    QApplication.sendEvent(view.plot.viewport(), hover)  # the pointer rests on the name
    assert QToolTip.text() == texts[cut]


def test_the_names_follow_the_light_or_dark_scheme(qtbot: Any) -> None:
    hud = LatencyHud()
    qtbot.addWidget(hud)
    hud.show_waterfall(_cascade_record())
    colour = hud.palette().color(QPalette.ColorRole.Text).name()
    assert {i.textItem.defaultTextColor().name() for i in hud.waterfall.labels.items} == {colour}
    hud.setPalette(dark_palette())  # what a dark system scheme does to the HUD
    dark = dark_palette().color(QPalette.ColorRole.Text).name()
    assert {i.textItem.defaultTextColor().name() for i in hud.waterfall.labels.items} == {dark}


def test_the_time_axis_writes_the_locales_figures(qapp: QApplication) -> None:
    axis = LocaleAxis("bottom")
    assert axis.tickStrings([0.0, 5000.0, 15000.0], 1.0, 5000.0) == ["0", "5,000", "15,000"]
    assert axis.tickStrings([0.5, 1.0], 1.0, 0.5) == ["0.5", "1.0"]
    QLocale.setDefault(QLocale(QLocale.Language.German, QLocale.Country.Germany))
    try:
        assert axis.tickStrings([15000.0, 0.5], 1.0, 0.5) == ["15.000,0", "0,5"]
    finally:
        QLocale.setDefault(ENGLISH)


def test_the_waterfall_names_the_server_kind_as_the_server_tab(qapp: QApplication) -> None:
    """Issue 39, item 17: one name for a kind of server in every view."""
    from client.services.hud.waterfall import Waterfall
    from client.ui.common.server_names import server_kind_name
    from client.ui.hud.tabs import waterfall_view

    for kind in ("llamacpp", "vllm", "ollama"):
        fall = Waterfall([], server_source=kind, server_ttft_ms=5.0, transport_and_queue_ms=1.0)
        assert f"server ({server_kind_name(kind)}) " in waterfall_view._summary(fall)
    assert server_kind_name("llamacpp") == "llama.cpp server"
