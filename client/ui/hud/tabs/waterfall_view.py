"""Where one request's time went: client-measured rows beside the server's own.

Each row's name is written above its bar (client.ui.hud.plots.row_labels), not on a left axis,
so the bars get the plot's whole width at the HUD's default width.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from client.services.hud.hud_model import RETRIEVING_COUNTED
from client.services.hud.waterfall import (
    APPROVAL_SIDE,
    ROUTE_DECISION,
    RUN_ERROR_ROW,
    RUN_ROW,
    Waterfall,
    WaterfallRow,
)
from client.ui.common.locale_text import number
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.route_words import decision_reason, stage_route, tier_label
from client.ui.common.server_names import server_kind_name
from client.ui.common.turn_words import turn_word
from client.ui.hud.plots.locale_axis import LocaleAxis
from client.ui.hud.plots.palette import SIDE_COLORS
from client.ui.hud.plots.row_labels import RowLabels

MOMENT_WIDTH_FRACTION = 0.004  # a moment (first token ...) is a thin bar this wide
# Row i spans i-0.5 .. i+0.5: its name in the upper part, its bar at the bottom (a
# default-sized HUD gives a cascade's 17 rows about 29 px each; a name needs about 19).
BAR_HEIGHT = 0.35
BAR_TOP = 0.15  # below the row's centre
AXIS_AIR = 0.1  # rows of room between the last bar and the time axis


class WaterfallView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel(self.tr("Send a message, or click a point in Requests."))
        self.caption.setWordWrap(True)
        self.plot = pg.PlotWidget(axisItems={"bottom": LocaleAxis("bottom")})
        self.plot.setLabel("bottom", self.tr("ms since request written"))  # no units=: "kms"
        self.plot.hideAxis("left")  # the rows are named above their bars
        self.plot.invertY(True)  # first phase on top, like a browser's waterfall
        self.bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_HEIGHT, brushes=[])
        self.plot.addItem(self.bars)
        self.labels = RowLabels(self.plot.getPlotItem(), room_rows=1.0 - BAR_HEIGHT)
        self.waterfall: Waterfall | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.plot)

    def show_waterfall(self, waterfall: Waterfall, title: str) -> None:
        self.waterfall = waterfall
        rows = waterfall.rows
        span = max((max(r.end_ms, r.start_ms) for r in rows), default=1.0) or 1.0
        moment = span * MOMENT_WIDTH_FRACTION
        x0 = np.array([r.start_ms for r in rows])
        width = np.array([max(r.end_ms - r.start_ms, moment) for r in rows])
        brushes = [_brush(r.side) for r in rows]
        tops = np.arange(len(rows)) + BAR_TOP
        self.bars.setOpts(x0=x0, y=tops + BAR_HEIGHT / 2, width=width, brushes=brushes)
        self.plot.setYRange(-0.5, len(rows) - 0.5 + AXIS_AIR, padding=0)
        self.plot.setXRange(min(0.0, float(x0.min(initial=0.0))), span * 1.05)
        texts = [f"{_row_text(r)} {_duration(r.start_ms, r.end_ms)}" for r in rows]
        self.labels.show(texts, list(tops))
        self.plot.setAccessibleDescription("\n".join(texts))
        lines = [title, _summary(waterfall), *_route_lines(waterfall), *_tools_line(waterfall)]
        self.caption.setText("\n".join(lines))

    def row_texts(self) -> list[str]:
        """Each row's whole name with its time, top to bottom."""
        return list(self.labels.texts)

    def set_text_colour(self, colour: str) -> None:
        self.labels.set_colour(colour)


