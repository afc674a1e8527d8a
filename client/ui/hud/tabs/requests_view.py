"""TTFT per request over named tier bands (log scale), and the mean / P50 / P95 / P99 with n
of each metric, named in words."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from client.core.stats import Summary
from client.core.tiers import TierThresholds
from client.services.hud.hud_model import (
    P99_MIN_N,
    STAT_FIELDS,
    TOOL_RUN,
    HudRecord,
    RequestBook,
    Scope,
    ScopeStats,
)
from client.services.hud.reading_quality import (
    READER_FIRST_TOKEN_S,
    READER_TOKENS_PER_S,
    qoe_spread,
)
from client.ui.common.locale_text import NOTHING, number
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.hud.plots.palette import TIER_COLORS
from client.ui.hud.plots.tier_bands import TierBands
from client.ui.hud.plots.ttft_axes import RequestAxis, TtftAxis, duration_text, log_ms

SCOPE_NAMES = {  # shown through RequestsView.tr
    Scope.SESSION: QT_TRANSLATE_NOOP("RequestsView", "This session"),
    Scope.MODEL: QT_TRANSLATE_NOOP("RequestsView", "This model"),
    Scope.LAST_N: QT_TRANSLATE_NOOP("RequestsView", "Last N"),
}
# A row per statistic; n and P50 ... are the design's names, the same in bench and
# exports: not translated.
STATISTICS = ("n", QT_TRANSLATE_NOOP("RequestsView", "mean"), "P50", "P95", "P99")
# A column per metric, named in words; its design name (ttft_ms ...) in its tooltip.
# (Metrics as columns: their names wrap in a narrow dock, and the figures keep room.)
METRIC_NAMES = {
    "ttft_ms": QT_TRANSLATE_NOOP("RequestsView", "Time to first token (ms)"),
    "tpot_ms": QT_TRANSLATE_NOOP("RequestsView", "Time per output token (ms)"),
    "tokens_per_s": QT_TRANSLATE_NOOP("RequestsView", "Tokens per second"),
    TOOL_RUN: QT_TRANSLATE_NOOP("RequestsView", "Tool run (ms)"),  # each call; shown with tools
}
COLUMNS = (*STAT_FIELDS, TOOL_RUN)
NAMES_ROOM = 0.15  # of the requests shown, added on the right for the bands' names
PLOT_LEAST_PX = 160  # the four tier bands stay readable
HEADER_PADDING = 8  # px around a header's text
NOT_SHOWN = "–"  # P99 of too few requests
# The y range reaches at least this far around the tier edges: every band stays in view.
BELOW_INSTANT = 0.5
ABOVE_TYPING = 2.0


class RequestsView(QWidget):
    request_clicked = Signal(object)  # HudRecord
    scope_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        axes = {"left": TtftAxis("left"), "bottom": RequestAxis("bottom")}
        self.plot = pg.PlotWidget(axisItems=axes)
        self.plot.setLabel("left", self.tr("time to first token"))
        self.plot.setLabel("bottom", self.tr("request"))
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.setMinimumHeight(PLOT_LEAST_PX)
        self.bands = TierBands(self.plot.getPlotItem())
        self.thresholds: TierThresholds | None = None
        self.points = pg.ScatterPlotItem(size=10, hoverable=True, tip=self.point_tip)
        self.points.sigClicked.connect(self._clicked)
        self.plot.addItem(self.points)
        self.shown: list[HudRecord] = []  # the records behind the plotted points
        self.scope = QComboBox()
        for scope, name in SCOPE_NAMES.items():
            self.scope.addItem(self.tr(name), scope)
        self.last_n = QSpinBox(minimum=1, maximum=100_000, value=50)
        self.last_n.setGroupSeparatorShown(True)
        self.exclude_cold = QCheckBox(self.tr("Exclude cold"))
        self.table = self._statistics_table()
        self.tools_line = QLabel()  # the share of the turns' time in tools (approvals out)
        self.tools_line.setObjectName("toolsLine")
        self.tools_line.setWordWrap(True)
        self.tools_line.setToolTip(
            self.tr(
                "Each tool call's run, and the share of the time of the turns that ran "
                "tools spent running them; the wait for your approval is left out."
            )
        )
        self.tools_line.hide()
        self.qoe_line = QLabel()  # Andes' QoE over the requests shown: P50, P5, n
        self.qoe_line.setObjectName("qoeLine")
        self.qoe_line.setWordWrap(True)
        self.qoe_line.setToolTip(
            self.tr(
                "QoE: the share of an answer a reader at {rate} tokens a second, who "
                "expects the first token within {wait} s, could read on time (Andes, "
                "arXiv 2404.16283). 1.00: never waited for text."
            ).format(rate=number(READER_TOKENS_PER_S), wait=number(READER_FIRST_TOKEN_S))
        )
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
        layout.addWidget(self.plot, 1)
        layout.addLayout(controls)
        layout.addWidget(self.table)
        layout.addWidget(self.tools_line)
        layout.addWidget(self.qoe_line)

    def _statistics_table(self) -> QTableWidget:
        table = QTableWidget(len(STATISTICS), len(COLUMNS))
        table.setVerticalHeaderLabels([self.tr(name) for name in STATISTICS])
        self.metric_headers = [QTableWidgetItem(self.tr(METRIC_NAMES[n])) for n in COLUMNS]
        for column, (item, name) in enumerate(zip(self.metric_headers, COLUMNS, strict=True)):
            item.setToolTip(name)
            table.setHorizontalHeaderItem(column, item)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setTabKeyNavigation(False)  # Tab leaves the table (arrows move in it)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        wrapped = int(Qt.AlignmentFlag.AlignCenter) | int(Qt.TextFlag.TextWordWrap)
        header.setDefaultAlignment(Qt.AlignmentFlag(wrapped))
        table.setWordWrap(False)
        table.setSizeAdjustPolicy(QTableWidget.SizeAdjustPolicy.AdjustToContents)
        # As tall as its rows, or less in a short dock (the plot keeps PLOT_LEAST_PX).
        table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        rows = table.verticalHeader()
        rows.setDefaultSectionSize(rows.fontMetrics().lineSpacing() + HEADER_PADDING)
        header.sectionResized.connect(self._fit_header)
        return table

    def _fit_header(self) -> None:
        """The header as tall as its most wrapped metric name (Qt keeps one line)."""
        header = self.table.horizontalHeader()
        metrics = header.fontMetrics()
        flags = int(Qt.AlignmentFlag.AlignCenter) | int(Qt.TextFlag.TextWordWrap)
        lines = 1
        for column, item in enumerate(self.metric_headers):
            if self.table.isColumnHidden(column):
                continue
            room = QRect(0, 0, max(header.sectionSize(column) - HEADER_PADDING, 1), 10_000)
            height = metrics.boundingRect(room, flags, item.text()).height()
            lines = max(lines, round(height / metrics.lineSpacing()))
        header.setFixedHeight(lines * metrics.lineSpacing() + HEADER_PADDING)

    def current_scope(self) -> Scope:
        return Scope(self.scope.currentData())

    def set_thresholds(self, thresholds: TierThresholds) -> None:
        self.thresholds = thresholds
        self.bands.set_thresholds(thresholds)
        self._set_y_range([])

    def show_records(self, book: RequestBook, records: list[HudRecord], stats: ScopeStats) -> None:
        x, y, tiers, cold = book.ttft_series(records)
        self.shown = [r for r in records if r.ttft_ms is not None]
        brushes = [pg.mkBrush(*TIER_COLORS[t]) for t in tiers]
        symbols = ["x" if c else "o" for c in cold]  # a cold start (model load) is a cross
        log_y = [log_ms(float(ms)) for ms in y]
        self.points.setData(x=x, y=log_y, brush=brushes, symbol=symbols, data=list(range(len(x))))
        self._set_y_range([float(ms) for ms in y])
        last = float(x.max()) if len(x) else 5.0
        # Room on the right for the bands' names, clear of the last points.
        self.plot.setXRange(0.5, last + 0.5 + NAMES_ROOM * last, padding=0)
        for column, name in enumerate(COLUMNS):
            self._fill_column(column, stats.summaries.get(name), stats.shown_p99(name))
        self._show_tools(stats)
        self._show_qoe([r.qoe for r in records])

    def _show_tools(self, stats: ScopeStats) -> None:
        """The tools' column and line, while the requests shown ran tools."""
        shown = stats.summaries.get(TOOL_RUN) is not None
        self.table.setColumnHidden(COLUMNS.index(TOOL_RUN), not shown)
        self.tools_line.setVisible(shown)
        if shown and stats.tools_share is not None:
            line = self.tr(
                "Time in tools: {share}% of %Ln turn(s) with tools", "", stats.tool_turns
            )
            self.tools_line.setText(line.format(share=number(round(100 * stats.tools_share))))

    def _show_qoe(self, qoes: list[float | None]) -> None:
        spread = qoe_spread(qoes)
        if spread.p50 is None or spread.p5 is None:
            self.qoe_line.setText(self.tr("QoE: no answers yet"))
            return
        self.qoe_line.setText(
            self.tr("QoE: P50 {p50} · P5 {p5} · n {n}").format(
                p50=number(spread.p50, 2), p5=number(spread.p5, 2), n=number(spread.n)
            )
        )

    def _set_y_range(self, ttfts_ms: list[float]) -> None:
        """From below the instant band to above the typing band's top, or further to
        the fastest and slowest reply shown: every tier stays in view."""
        if self.thresholds is None:
            return
        low = min([self.thresholds.instant_below_ms * BELOW_INSTANT, *ttfts_ms])
        high = max([self.thresholds.typing_below_ms * ABOVE_TYPING, *ttfts_ms])
        self.plot.setYRange(log_ms(low), log_ms(high), padding=0.05)

    def _fill_column(self, column: int, summary: Summary | None, p99: float | None) -> None:
        values = [number(0), NOTHING, NOTHING, NOTHING, NOTHING]
        if summary is not None:
            values = [
                number(summary.n),
                number(summary.mean, 1),
                number(summary.median, 1),
                number(summary.p95, 1),
                number(p99, 1) if p99 is not None else NOT_SHOWN,
            ]
        for row, text in enumerate(values):
            item = QTableWidgetItem(text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if row == len(values) - 1 and p99 is None:
                runs = column == COLUMNS.index(TOOL_RUN)  # its n counts tool runs
                item.setToolTip(self._p99_wait(summary.n if summary else 0, runs))
            self.table.setItem(row, column, item)

    def _p99_wait(self, n: int, runs: bool = False) -> str:
        if runs:
            needs = self.tr("P99 needs at least %Ln tool runs", "", P99_MIN_N)
            has = self.tr("these figures are of %Ln tool run(s).", "", n)
        else:
            needs = self.tr("P99 needs at least %Ln requests", "", P99_MIN_N)
            has = self.tr("these figures are of %Ln request(s).", "", n)
        return self.tr("{needs}; {has}").format(needs=needs, has=has)

    def set_prediction_note(self, text: str) -> None:
        """How far the predicted first-token waits were off: the TTFT column's tooltip."""
        column = STAT_FIELDS.index("ttft_ms")
        tip = f"ttft_ms\n{text}" if text else "ttft_ms"
        self.metric_headers[column].setToolTip(tip)

    def point_tip(self, x: float, y: float, data: object = None) -> str:
        """A point's tooltip: its request, its time to first token (y is log10 ms) and
        its QoE when it has one."""
        tip = self.tr("Request {n}: {ttft} to first token").format(
            n=number(round(x)), ttft=duration_text(10**y)
        )
        index = data if isinstance(data, int) else round(x) - 1
        qoe = self.shown[index].qoe if 0 <= index < len(self.shown) else None
        if qoe is None:
            return tip
        return self.tr("{request}, QoE {qoe}").format(request=tip, qoe=number(qoe, 2))

    def set_text_colour(self, colour: str) -> None:
        self.bands.set_colour(colour)

    def _clicked(self, _item: object, points: list[object], *_args: object) -> None:
        if len(points):
            index = points[0].data()  # type: ignore[attr-defined]
            if 0 <= index < len(self.shown):
                self.request_clicked.emit(self.shown[index])
