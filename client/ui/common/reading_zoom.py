"""The reading zoom: one factor for the whole window (View > Zoom in / out / reset,
Settings > Text size, Present's 150 %). Whoever draws text reads `zoom()` and follows
`zoom_changed`; the shell only sets it.

    reading_zoom().set_zoom(1.5)
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Signal

MIN_ZOOM = 0.5
MAX_ZOOM = 3.0
ZOOM_STEP = 0.1


class ReadingZoom(QObject):
    zoom_changed = Signal(float)  # the new factor, 1.0 = 100 %

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._factor = 1.0

    def zoom(self) -> float:
        return self._factor

    def set_zoom(self, factor: float) -> None:
        factor = round(min(MAX_ZOOM, max(MIN_ZOOM, factor)), 2)
        if factor != self._factor:
            self._factor = factor
            self.zoom_changed.emit(factor)


_ZOOM: ReadingZoom | None = None


def reading_zoom() -> ReadingZoom:
    """The app's one ReadingZoom (made on first use, owned by the application)."""
    global _ZOOM
    if _ZOOM is None:
        _ZOOM = ReadingZoom(QCoreApplication.instance())
        _ZOOM.destroyed.connect(_forget)
    return _ZOOM


def _forget() -> None:
    global _ZOOM
    _ZOOM = None
