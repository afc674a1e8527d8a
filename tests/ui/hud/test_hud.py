"""The HUD widget driven through the API the window uses, with scripted timings."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QTimer

from client.backends.kinds.registry import timings_of
from client.core.events import ServerTimings, TokenKind
from client.core.metrics import compute_metrics
from client.core.tiers import Tier, TierThresholds
from client.core.timeline import RequestTimeline, now_ns
from client.ui.hud import LatencyHud
from client.ui.hud.hud import FRAME_INTERVAL_MS

MS = 1_000_000


def _data(curve: Any) -> tuple[Any, Any]:
    """All the data given to a curve (getData() returns only the clipped, downsampled part)."""
    return curve.xData, curve.yData


def _plotted_ttfts(hud: LatencyHud) -> list[float]:
    """The Requests plot's points in ms (it plots log10 of ms)."""
    return [10 ** p.pos().y() for p in hud.requests.points.points()]


@pytest.fixture
def hud(qtbot: Any) -> LatencyHud:
    widget = LatencyHud()
    qtbot.addWidget(widget)
    widget.resize(700, 600)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _reply(
    hud: LatencyHud,
    ttft_ms: float,
    tokens: int = 20,
    gap_ms: float = 10.0,
    model: str = "small",
    cold: bool = False,
    message_id: int | None = None,
    timings: list[ServerTimings] | None = None,
) -> RequestTimeline:
    """One scripted reply through the HUD API, stamps at exact offsets."""
    timeline = RequestTimeline()
    origin = 1_000_000 * MS
    timeline.mark_written(origin)
    timeline.mark_headers(origin + 2 * MS)
    hud.request_started(timeline, model, "local", cold)
    for k in range(tokens):
        at = origin + int((ttft_ms + gap_ms * k) * MS)
        timeline.mark_token(TokenKind.ANSWER, 4, at)
        hud.token(TokenKind.ANSWER, 4, at)
    timeline.mark_painted(origin + int((ttft_ms + 1.5) * MS))
    metrics = compute_metrics(timeline, None, timings)
    hud.request_finished(metrics, timeline, "complete", message_id=message_id)
    return timeline


def test_token_does_no_qt_work(hud: LatencyHud) -> None:
    timeline = RequestTimeline()
    timeline.mark_written(0)
    hud.request_started(timeline, "m", "s")
    for k in range(100):
        hud.token(TokenKind.ANSWER, 1, k * MS)
    assert hud.stream.pending == 100 and hud.frames == 0
    assert hud.live.rate_curve.xData is None or len(hud.live.rate_curve.xData) == 0
    hud.flush_frame()
    assert hud.stream.pending == 0 and hud.frames == 1
    x, y = _data(hud.live.rate_curve)  # 100 tokens 1 ms apart: 20 bins of 5 ms, min and max
    assert len(x) == 40 and y[-1] == 100.0


def test_scripted_replies_give_exact_series_tiers_and_stats(hud: LatencyHud) -> None:
    for ttft in (40.0, 150.0, 250.0, 700.0, 1500.0):
        _reply(hud, ttft)
    stream = hud.stream  # the last reply's series, exact
    assert stream.rate_x.view.tolist() == pytest.approx([(1500 + 10 * k) / 1000 for k in range(20)])
    assert stream.rate.view.tolist() == [float(k + 1) for k in range(20)]
    assert stream.gap_ms.view.tolist() == pytest.approx([10.0] * 19)
    # drawn: one 5 ms bin per token (10 ms apart), each as its min and max
    x, y = _data(hud.live.rate_curve)
    assert y.tolist() == [float(v) for k in range(20) for v in (k + 1, k + 1)]
    tokens_s = np.array([(1500 + 10 * k) / 1000 for k in range(20)])
    assert np.all(np.abs(x[::2] - tokens_s) <= 0.0025 + 1e-9)  # each within its 5 ms bin
    assert _data(hud.live.gap_curve)[1].tolist() == pytest.approx([10.0] * 38)
    points = hud.requests.points.points()
    ttfts = [40.0, 150.0, 250.0, 700.0, 1500.0]  # drawn on a log scale
    assert [p.pos().y() for p in points] == pytest.approx([math.log10(ms) for ms in ttfts])
    colours = [p.brush().color().getRgb()[:3] for p in points]
    from client.ui.hud.plots.palette import TIER_COLORS

    assert colours == [
        TIER_COLORS[t] for t in (Tier.INSTANT, Tier.FAST, Tier.FAST, Tier.TYPING, Tier.SLOW)
    ]
    table = hud.requests.table
    ttft_column = [_text(table, row, 0) for row in range(5)]
    assert ttft_column == ["5", "528.0", "250.0", "1,340.0", "–"]  # numpy: P95 = 1340
    p99_tip = table.item(4, 0).toolTip()
    assert "100 requests" in p99_tip and "of 5 requests." in p99_tip
    assert _text(table, 2, 2) == "100.0"  # tokens/s' P50: 1000 / 10 ms
    assert hud.tier.shown_tier() is Tier.SLOW
    assert "stages" in hud.tier.behaviour_label.text()
    bands = [[10**edge for edge in b.getRegion()] for b in hud.requests.bands.bands]
    assert bands[1:3] == [pytest.approx([100.0, 300.0]), pytest.approx([300.0, 1000.0])]


