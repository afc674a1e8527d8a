"""The bar that says a chosen server does not answer yet, and what the window does.

"The server at 127.0.0.1:8080 cannot be reached now. Trying again at 05:31:12 (in 4 s)."
with [Try now] [Use the local model]; or "Loading the model… (llama-server answers
503 until it is ready)". The policy (when to ask again) is client/services/servers/
reachability.py; this only words its `Waiting` and counts the seconds down.
"""

from __future__ import annotations

import math
import time

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from client.services.servers.reachability import Waiting, WaitKind
from client.ui.common.locale_text import clock, number

TICK_MS = 1000


class ReachBar(QFrame):
    tryNowRequested = Signal()
    useLocalRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reachBar")
        self.setAccessibleName(self.tr("Server not answering"))
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel(self)
        self.label.setObjectName("reachText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # a server's name is never HTML
        self.try_button = QPushButton(self.tr("Try now"), self)
        self.try_button.setObjectName("reachTryNow")
        self.local_button = QPushButton(self.tr("Use the local model"), self)
        self.local_button.setObjectName("reachUseLocal")
        row = QHBoxLayout(self)
        row.addWidget(self.label, 1)
        row.addWidget(self.try_button)
        row.addWidget(self.local_button)
        self.try_button.clicked.connect(self.tryNowRequested)
        self.local_button.clicked.connect(self.useLocalRequested)
        self.waiting: Waiting | None = None
        self.server = ""
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._show)
        self.hide()

    def show_waiting(self, server: str, waiting: Waiting | None) -> None:
        """What the window waits for (None: the server answered: the bar goes)."""
        self.server, self.waiting = server, waiting
        self.setVisible(waiting is not None)
        if waiting is None:
            self._timer.stop()
            return
        self.try_button.setVisible(waiting.kind is WaitKind.UNREACHABLE)
        self._timer.start()
        self._show()

    def sentence(self) -> str:
        """The bar's sentence as it reads now ("" when it is hidden)."""
        return waiting_text(self.server, self.waiting) if self.waiting else ""

    def _show(self) -> None:
        self.label.setText(self.sentence())


def waiting_text(server: str, waiting: Waiting) -> str:
    translate = QCoreApplication.translate
    if waiting.kind is WaitKind.LOADING:
        return translate(
            "ReachBar",
            "Loading the model… {server} has started and is loading it; "
            "the chat goes on when it is ready.",
        ).format(server=server)
    left = max(math.ceil(waiting.next_try_at - time.time()), 0)
    if left <= 0:
        again = translate("ReachBar", "Trying again now…")
    else:
        again = translate("ReachBar", "Trying again at {time} (in {seconds} s).").format(
            time=clock(waiting.next_try_at), seconds=number(left)
        )
    unreachable = translate("ReachBar", "{server} cannot be reached now.").format(server=server)
    return f"{unreachable} {again}"
