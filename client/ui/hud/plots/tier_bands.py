"""The tier bands behind the Requests plot, each named at the plot's right edge with the
product's tier name (instant, fast, typing, slow) in the window's language. The plot's
y is log10(ms) (client.ui.hud.plots.ttft_axes); a name sits in the middle of the part of its
band in view, so the slow band's name stays on screen whatever its top."""

from __future__ import annotations

import itertools

import pyqtgraph as pg
from PySide6.QtGui import QColor

from client.core.tiers import Tier, TierThresholds
from client.ui.common.tier_words import tier_name
from client.ui.hud.plots.palette import BAND_ALPHA, TIER_COLORS
from client.ui.hud.plots.ttft_axes import log_ms

FLOOR_MS = 0.01  # the instant band's bottom
SLOW_BAND_TOP_MS = 1e7  # the slow band reaches beyond any plotted value
INDENT_PX = 4.0


class TierBands:
    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.bands = [pg.LinearRegionItem(orientation="horizontal", movable=False) for _ in Tier]
        self.names = [pg.TextItem(anchor=(1, 0.5)) for _ in Tier]
        for band, name, tier in zip(self.bands, self.names, Tier, strict=True):
            band.setBrush(pg.mkBrush(*TIER_COLORS[tier], BAND_ALPHA))
            band.setZValue(-10)
            plot.addItem(band)
            name.setZValue(-5)
            plot.addItem(name, ignoreBounds=True)
        self.edges: list[tuple[float, float]] = []
        self.retranslate()
        plot.getViewBox().sigRangeChanged.connect(self.place_names)

    def retranslate(self) -> None:
        for name, tier in zip(self.names, Tier, strict=True):
            name.setText(tier_name(tier))

    def set_colour(self, colour: str) -> None:
        """The names in the plot's text colour (the window's, light or dark)."""
        for name in self.names:
            name.setColor(QColor(colour))

    def set_thresholds(self, thresholds: TierThresholds) -> None:
        edges_ms = (
            FLOOR_MS,
            thresholds.instant_below_ms,
            thresholds.fast_below_ms,
            thresholds.typing_below_ms,
            SLOW_BAND_TOP_MS,
        )
        self.edges = [(log_ms(low), log_ms(high)) for low, high in itertools.pairwise(edges_ms)]
        for band, (low, high) in zip(self.bands, self.edges, strict=True):
            band.setRegion((low, high))
        self.place_names()

    def place_names(self) -> None:
        view = self.plot.getViewBox()
        (_, right), (bottom, top) = view.viewRange()
        right -= INDENT_PX * view.viewPixelSize()[0]
        for name, (low, high) in zip(self.names, self.edges, strict=False):
            shown_low, shown_high = max(low, bottom), min(high, top)
            name.setVisible(shown_high > shown_low)
            name.setPos(right, (shown_low + shown_high) / 2)

    def shown_names(self) -> list[str]:
        return [name.textItem.toPlainText() for name in self.names if name.isVisible()]