def test_waterfall_of_the_latest_and_of_a_chosen_message(hud: LatencyHud) -> None:
    timings = [timings_of("llamacpp", {"prompt_ms": 80.0, "predicted_ms": 190.0})]
    _reply(hud, 100.0, message_id=7, timings=timings)
    _reply(hud, 60.0, message_id=8)
    labels = [r.label for r in hud.waterfall.waterfall.rows]  # type: ignore[union-attr]
    assert labels[:2] == ["request written", "response headers"]
    assert "server: prompt processing" not in labels  # the latest had no server timings
    assert hud.show_message(7)
    fall = hud.waterfall.waterfall
    assert fall is not None and fall.transport_and_queue_ms == pytest.approx(20.0)
    assert "transport + queue 20.0 ms" in hud.waterfall.caption.text()
    assert hud.tabs.currentWidget() is hud.waterfall
    assert not hud.show_message(99)
    assert any(text.startswith("painted 1.5 ms") for text in hud.waterfall.row_texts())


def test_clicking_a_ttft_point_shows_its_waterfall(hud: LatencyHud) -> None:
    _reply(hud, 120.0, message_id=1)
    _reply(hud, 900.0, message_id=2)
    first = hud.requests.points.points()[0]
    assert "client TTFT 900.0 ms" in hud.waterfall.caption.text()  # the latest
    hud.requests.points.sigClicked.emit(hud.requests.points, [first], None)
    assert "client TTFT 120.0 ms" in hud.waterfall.caption.text()


def test_scopes_cold_and_history(hud: LatencyHud) -> None:
    hud.load_history(
        [
            {"time": 1.0, "model": "small", "ttft_ms": 500.0, "outcome": "complete"},
            {"time": 2.0, "model": "big", "ttft_ms": 2500.0, "cold": 1, "outcome": "complete"},
        ]
    )
    _reply(hud, 80.0, model="small", cold=True)
    _reply(hud, 90.0, model="small")
    assert _text(hud.requests.table, 0, 0) == "2"  # this session
    hud.requests.scope.setCurrentIndex(1)  # this model ("small"), history included
    assert _text(hud.requests.table, 0, 0) == "3"
    hud.requests.exclude_cold.setChecked(True)
    assert _text(hud.requests.table, 0, 0) == "2"
    assert _plotted_ttfts(hud) == pytest.approx([500.0, 90.0])
    hud.requests.exclude_cold.setChecked(False)
    hud.requests.scope.setCurrentIndex(2)
    hud.requests.last_n.setValue(3)
    assert _plotted_ttfts(hud) == pytest.approx([2500.0, 80.0, 90.0])


