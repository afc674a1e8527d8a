"""An attached image full size, in a window of its own (scrolls when it is larger)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QDialog, QLabel, QScrollArea, QVBoxLayout, QWidget


class ImageViewer(QDialog):
    def __init__(self, image: QImage, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("imageViewer")
        self.setWindowTitle(title)
        self.picture = QLabel(self)
        self.picture.setPixmap(QPixmap.fromImage(image))
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setAccessibleName(title)
        scroll = QScrollArea(self)
        scroll.setWidget(self.picture)
        scroll.setWidgetResizable(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)
        screen = self.screen().availableGeometry() if self.screen() else None
        width, height = image.width() + 24, image.height() + 24
        if screen is not None:
            width, height = (
                min(width, screen.width() * 9 // 10),
                min(height, screen.height() * 9 // 10),
            )
        self.resize(max(width, 200), max(height, 150))
