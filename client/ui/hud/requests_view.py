"""TTFT per request over tier bands, and the running mean / P50 / P95 / P99 with n."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from client.core.stats import Summary
from client.core.tiers import Tier, TierThresholds
from client.services.hud.hud_model import (
    P99_MIN_N,
    STAT_FIELDS,
    HudRecord,
    RequestBook,
    Scope,
    ScopeStats,
)
from client.ui.common.locale_text import NOTHING, number
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.hud.palette import BAND_ALPHA, TIER_COLORS

SCOPE_NAMES = {  # shown through RequestsView.tr
    Scope.SESSION: QT_TRANSLATE_NOOP("RequestsView", "This session"),
    Scope.MODEL: QT_TRANSLATE_NOOP("RequestsView", "This model"),
    Scope.LAST_N: QT_TRANSLATE_NOOP("RequestsView", "Last N"),
}
# The metric names (ttft_ms ...) and n / P50 are the design's names, the same in
# bench and exports: not translated.
COLUMNS = ("n", QT_TRANSLATE_NOOP("RequestsView", "mean"), "P50", "P95", "P99")
SLOW_BAND_TOP_MS = 1e7  # the slow band reaches beyond any plotted value


class RequestsView(QWidget):
    request_clicked = Signal(object)  # HudRecord
    scope_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = pg.PlotWidget()
        self.plot.setLabel("left", "TTFT (ms)")  # units= would print "kms" past 1 s
        self.plot.setLabel("bottom", self.tr("request"))
        self.bands = [pg.LinearRegionItem(orientation="horizontal", movable=False) for _ in Tier]
        for band, tier in zip(self.bands, Tier, strict=True):
            band.setBrush(pg.mkBrush(*TIER_COLORS[tier], BAND_ALPHA))
            band.setZValue(-10)
            self.plot.addItem(band)
        self.points = pg.ScatterPlotItem(size=10, hoverable=True)
        self.points.sigClicked.connect(self._clicked)
        self.plot.addItem(self.points)
        self.shown: list[HudRecord] = []  # the records behind the plotted points
        self.scope = QComboBox()
        for scope, name in SCOPE_NAMES.items():
            self.scope.addItem(self.tr(name), scope)
        self.last_n = QSpinBox(minimum=1, maximum=100_000, value=50)
        self.last_n.setGroupSeparatorShown(True)
        self.exclude_cold = QCheckBox(self.tr("Exclude cold"))
        self.table = QTableWidget(len(STAT_FIELDS), len(COLUMNS))
        self.table.setHorizontalHeaderLabels([self.tr(column) for column in COLUMNS])
        self.table.setVerticalHeaderLabels(list(STAT_FIELDS))
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        # All five columns in the dock's width: P95/P99 must not hide behind a scroll bar.
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(False)  # "n < 100" on one line
        for signal in (
            self.scope.currentIndexChanged,
            self.last_n.valueChanged,
            self.exclude_cold.toggled,
        ):
            signal.connect(self.scope_changed)
        # Two lines: on one, the controls made the dock (and the window) 360 px wide at least.
        controls = QGridLayout()
        controls.addWidget(QLabel(self.tr("Scope:")), 0, 0)
        controls.addWidget(self.scope, 0, 1)
        controls.addWidget(QLabel("N:"), 0, 2)
        controls.addWidget(self.last_n, 0, 3)
        controls.addWidget(self.exclude_cold, 1, 1, 1, 3)
        controls.setColumnStretch(4, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 3)
        layout.addLayout(controls)
        layout.addWidget(self.table, 1)

    def current_scope(self) -> Scope:
        return Scope(self.scope.currentData())

    def set_thresholds(self, thresholds: TierThresholds) -> None:
        edges = (
            0.0,
            thresholds.instant_below_ms,
            thresholds.fast_below_ms,
            thresholds.typing_below_ms,
            SLOW_BAND_TOP_MS,
        )
        for band, low, high in zip(self.bands, edges, edges[1:], strict=False):
            band.setRegion((low, high))

    def show_records(self, book: RequestBook, records: list[HudRecord], stats: ScopeStats) -> None:
        x, y, tiers, cold = book.ttft_series(records)
        self.shown = [r for r in records if r.ttft_ms is not None]
        brushes = [pg.mkBrush(*TIER_COLORS[t]) for t in tiers]
        symbols = ["x" if c else "o" for c in cold]  # a cold start (model load) is a cross
        self.points.setData(x=x, y=y, brush=brushes, symbol=symbols, data=list(range(len(x))))
        if len(y):
            self.plot.setYRange(0, float(max(y.max(), book.thresholds.typing_below_ms)) * 1.1)
            self.plot.setXRange(0.5, float(x.max()) + 0.5)
        for row, name in enumerate(STAT_FIELDS):
            self._fill_row(row, stats.summaries.get(name), stats.shown_p99(name))

    def _fill_row(self, row: int, summary: Summary | None, p99: float | None) -> None:
        values = [number(0), NOTHING, NOTHING, NOTHING, NOTHING]
        if summary is not None:
            values = [
                number(summary.n),
                number(summary.mean, 1),
                number(summary.median, 1),
                number(summary.p95, 1),
                number(p99, 1) if p99 is not None else f"n < {number(P99_MIN_N)}",
            ]
        for column, text in enumerate(values):
            item = QTableWidgetItem(text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, column, item)

    def _clicked(self, _item: object, points: list[object], *_args: object) -> None:
        if len(points):
            index = points[0].data()  # type: ignore[attr-defined]
            if 0 <= index < len(self.shown):
                self.request_clicked.emit(self.shown[index])
