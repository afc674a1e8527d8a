"""The HUD's plots in the window's colours: pyqtgraph draws black backgrounds with grey
axes by default, whatever the window's scheme (a black block in a light window)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QPalette

AXES = ("left", "bottom", "right", "top")


def plot_colours(palette: QPalette) -> tuple[str, str]:
    """(background, foreground): the palette's base and text colours."""
    base = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.Text)
    return base.name(), text.name()


def apply_plot_theme(
    widgets: list[pg.PlotWidget | pg.GraphicsLayoutWidget], palette: QPalette
) -> None:
    background, foreground = plot_colours(palette)
    pen = pg.mkPen(foreground)
    for widget in widgets:
        widget.setBackground(background)
        for item in _plot_items(widget):
            for name in AXES:
                axis = item.getAxis(name)
                axis.setPen(pen)
                axis.setTextPen(pen)
            item.titleLabel.setAttr("color", foreground)


def _plot_items(widget: pg.PlotWidget | pg.GraphicsLayoutWidget) -> list[pg.PlotItem]:
    if isinstance(widget, pg.PlotWidget):
        return [widget.getPlotItem()]
    return [item for item in widget.ci.items if isinstance(item, pg.PlotItem)]
