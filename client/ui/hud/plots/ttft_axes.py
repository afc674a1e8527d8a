"""The Requests plot's axes: whole request numbers along the bottom (no 0.6, 1.2), and
time to first token on a log scale up the left, so one slow reply does not squash the
instant and fast bands into a line. The plot's y values are log10(ms); the axis writes
them back as 50 ms, 200 ms, 1 s, 2 s in the window's locale."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication

from client.ui.common.locale_text import number

STEPS = (1.0, 2.0, 5.0)  # ticks at 1, 2, 5 x 10^k ms
MINOR_STEPS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
LABEL_PX = 30  # the height a tick label needs on the left axis, with a gap


def log_ms(ms: float) -> float:
    """A time in ms as the plot's y (log10 of ms), a floor of 0.01 ms for zero."""
    return math.log10(max(ms, 0.01))


def duration_text(ms: float) -> str:
    """750 ms, 1 s, 2.5 s: a tick's label in the window's language."""
    ms = float(f"{ms:.6g}")  # 10**log10(2000) is 1999.9999...
    if ms >= 1000:
        seconds = ms / 1000
        decimals = 0 if seconds == round(seconds) else 1
        return QCoreApplication.translate("TtftAxis", "{s} s").format(s=number(seconds, decimals))
    decimals = 0 if ms >= 1 else 2
    return QCoreApplication.translate("TtftAxis", "{ms} ms").format(ms=number(ms, decimals))


def log_ticks(low: float, high: float, steps: tuple[float, ...]) -> list[float]:
    """The values step x 10^k (in ms) between two log10(ms) ends, as log10(ms)."""
    ticks = []
    for power in range(math.floor(low) - 1, math.ceil(high) + 1):
        for step in steps:
            value = math.log10(step) + power
            if low <= value <= high:
                ticks.append(value)
    return ticks


class TtftAxis(pg.AxisItem):
    """A left axis for log10(ms) values, labelled in ms and s at 1-2-5 steps."""

    def tickValues(
        self, minVal: float, maxVal: float, size: float
    ) -> list[tuple[float, list[float]]]:
        low, high = min(minVal, maxVal), max(minVal, maxVal)
        major = log_ticks(low, high, STEPS)
        if len(major) > max(2, size / LABEL_PX):  # a short plot: 1, 10, 100 ... only
            major = log_ticks(low, high, (1.0,))
        minor = [v for v in log_ticks(low, high, MINOR_STEPS) if v not in major]
        return [(1.0, major), (0.1, minor)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        if spacing < 1.0:
            return ["" for _ in values]  # minor ticks: a mark without a figure
        return [duration_text(10**value) for value in values]


class RequestAxis(pg.AxisItem):
    """A bottom axis with whole request numbers only."""

    def tickValues(
        self, minVal: float, maxVal: float, size: float
    ) -> list[tuple[float, list[float]]]:
        levels = super().tickValues(minVal, maxVal, size)
        whole = []
        for spacing, values in levels:
            if spacing >= 1:
                kept = [v for v in values if float(v).is_integer()]
                whole.append((spacing, kept))
        if not whole:  # a narrow range: every request, one tick each
            first, last = math.ceil(min(minVal, maxVal)), math.floor(max(minVal, maxVal))
            whole = [(1.0, [float(v) for v in range(first, last + 1)])]
        return whole

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [number(round(value * scale)) for value in values]
