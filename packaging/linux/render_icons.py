"""Renders the hicolor PNG icons (16-512 px) from the scalable SVG with Qt's QSvgRenderer.

Run after editing resources/icons/hicolor/scalable/apps/io.github.tachy.Tachy.svg:
    QT_QPA_PLATFORM=offscreen python packaging/linux/render_icons.py
The PNGs are committed, so neither the wheel nor the bundle needs Qt's SVG plugin to
show the icon in a menu; tests/packaging/test_linux_entry.py checks they match the SVG.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

APP_ID = "io.github.tachy.Tachy"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
HICOLOR = Path(__file__).resolve().parents[2] / "resources" / "icons" / "hicolor"


def render(svg: Path, size: int) -> QImage:
    """The SVG drawn into a transparent size x size image, aspect ratio kept."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.setAspectRatioMode(Qt.AspectRatioMode.KeepAspectRatio)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def png_path(size: int, root: Path = HICOLOR) -> Path:
    return root / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def main() -> int:
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv)
    svg = HICOLOR / "scalable" / "apps" / f"{APP_ID}.svg"
    for size in SIZES:
        target = png_path(size)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not render(svg, size).save(str(target), "PNG"):
            raise SystemExit(f"could not write {target}")
        print(f"wrote {target.relative_to(HICOLOR.parents[2])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