def test_thresholds_edited_in_the_tier_view(hud: LatencyHud, qtbot: Any) -> None:
    _reply(hud, 250.0)
    assert hud.tier.shown_tier() is Tier.FAST
    with qtbot.waitSignal(hud.thresholds_changed, timeout=60_000) as signal:
        hud.tier.edits[1].setValue(200.0)
    assert signal.args[0] == TierThresholds(100.0, 200.0, 1000.0)
    assert hud.tier.shown_tier() is Tier.TYPING
    low, high = hud.requests.bands.bands[1].getRegion()
    assert (10**low, 10**high) == pytest.approx((100.0, 200.0))
    hud.set_thresholds(TierThresholds(300.0, 400.0, 500.0))
    assert hud.tier.shown_tier() is Tier.INSTANT and hud.tier.edits[0].value() == 300.0


def test_export_metrics_and_graphs(hud: LatencyHud, tmp_path: Path) -> None:
    _reply(hud, 50.0)
    _reply(hud, 350.0)
    hud.export_metrics(tmp_path / "m.json")
    data = json.loads((tmp_path / "m.json").read_text())
    assert [r["tier"] for r in data["requests"]] == ["instant", "typing"]
    assert data["ttft_ms"]["median"] == 200.0 and data["tpot_ms"]["mean"] == pytest.approx(10.0)
    hud.export_metrics(tmp_path / "m.csv")
    assert (
        (tmp_path / "m.csv")
        .read_text()
        .splitlines()[0]
        .startswith("time,time_unix,server,model,message_id,ttft_ms")
    )
    for suffix in (".png", ".svg"):
        written = hud.export_graphs(tmp_path / f"g{suffix}")
        assert [p.name for p in written] == [
            f"g-{n}{suffix}" for n in ("rate", "gaps", "ttft", "waterfall")
        ]
        assert all(p.stat().st_size > 200 for p in written)
    assert (tmp_path / "g-ttft.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "g-ttft.svg").read_text()


def test_keeps_up_with_a_thousand_tokens_a_second(hud: LatencyHud) -> None:
    """Two seconds at 1 ms spacing, delivered a frame's worth at a time."""
    timeline = RequestTimeline()
    timeline.mark_written(0)
    hud.request_started(timeline, "fast", "local")
    per_frame = FRAME_INTERVAL_MS  # tokens arriving between two frames at 1,000/s
    delivered = 0
    for frame in range(2000 // per_frame + 1):
        for _ in range(per_frame):
            delivered += 1
            hud.token(TokenKind.ANSWER, 1, (100 + delivered) * MS)
        assert hud.stream.pending == per_frame  # a frame only ever sees one frame's stamps
        hud.flush_frame()
        assert hud.stream.tokens == delivered and hud.frames == frame + 1
    rate = hud.stream.rate.view
    assert len(rate) == delivered and rate[-1] == 1000.0 and rate[999] == 1000.0
    assert rate[998] == 999.0 and len(hud.stream.gap_ms) == delivered - 1
    assert hud.stream.stalls == 0
    x, y = _data(hud.live.rate_curve)  # drawn: bounded by the bins, whatever the length
    assert len(x) <= 2 * 1000 and y.max() == 1000.0


def test_the_frame_timer_draws_at_most_thirty_times_a_second(hud: LatencyHud, qtbot: Any) -> None:
    timeline = RequestTimeline()
    start = now_ns()
    timeline.mark_written(start)
    hud.request_started(timeline, "fast", "local")
    fed = {"n": 0}

    def feed() -> None:  # ten tokens every 10 ms: 1,000 tokens/s
        for _ in range(10):
            fed["n"] += 1
            hud.token(TokenKind.ANSWER, 1, now_ns())

    feeder = QTimer()
    feeder.timeout.connect(feed)
    feeder.start(10)
    qtbot.waitUntil(lambda: fed["n"] >= 500, timeout=60_000)
    feeder.stop()
    elapsed_s = (now_ns() - start) / 1e9
    qtbot.waitUntil(lambda: hud.stream.tokens == fed["n"], timeout=60_000)
    assert 1 <= hud.frames <= elapsed_s * 30 + 2
    assert len(hud.stream.rate_x) == fed["n"]
    assert np.all(np.diff(_data(hud.live.rate_curve)[0]) >= 0)


def _text(table: Any, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None, (row, column)
    return str(item.text())


def test_a_reply_streamed_while_hidden_is_drawn_when_shown(hud: LatencyHud) -> None:
    _reply(hud, 100.0, tokens=10)
    hud.hide()
    _reply(hud, 200.0, tokens=30)
    assert len(_data(hud.live.rate_curve)[1]) == 20  # still the first reply's 10 tokens
    hud.show()
    assert _data(hud.live.rate_curve)[1].max() == 30.0 and hud.live.summary.text().count("30")


def test_set_server_chooses_the_model_scope(hud: LatencyHud) -> None:
    hud.load_history([{"time": 1.0, "model": "big", "ttft_ms": 500.0}])
    hud.set_server("http://127.0.0.1:9", "ollama", "big")
    hud.requests.scope.setCurrentIndex(1)
    assert _text(hud.requests.table, 0, 0) == "1"


def test_live_times_count_from_the_request_written_even_when_stamped_later(
    hud: LatencyHud,
) -> None:
    timeline = RequestTimeline()  # as a session hands it over: nothing written yet
    hud.request_started(timeline, "m", "s")
    timeline.mark_written(1_000 * MS)
    for k in range(3):
        timeline.mark_token(TokenKind.ANSWER, 2, (1_250 + 10 * k) * MS)
        hud.token(TokenKind.ANSWER, 2, timeline.tokens[-1].at_ns)
    hud.flush_frame()
    assert hud.stream.rate_x.view.tolist() == pytest.approx([0.25, 0.26, 0.27])


def test_numbers_line_changes_a_few_times_a_second_and_ends_exact(hud: LatencyHud) -> None:
    """Each change of the numbers line repaints it: at 30 frames a second it changes at
    most every SUMMARY_INTERVAL_S, and the reply's end shows its final numbers."""
    from client.ui.hud.tabs.live_plot import SUMMARY_INTERVAL_S

    timeline = RequestTimeline()
    timeline.mark_written(now_ns())
    hud.request_started(timeline, "small", "local")
    texts = []
    for frame in range(12):  # 12 frames back to back: well under one interval
        for k in range(3):
            hud.token(TokenKind.ANSWER, 4, now_ns() + (frame * 3 + k) * MS)
        hud.flush_frame()
        texts.append(hud.live.summary.text())
    assert hud.frames == 12
    assert len(set(texts)) <= 2, texts  # the first frame, then nothing within the interval
    assert SUMMARY_INTERVAL_S <= 0.5
    hud.request_finished(compute_metrics(timeline, None, None), timeline, "complete")
    assert "36 chunks" in hud.live.summary.text()


def test_views_can_follow_a_turn_after_the_reply_ends(hud: LatencyHud) -> None:
    """The window shows the tier, waterfall and requests views a loop turn after the
    reply's end (after the answer's final paint): the record itself is kept at once."""
    timeline = RequestTimeline()
    timeline.mark_written(1_000 * MS)
    hud.request_started(timeline, "small", "local")
    timeline.mark_token(TokenKind.ANSWER, 4, 1_120 * MS)
    hud.token(TokenKind.ANSWER, 4, 1_120 * MS)
    metrics = compute_metrics(timeline, None, None)
    hud.request_finished(metrics, timeline, "complete", views_now=False)
    assert len(hud.book.records) == 1  # recorded now
    assert len(hud.requests.points.points()) == 0  # not drawn yet
    hud.show_last_reply()
    assert _plotted_ttfts(hud) == pytest.approx([120.0])


def test_a_new_request_clears_the_last_replys_live_figures(hud: LatencyHud, qtbot: Any) -> None:
    """A request whose server sends nothing: the Live tab no longer shows the last
    reply's "tokens/s in the last second" (issue 27: "55 tokens/s in the last second" stayed)."""
    _reply(hud, ttft_ms=50, tokens=20)
    assert "20 chunks" in hud.live.summary.text()
    timeline = RequestTimeline()
    timeline.mark_written(now_ns())
    hud.request_started(timeline, "small", "local")  # and no token comes
    qtbot.waitUntil(lambda: "20 chunks" not in hud.live.summary.text(), timeout=60_000)
    assert "tokens/s in the last second" not in hud.live.summary.text()
    assert _data(hud.live.rate_curve)[0] is None or len(_data(hud.live.rate_curve)[0]) == 0
