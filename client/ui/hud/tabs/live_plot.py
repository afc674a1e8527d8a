"""The current reply: token rate over a sliding 1 s window, and inter-token gaps beneath it
with stalls marked. Curves are made once; `show_stream()` only calls setData.

Axis ranges grow in steps instead of auto-ranging every frame: pyqtgraph redraws an
axis (ticks, labels, grid) whenever its range changes, and that was most of a frame's
cost at 30 frames a second. The curves get the series already reduced to a min/max per
pixel-sized bin (PeakSeries, kept up to date incrementally), so setData's work stays
bounded however long the reply runs; clip-to-view and downsampling stay on for zooms.
"""

from __future__ import annotations

import math
import time

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsItem, QLabel, QSizePolicy, QVBoxLayout, QWidget

from client.services.hud.hud_live import LiveStream, PeakSeries
from client.ui.common.locale_text import number
from client.ui.hud.plots.palette import GAP_COLOR, RATE_COLOR, STALL_COLOR

START_SPAN_S = 5.0
START_RATE = 50.0
START_GAP_MS = 100.0
HEADROOM = 1.25
# The numbers line: four changes a second are readable; thirty are a blur that costs a
# repaint each.
SUMMARY_INTERVAL_S = 0.25


def nice_ceiling(value: float) -> float:
    """The next of 1, 2, 5 x 10^k at or above value (a range that stays put a while)."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= value)


def _fast_curve(curve: pg.PlotDataItem) -> pg.PlotDataItem:
    # Only the visible part is drawn, reduced to about one point per pixel.
    curve.setClipToView(True)
    curve.setDownsampling(auto=True, method="peak")
    curve.setSkipFiniteCheck(True)
    return curve


class LivePlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(self.tr("No reply yet."))
        # Its text changes every few frames: a fixed-size line, so a change repaints the
        # label alone instead of laying out (and repainting) the whole dock.
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._summary_at = 0.0
        self.graphs = pg.GraphicsLayoutWidget()
        self.rate_plot = self.graphs.addPlot(row=0, col=0)
        self.rate_plot.setLabel("left", self.tr("tokens/s"))
        self.gap_plot = self.graphs.addPlot(row=1, col=0)
        self.gap_plot.setLabel("left", self.tr("gap (ms)"))
        self.gap_plot.setLabel("bottom", self.tr("seconds since request written"))
        self.gap_plot.setXLink(self.rate_plot)
        for plot in (self.rate_plot, self.gap_plot):
            plot.disableAutoRange()
            plot.setMouseEnabled(x=False, y=False)
            for name in ("left", "bottom"):
                # An axis changes only when its range steps: keep it as a pixmap instead
                # of replaying its drawing every frame.
                plot.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.rate_curve = _fast_curve(self.rate_plot.plot(pen=pg.mkPen(RATE_COLOR, width=2)))
        self.gap_curve = _fast_curve(self.gap_plot.plot(pen=pg.mkPen(GAP_COLOR)))
        self.stall_marks = self.gap_plot.plot(
            pen=None, symbol="o", symbolSize=8, symbolBrush=pg.mkBrush(STALL_COLOR)
        )
        self._stalls_shown = -1
        self._ranges = (0.0, 0.0, 0.0)
        self._rate_peaks = PeakSeries()
        self._gap_peaks = PeakSeries()
        self.reset()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.graphs)

    def reset(self, waiting: bool = False) -> None:
        """A new reply: empty curves, starting ranges; `waiting`: its request is out and
        no token came yet (the last reply's numbers go too)."""
        if waiting:
            self.summary.setText(self.tr("No tokens yet in this reply."))
        self._stalls_shown = -1
        self._rate_peaks, self._gap_peaks = PeakSeries(), PeakSeries()
        self._set_ranges(START_SPAN_S, START_RATE, START_GAP_MS)
        for curve in (self.rate_curve, self.gap_curve, self.stall_marks):
            curve.setData([], [])

    def _set_ranges(self, span_s: float, rate: float, gap_ms: float) -> None:
        if (span_s, rate, gap_ms) == self._ranges:
            return
        self._ranges = (span_s, rate, gap_ms)
        self.rate_plot.setRange(xRange=(0, span_s), yRange=(0, rate), padding=0)
        self.gap_plot.setRange(yRange=(0, gap_ms), padding=0)

    def show_stream(self, stream: LiveStream, rate_now: int, summary_now: bool = False) -> None:
        span, rate, gap = self._ranges
        last_x = stream.rate_x.view[-1] if len(stream.rate_x) else 0.0
        if last_x > span or stream.rate_max > rate or stream.gap_max_ms > gap:
            self._set_ranges(
                nice_ceiling(last_x * HEADROOM) if last_x > span else span,
                nice_ceiling(stream.rate_max * HEADROOM) if stream.rate_max > rate else rate,
                nice_ceiling(stream.gap_max_ms * HEADROOM) if stream.gap_max_ms > gap else gap,
            )
        span = self._ranges[0]
        self.rate_curve.setData(
            *self._rate_peaks.update(stream.rate_x.view, stream.rate.view, span)
        )
        self.gap_curve.setData(*self._gap_peaks.update(stream.gap_x.view, stream.gap_ms.view, span))
        if stream.stalls != self._stalls_shown:  # rare: a scatter rebuild is the costly part
            self._stalls_shown = stream.stalls
            self.stall_marks.setData(stream.stall_x.view, stream.stall_ms.view)
        if summary_now or time.monotonic() - self._summary_at >= SUMMARY_INTERVAL_S:
            self.show_summary(stream, rate_now)

    def show_silence(self, stream: LiveStream, rate_now: int, stall_counted: bool) -> None:
        """A frame without tokens: the rate now (falling), and a stall once counted."""
        if stall_counted:
            self._stalls_shown = stream.stalls
            self.stall_marks.setData(stream.stall_x.view, stream.stall_ms.view)
        if stall_counted or time.monotonic() - self._summary_at >= SUMMARY_INTERVAL_S:
            self.show_summary(stream, rate_now)

    def show_summary(self, stream: LiveStream, rate_now: int) -> None:
        self._summary_at = time.monotonic()
        rate = self.tr("{rate} tokens/s in the last second").format(rate=number(rate_now))
        chunks = self.tr("%Ln chunk(s)", "", stream.tokens)
        stalls = self.tr("%Ln stall(s)", "", stream.stalls)
        self.summary.setText(" · ".join((rate, chunks, stalls)))
