"""An axis whose tick figures are written as the window's locale writes numbers
(1,000 / 1.000 / 1 000) instead of pyqtgraph's "%g" (10000, 1e+04)."""

from __future__ import annotations

from math import ceil, log10

import pyqtgraph as pg

from client.ui.common.locale_text import number


class LocaleAxis(pg.AxisItem):
    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        # As many decimals as the tick spacing needs, as pyqtgraph counts them.
        decimals = max(0, ceil(-log10(spacing * scale))) if spacing * scale > 0 else 0
        return [number(value * scale, decimals) for value in values]
