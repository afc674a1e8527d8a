"""Where the main window opens: the first start's size fitted to the screen, and a
remembered geometry kept on the screen it opens on (a laptop after a big monitor)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize

FIRST_START = QSize(1240, 780)  # the chat, the conversations and the latency dock side by side
# Left for the window manager's frame and title bar, which resize() does not count.
FRAME_ROOM = QSize(16, 48)


def first_start_geometry(available: QRect, minimum: QSize) -> QRect:
    """FIRST_START, made smaller to fit `available` (QScreen.availableGeometry) with its
    frame, never below `minimum`; centred on it."""
    width = min(FIRST_START.width(), available.width() - FRAME_ROOM.width())
    height = min(FIRST_START.height(), available.height() - FRAME_ROOM.height())
    rect = QRect(0, 0, max(width, minimum.width()), max(height, minimum.height()))
    rect.moveCenter(available.center())
    return kept_inside(rect, available)


def kept_inside(geometry: QRect, available: QRect) -> QRect:
    """`geometry` no larger than `available`, moved so that all of it is on it."""
    size = geometry.size().boundedTo(available.size())
    rect = QRect(geometry.topLeft(), size)
    rect.moveLeft(max(available.left(), min(rect.left(), available.right() + 1 - size.width())))
    rect.moveTop(max(available.top(), min(rect.top(), available.bottom() + 1 - size.height())))
    return rect
