"""PNG reports of `tachy bench`, drawn with QPainter on a QImage (no plotting library).

`--report FILE.png` draws three panels: the TTFT histogram, the ITL histogram, and a
timeline with one row per request (waiting for the first token, then decoding).
`--sweep ... --report FILE.png` draws the concurrency curve: TTFT P50/P95 and output
tokens/s against concurrency, with the latency tiers' bounds and the knee marked.
Command-line output, so the labels are plain English (not translated).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QApplication

from client.services.bench.runner import BenchReport
from client.services.bench.sweep import SweepPoint

WIDTH, PANEL_HEIGHT, MARGIN = 1200, 300, 60
INK, GRID, WAIT, DECODE, P95 = "#202124", "#dadce0", "#f29900", "#1a73e8", "#d93025"
TIER_BOUNDS_MS = (100.0, 300.0, 1000.0)


def _application() -> QGuiApplication:
    # A QApplication, not a bare QGuiApplication: in a process that later shows widgets
    # (the window, pytest-qt in one test run) Qt aborts on a widget without one.
    existing = QGuiApplication.instance()
    if isinstance(existing, QGuiApplication):
        return existing
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # a terminal without a screen
    return QApplication([])


def save_bench_report(report: BenchReport, target: Path) -> None:
    """TTFT and ITL histograms and the per-request timeline, one PNG."""
    _application()
    ok = [r for r in report.warm_results if r.ok]
    image = _canvas(3 * PANEL_HEIGHT + 60)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        title = f"tachy bench: {report.settings.model} at {report.server}, {len(ok)} requests"
        _text(painter, QRectF(MARGIN, 10, WIDTH - 2 * MARGIN, 30), title, 13, bold=True)
        ttft = [r.metrics.ttft_ms for r in ok if r.metrics.ttft_ms is not None]
        itl = [gap for r in ok for gap in r.metrics.itl_ms]
        _histogram(painter, _panel(0), ttft, "TTFT (ms)")
        _histogram(painter, _panel(1), itl, "inter-token latency (ms)")
        _timeline(painter, _panel(2), report)
    finally:
        painter.end()
    _save(image, target)


def save_sweep_report(
    points: Sequence[SweepPoint], knee: int | None, target: Path, title: str = ""
) -> None:
    """TTFT P50/P95 and output tokens/s against concurrency (log scale)."""
    _application()
    image = _canvas(2 * PANEL_HEIGHT + 60)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        heading = title or "tachy bench --sweep"
        if knee is not None:
            heading += f": knee at concurrency {knee}"
        _text(painter, QRectF(MARGIN, 10, WIDTH - 2 * MARGIN, 30), heading, 13, bold=True)
        levels = [p.concurrency for p in points]
        p50 = [p.ttft_p50_ms for p in points]
        p95 = [p.ttft_p95_ms for p in points]
        top = max([*(v for v in p95 if v is not None), 1.0]) * 1.15
        area = _panel(0)
        _axes(painter, area, "TTFT (ms): P50 blue, P95 red; tier bounds dashed", top)
        for bound in TIER_BOUNDS_MS:
            if bound < top:
                _hline(painter, area, bound / top, f"{bound:.0f} ms")
        _curve(painter, area, levels, p50, top, DECODE)
        _curve(painter, area, levels, p95, top, P95)
        if knee is not None:
            _knee(painter, area, levels, knee)
        rate: list[float | None] = [p.output_throughput for p in points]
        rate_top = max([p.output_throughput for p in points] + [1.0]) * 1.15
        _axes(painter, _panel(1), "output tokens/s", rate_top)
        _curve(painter, _panel(1), levels, rate, rate_top, INK)
        _level_labels(painter, _panel(1), levels)
    finally:
        painter.end()
    _save(image, target)


def _canvas(height: int) -> QImage:
    image = QImage(WIDTH, height, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    return image


def _save(image: QImage, target: Path) -> None:
    if not image.save(str(target)):  # the format follows the name (.png)
        raise OSError(f"can't write {target}")


def _panel(index: int) -> QRectF:
    top = 50 + index * PANEL_HEIGHT
    return QRectF(MARGIN, top + 30, WIDTH - 2 * MARGIN, PANEL_HEIGHT - 70)


def _text(painter: QPainter, rect: QRectF, text: str, size: int = 10, bold: bool = False) -> None:
    font = QFont()
    font.setPointSize(size)
    font.setBold(bold)
    painter.setFont(font)
    painter.setPen(QColor(INK))
    painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)


def _axes(painter: QPainter, area: QRectF, label: str, top: float) -> None:
    _text(painter, QRectF(area.left(), area.top() - 28, area.width(), 24), label, 11, True)
    painter.setPen(QPen(QColor(INK), 1))
    painter.drawLine(area.bottomLeft(), area.bottomRight())
    painter.drawLine(area.bottomLeft(), area.topLeft())
    _text(painter, QRectF(area.left() - MARGIN + 4, area.top() - 8, MARGIN - 8, 16), _num(top), 8)
    _text(painter, QRectF(area.left() - MARGIN + 4, area.bottom() - 8, MARGIN - 8, 16), "0", 8)


def _histogram(painter: QPainter, area: QRectF, values: list[float], label: str) -> None:
    if not values:
        _axes(painter, area, label + ": no values", 1.0)
        return
    low, high = min(values), max(values)
    bins = 30
    width = (high - low) / bins or 1.0
    counts = [0] * bins
    for value in values:
        counts[min(bins - 1, int((value - low) / width))] += 1
    tallest = max(counts)
    _axes(painter, area, f"{label}: {len(values)} values, {low:.1f} to {high:.1f}", tallest)
    bar = area.width() / bins
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(DECODE))
    for index, count in enumerate(counts):
        height = area.height() * count / tallest
        painter.drawRect(
            QRectF(area.left() + index * bar + 1, area.bottom() - height, bar - 2, height)
        )
    for fraction, text in ((0.0, f"{low:.1f}"), (1.0, f"{high:.1f}")):
        x = area.left() + fraction * area.width() - (40 if fraction else 0)
        _text(painter, QRectF(x, area.bottom() + 2, 80, 16), text, 8)


def _timeline(painter: QPainter, area: QRectF, report: BenchReport) -> None:
    rows = sorted(report.warm_results, key=lambda r: r.started_at)
    origin = rows[0].started_at if rows else 0.0
    spans = []
    for result in rows:
        start = (result.started_at - origin) * 1000.0
        m = result.metrics
        first = start + (m.ttft_ms or 0.0)
        end = start + (m.e2el_ms or m.ttft_ms or 0.0)
        spans.append((start, first, end, result.ok))
    last = max([s[2] for s in spans] + [1.0])
    _axes(painter, area, "timeline (ms): waiting for the first token, then decoding", len(spans))
    row = area.height() / max(1, len(spans))
    for index, (start, first, end, ok) in enumerate(spans):
        y = area.top() + index * row
        height = max(1.0, row - 1)
        x = lambda t: area.left() + area.width() * t / last  # noqa: E731
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(WAIT if ok else P95))
        painter.drawRect(QRectF(x(start), y, max(1.0, x(first) - x(start)), height))
        painter.setBrush(QColor(DECODE))
        painter.drawRect(QRectF(x(first), y, max(0.0, x(end) - x(first)), height))
    _text(painter, QRectF(area.right() - 80, area.bottom() + 2, 80, 16), f"{last:.0f}", 8)


def _x_of(area: QRectF, levels: Sequence[int], level: int) -> float:
    if len(levels) == 1:
        return area.center().x()
    lo, hi = math.log2(levels[0]), math.log2(levels[-1])
    return area.left() + area.width() * (math.log2(level) - lo) / ((hi - lo) or 1.0)


def _curve(
    painter: QPainter,
    area: QRectF,
    levels: Sequence[int],
    values: Sequence[float | None],
    top: float,
    color: str,
) -> None:
    points = [
        QPointF(_x_of(area, levels, level), area.bottom() - area.height() * value / top)
        for level, value in zip(levels, values, strict=True)
        if value is not None
    ]
    painter.setPen(QPen(QColor(color), 2.5))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPolyline(QPolygonF(points))
    painter.setBrush(QColor(color))
    for point in points:
        painter.drawEllipse(point, 4, 4)


def _hline(painter: QPainter, area: QRectF, fraction: float, label: str) -> None:
    y = area.bottom() - area.height() * fraction
    painter.setPen(QPen(QColor(GRID), 1.5, Qt.PenStyle.DashLine))
    painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
    _text(painter, QRectF(area.right() - 70, y - 16, 70, 14), label, 8)


def _knee(painter: QPainter, area: QRectF, levels: Sequence[int], knee: int) -> None:
    x = _x_of(area, levels, knee)
    painter.setPen(QPen(QColor(INK), 1.5, Qt.PenStyle.DotLine))
    painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
    _text(painter, QRectF(x + 4, area.top(), 160, 16), f"knee: {knee}", 9, True)


def _level_labels(painter: QPainter, area: QRectF, levels: Sequence[int]) -> None:
    for level in levels:
        x = _x_of(area, levels, level)
        _text(painter, QRectF(x - 10, area.bottom() + 2, 40, 16), str(level), 8)
    _text(painter, QRectF(area.left(), area.bottom() + 18, 200, 16), "concurrency", 9)


def _num(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"