# The rows client.services.hud.hud_model.build_waterfall names, but its stages (said as
# the turn's states, with the window's one set of words: client/ui/common/turn_words.py);
# tests/ui/shell/test_translations.py checks a full waterfall's rows.
ROW_LABELS = (
    QT_TRANSLATE_NOOP("WaterfallView", "request written"),
    QT_TRANSLATE_NOOP("WaterfallView", "response headers"),
    QT_TRANSLATE_NOOP("WaterfallView", "first token"),
    QT_TRANSLATE_NOOP("WaterfallView", "last token"),
    QT_TRANSLATE_NOOP("WaterfallView", "painted"),
    QT_TRANSLATE_NOOP("WaterfallView", "server: model load"),
    QT_TRANSLATE_NOOP("WaterfallView", "server: prompt processing"),
    QT_TRANSLATE_NOOP("WaterfallView", "server: generation"),
    QT_TRANSLATE_NOOP("WaterfallView", "server: queue"),
    QT_TRANSLATE_NOOP("WaterfallView", "transport + queue"),
    QT_TRANSLATE_NOOP("WaterfallView", "route decision"),
)
# Rows with figures: hud_model's templates (the same text, a test compares them),
# filled in with the locale's numbers.
COUNTED_LABELS = (
    QT_TRANSLATE_NOOP("WaterfallView", "{state} · {passages} passages, {tokens} tokens"),
    QT_TRANSLATE_NOOP("WaterfallView", "server: prompt {cached} cached + {computed} computed"),
    QT_TRANSLATE_NOOP("WaterfallView", "server: {drafted} drafted, {accepted} accepted"),
    QT_TRANSLATE_NOOP("WaterfallView", "image ×{images} · {kilobytes} KB · {pixels} px"),
    QT_TRANSLATE_NOOP(
        "WaterfallView",
        "image ×{images} · {kilobytes} KB · {pixels} px · {tokens} tokens",
    ),
    QT_TRANSLATE_NOOP(
        "WaterfallView", "question read while typing: {tokens} tokens, saved about {ms} ms"
    ),
    QT_TRANSLATE_NOOP("WaterfallView", "question read while typing: {tokens} tokens"),
)
# A turn with tools' rows (client/services/hud/waterfall.py: call_rows), the same text.
CALL_LABELS = (
    QT_TRANSLATE_NOOP("WaterfallView", "tool servers ready"),
    QT_TRANSLATE_NOOP("WaterfallView", "model call {step}"),
    QT_TRANSLATE_NOOP("WaterfallView", "model call {step} · reading the results"),
    QT_TRANSLATE_NOOP("WaterfallView", "{tool} · arguments streamed"),
    QT_TRANSLATE_NOOP("WaterfallView", "{tool} · waiting for your approval (not latency)"),
    QT_TRANSLATE_NOOP("WaterfallView", "{tool} · run · result {chars} characters"),
    QT_TRANSLATE_NOOP("WaterfallView", "{tool} · run · error, {chars} characters"),
    QT_TRANSLATE_NOOP("WaterfallView", "{tool} · not run · {chars} characters"),
)


def row_label(row: WaterfallRow) -> str:
    """A row's name in the window's language, its figures in the window's locale; a
    stage's row is said as the turn's state, with the status line's words."""
    figures = {name: number(value) for name, value in row.figures}
    if row.tool:  # a tool call's row: the tool's name as the model called it
        return QCoreApplication.translate("WaterfallView", row.label).format(
            tool=row.tool, **figures
        )
    state = row.state
    if state is None:
        label = QCoreApplication.translate("WaterfallView", row.label)
        return label.format(**figures) if figures else label
    if not figures:
        return turn_word(state)
    counted = QCoreApplication.translate("WaterfallView", RETRIEVING_COUNTED)
    return counted.format(state=turn_word(state), **figures)


def _row_text(row: WaterfallRow) -> str:
    """A row's name; a cascade's stage adds its route, its decision what the classifier did."""
    note, name = row.note, row_label(row)
    if note is None:
        return name
    if row.label == ROUTE_DECISION:
        if note.out_of_budget:
            return QCoreApplication.translate(
                "WaterfallView", "route decision · classifier out of budget"
            )
        return name
    return f"{name} · {stage_route(note)}"


