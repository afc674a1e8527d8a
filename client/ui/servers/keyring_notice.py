"""The one notice that the system keyring cannot be used, and what still works.

Shown the first time a server's key cannot be read (client/services/servers/servers.py,
`BackendPool.keyring_refused`): servers without an API key work as usual, and a key
typed in the Add server dialog can be used until Tachy quits. Dismissed, it stays away.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from client.ui.common.error_text import error_text


class KeyringNotice(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("keyringNotice")
        self.setAccessibleName(self.tr("Keyring warning"))
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel(self)
        self.label.setObjectName("keyringNoticeText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.dismiss_button = QPushButton(self.tr("Dismiss"), self)
        self.dismiss_button.setObjectName("keyringNoticeDismiss")
        self.dismiss_button.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.dismiss_button)
        self.said = False
        self.hide()

    def show_refusal(self, error: Exception) -> None:
        """Say it once: a later refusal adds nothing the user does not know."""
        if self.said:
            return
        self.said = True
        still_works = self.tr(
            "Servers without an API key work as usual; a key you enter in Add server is "
            "used until Tachy quits and saved nowhere."
        )
        self.label.setText(f"{error_text(str(error))} {still_works}")
        self.show()
