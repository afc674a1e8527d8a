"""Save a graph as PNG or SVG with pyqtgraph's exporters.

pyqtgraph 0.14's SVGExporter fails on the path syntax newer Qt writes (pyqtgraph issue
#3485: "not enough values to unpack" in correctCoordinates). When it does, the same item
is rendered through Qt's own QSvgGenerator instead, so SVG export keeps working.
"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
import pyqtgraph.exporters as exporters
from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator


def export_graph(item: pg.PlotItem, path: Path) -> None:
    if path.suffix.lower() == ".svg":
        try:
            exporters.SVGExporter(item).export(str(path))
        except ValueError:
            _qt_svg(item, path)
        return
    exporter = exporters.ImageExporter(item)
    exporter.parameters()["width"] = max(int(item.sceneBoundingRect().width()), 640)
    exporter.export(str(path))


def _qt_svg(item: pg.PlotItem, path: Path) -> None:
    source = item.sceneBoundingRect()
    if source.width() < 1 or source.height() < 1:
        source = QRectF(0, 0, 640, 480)
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(QSize(int(source.width()), int(source.height())))
    generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
    painter = QPainter(generator)
    try:
        item.scene().render(painter, QRectF(0, 0, source.width(), source.height()), source)
    finally:
        painter.end()