def _route_lines(w: Waterfall) -> list[str]:
    """Under the summary: each route decision in a sentence (the fallback's too)."""
    lines = []
    for row in w.rows:
        note = row.note
        if note is None or (row.label != ROUTE_DECISION and note.attempt == 1):
            continue
        line = QCoreApplication.translate("WaterfallView", "Route: {route} · {why}").format(
            route=tier_label(note.tier, note.model), why=decision_reason(note)
        )
        if note.decided_ms is not None:
            decided = QCoreApplication.translate("WaterfallView", "decided in {ms} ms")
            line += " · " + decided.format(ms=number(note.decided_ms, 1))
        lines.append(line)
    return lines


def _duration(start: float, end: float) -> str:
    if end == start:
        return QCoreApplication.translate("WaterfallView", "@ {ms} ms").format(ms=number(start, 1))
    return _ms(end - start)


def _ms(value: float) -> str:
    return QCoreApplication.translate("WaterfallView", "{ms} ms").format(ms=number(value, 1))


def _summary(w: Waterfall) -> str:
    client = next((r.start_ms for r in w.rows if r.label == "first token"), None)
    if client is not None:
        text = QCoreApplication.translate("WaterfallView", "client TTFT {ms} ms")
        parts = [text.format(ms=number(client, 1))]
    else:
        parts = [QCoreApplication.translate("WaterfallView", "no first token")]
    if w.server_ttft_ms is not None and w.transport_and_queue_ms is not None:
        server = QCoreApplication.translate("WaterfallView", "server ({source}) {ms} ms")
        source = server_kind_name(
            w.server_source, unknown=w.server_name or ""
        )  # as the Server tab names it
        if w.server_step is not None:  # a turn with tools: its last call's figures
            server = QCoreApplication.translate(
                "WaterfallView", "model call {step}: server ({source}) {ms} ms"
            ).replace("{step}", number(w.server_step))
        parts.append(server.format(source=source, ms=number(w.server_ttft_ms, 1)))
        transport = QCoreApplication.translate("WaterfallView", "transport + queue {ms} ms")
        parts.append(transport.format(ms=number(w.transport_and_queue_ms, 1)))
    else:
        parts.append(QCoreApplication.translate("WaterfallView", "the server reported no timings"))
    return " · ".join(parts)


RUN_LABELS = (RUN_ROW, RUN_ERROR_ROW)


def _brush(side: str) -> QBrush:
    """A side's colour; the wait for the user's approval is hatched (never latency)."""
    brush = pg.mkBrush(*SIDE_COLORS.get(side, (128, 128, 128)))
    if side == APPROVAL_SIDE:
        brush.setStyle(Qt.BrushStyle.BDiagPattern)
    return brush


def _tools_line(w: Waterfall) -> list[str]:
    """A turn with tools: its time in tools and the approval's wait, which is not latency."""
    runs = [row for row in w.rows if row.label in RUN_LABELS and row.end_ms > row.start_ms]
    if not runs:
        return []
    asked = sum(row.end_ms - row.start_ms for row in w.rows if row.side == APPROVAL_SIDE)
    line = QCoreApplication.translate(
        "WaterfallView", "Tool runs: {runs} · {ms} ms running · approval {wait} ms, not latency"
    )
    ms, wait = number(_union_ms(runs), 1), number(asked, 1)
    return [line.format(runs=number(len(runs)), ms=ms, wait=wait)]


def _union_ms(rows: list[WaterfallRow]) -> float:
    """The time while any of the rows ran (parallel runs counted once)."""
    total, reached = 0.0, float("-inf")
    for row in sorted(rows, key=lambda r: r.start_ms):
        total += max(0.0, row.end_ms - max(row.start_ms, reached))
        reached = max(reached, row.end_ms)
    return total
