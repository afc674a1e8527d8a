"""A waterfall's row names written above each bar, from the plot's left edge.

As tick labels of the left axis the names took about three quarters of the HUD's default
width and left the bars a few pixels; written inside the plot they cost no width. A name
wider than the plot is elided in the middle (its stage and its time stay in view); each
keeps its whole text in a tooltip. The text items are
made once and reused; a new waterfall only sets their text and place.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF

TEXT_MARGIN = 1.0  # px around a name (Qt's 4 would cost a dense waterfall its bars' room)
INDENT = 4.0  # px from the plot's left edge
SMALLEST_POINTS = 6.0  # a crowded waterfall's names get no smaller than this


class RowLabels:
    def __init__(self, plot: pg.PlotItem, room_rows: float = 1.0) -> None:
        """room_rows: the height, in rows, a name has above its bar (the gap to the
        bar above): in a short dock the names' font shrinks to fit it."""
        self.plot = plot
        self.room_rows = room_rows
        self.font = QFont()
        self.items: list[pg.TextItem] = []
        self.texts: list[str] = []
        self.bottoms: list[float] = []  # each name's baseline: its bar's top, in rows
        self.colour = "#000000"
        view = plot.getViewBox()
        view.sigXRangeChanged.connect(self._place)
        view.sigResized.connect(self._fit)

    def show(self, texts: Sequence[str], bottoms: Sequence[float]) -> None:
        """One name per row, written just above `bottoms` (data y)."""
        while len(self.items) < len(texts):
            item = pg.TextItem(color=self.colour, anchor=(0, 1))
            item.textItem.document().setDocumentMargin(TEXT_MARGIN)
            self.plot.addItem(item, ignoreBounds=True)
            self.items.append(item)
        self.texts, self.bottoms = list(texts), list(bottoms)
        for index, item in enumerate(self.items):
            item.setVisible(index < len(self.texts))
        self._place()
        self._fit()

    def set_colour(self, colour: str) -> None:
        self.colour = colour
        for item in self.items:
            item.setColor(colour)

    def shown(self) -> list[str]:
        """The text each row shows now (elided when the plot is narrower than its name)."""
        return [item.textItem.toPlainText() for item in self.items[: len(self.texts)]]

    def _place(self) -> None:
        view = self.plot.getViewBox()
        left = view.viewRange()[0][0] + INDENT * view.viewPixelSize()[0]
        for item, bottom in zip(self.items, self.bottoms, strict=False):
            item.setPos(left, bottom)

    def _fit(self) -> None:
        self._place()  # the indent is in pixels: a new width moves it
        room = self.plot.getViewBox().width() - INDENT
        font = self._font_for_rows()
        for item, text in zip(self.items, self.texts, strict=False):
            item.setFont(font)
            margin = 2 * item.textItem.document().documentMargin()
            metrics = QFontMetricsF(font)
            shown = text
            if metrics.horizontalAdvance(text) + margin > room:
                shown = metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, room - margin)
            item.setText(shown)
            item.setToolTip(text)
            item.textItem.setToolTip(text)

    def _font_for_rows(self) -> QFont:
        """The names' font, made smaller when a row is too short for a line of it
        (a Chinese name in a short dock wrote over the bar above). A line's height is
        measured on the names themselves: a fallback font (CJK) sets it, not QFont's."""
        row_px = 1.0 / max(abs(self.plot.getViewBox().viewPixelSize()[1]), 1e-9)
        room = self.room_rows * row_px - 2 * TEXT_MARGIN
        font = QFont(self.font)
        shown = self.items[: len(self.texts)]
        for item in shown:
            item.setFont(font)
        line = max((item.textItem.boundingRect().height() for item in shown), default=0.0)
        line -= 2 * TEXT_MARGIN
        if line > room > 0 and font.pointSizeF() > 0:
            font.setPointSizeF(max(SMALLEST_POINTS, font.pointSizeF() * room / line))
        return font
