"""The HUD reads at a glance: whole request numbers, named tier bands that all stay in
view when one reply is slow, the statistics in words, P99 and the prediction error in
tooltips, plurals in the window's language, and every label translated."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QLabel

from client.core.tiers import Tier
from client.services.hud.hud_live import LiveStream
from client.ui.common.theme import dark_palette
from client.ui.common.tier_words import tier_name
from client.ui.hud import LatencyHud
from client.ui.hud.plots.palette import TIER_TEXT_COLORS
from client.ui.hud.plots.ttft_axes import RequestAxis, TtftAxis
from tests.ui.hud.test_hud import _reply


@pytest.fixture
def hud(qtbot: Any) -> LatencyHud:
    widget = LatencyHud()
    qtbot.addWidget(widget)
    widget.resize(420, 600)  # about the dock's width
    widget.show()
    qtbot.waitExposed(widget)
    widget.tabs.setCurrentWidget(widget.requests)
    return widget


def _ticks(axis: Any, low: float, high: float) -> list[float]:
    return [value for _, values in axis.tickValues(low, high, 300) for value in values]


def test_request_ticks_are_whole_numbers() -> None:
    axis = RequestAxis("bottom")
    for high in (1.5, 2.5, 3.5, 12.5, 250.5):
        ticks = _ticks(axis, 0.5, high)
        assert ticks and all(float(t).is_integer() for t in ticks), (high, ticks)
    assert _ticks(axis, 0.5, 1.5) == [1.0]


def test_ttft_ticks_read_in_ms_and_s() -> None:
    axis = TtftAxis("left")
    levels = axis.tickValues(1.0, 4.0, 400)  # 10 ms to 10 s, as log10(ms)
    major = levels[0][1]
    labels = axis.tickStrings(major, 1.0, levels[0][0])
    assert labels[:3] == ["10 ms", "20 ms", "50 ms"]
    assert {"100 ms", "1 s", "2 s", "10 s"} <= set(labels)
    assert axis.tickStrings(levels[1][1], 1.0, levels[1][0]) == [""] * len(levels[1][1])
    crowded = axis.tickValues(1.0, 4.0, 150)[0][1]  # a short plot: decades only
    assert axis.tickStrings(crowded, 1.0, 1.0) == ["10 ms", "100 ms", "1 s", "10 s"]


def _band_share(hud: LatencyHud, index: int) -> float:
    """The part of the plot's height a tier band takes."""
    (_, _), (bottom, top) = hud.requests.plot.getViewBox().viewRange()
    low, high = hud.requests.bands.bands[index].getRegion()
    return max(0.0, min(high, top) - max(low, bottom)) / (top - bottom)


def test_one_slow_reply_keeps_every_tier_band_in_view_and_named(hud: LatencyHud) -> None:
    for ttft in (40.0, 150.0, 600.0):
        _reply(hud, ttft)
    _reply(hud, 30_000.0)  # a cold load: 30 s
    shares = [_band_share(hud, index) for index in range(len(Tier))]
    assert all(share > 0.08 for share in shares), shares  # about a tenth of the height each
    assert hud.requests.bands.shown_names() == [tier_name(t) for t in Tier]
    (_, _), (bottom, top) = hud.requests.plot.getViewBox().viewRange()
    assert bottom < 1.6 and top > 4.47  # 40 ms and 30 s both in view
    point = hud.requests.points.points()[-1]
    tip = hud.requests.point_tip(point.pos().x(), point.pos().y())
    assert tip == "Request 4: 30 s to first token, QoE 0.00"  # all its text 29 s late


def test_the_statistics_read_in_words_with_p99_waiting_for_100_requests(
    hud: LatencyHud,
) -> None:
    _reply(hud, 120.0)
    table = hud.requests.table
    metrics = [table.horizontalHeaderItem(c).text() for c in _shown_columns(table)]
    words = ["Time to first token (ms)", "Time per output token (ms)", "Tokens per second"]
    assert metrics == words
    assert table.horizontalHeaderItem(0).toolTip().startswith("ttft_ms")
    assert table.verticalHeaderItem(4).text() == "P99"
    p99 = table.item(4, 0)
    assert p99.text() == "–"
    assert p99.toolTip() == "P99 needs at least 100 requests; these figures are of 1 request."


def test_the_prediction_error_is_a_tooltip_not_a_line(hud: LatencyHud) -> None:
    hud.set_prediction_note("Predicted vs actual first token: median error 257 % (3 requests)")
    assert "257 %" in hud.requests.table.horizontalHeaderItem(0).toolTip()
    shown = [label.text() for label in hud.findChildren(QLabel) if label.isVisible()]
    assert not [text for text in shown if "257" in text]


def test_counts_use_plural_forms(hud: LatencyHud) -> None:
    stream = LiveStream()
    stream.tokens, stream.stalls = 1, 1
    hud.live.show_summary(stream, 3)
    assert hud.live.summary.text() == "3 tokens/s in the last second · 1 chunk · 1 stall"
    stream.tokens, stream.stalls = 1200, 2
    hud.live.show_summary(stream, 3)
    assert hud.live.summary.text() == "3 tokens/s in the last second · 1,200 chunks · 2 stalls"


def test_the_hud_in_chinese(chinese: None, qtbot: Any) -> None:
    hud = LatencyHud()
    qtbot.addWidget(hud)
    _reply(hud, 120.0)
    left = hud.requests.plot.getPlotItem().getAxis("left").labelText
    assert left == "首个词元时间"
    table = hud.requests.table
    metrics = [table.horizontalHeaderItem(c).text() for c in _shown_columns(table)]
    assert metrics == ["首个词元时间（毫秒）", "每个输出词元时间（毫秒）", "每秒词元数"]
    assert table.verticalHeaderItem(1).text() == "均值"
    assert table.item(4, 0).toolTip() == "P99 至少需要 100 个请求；这些数字来自 1 个请求。"
    assert hud.requests.bands.shown_names()[0] == "即时"
    axis = hud.requests.plot.getPlotItem().getAxis("left")
    assert axis.tickStrings([3.0], 1.0, 1.0) == ["1 秒"]
    stream = LiveStream()
    stream.tokens, stream.stalls = 1, 2
    hud.live.show_summary(stream, 3)
    assert hud.live.summary.text() == "最近一秒 3 词元/秒 · 1 个片段 · 2 次停顿"


def test_the_tier_word_takes_the_new_scheme_s_colour(hud: LatencyHud, qapp: Any) -> None:
    _reply(hud, 40.0)
    assert TIER_TEXT_COLORS[False][Tier.INSTANT] in hud.tier.tier_label.styleSheet()
    palette = qapp.palette()
    try:
        QApplication.setPalette(dark_palette())  # as Qt does when the system turns dark
        qapp.processEvents()
        assert TIER_TEXT_COLORS[True][Tier.INSTANT] in hud.tier.tier_label.styleSheet()
    finally:
        QApplication.setPalette(palette)


def _shown_columns(table: Any) -> list[int]:
    """The table's columns in view (the tools' column only while tools ran)."""
    return [c for c in range(table.columnCount()) if not table.isColumnHidden(c)]
