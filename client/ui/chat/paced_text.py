"""View > Smooth streaming: the chat shows a streaming answer's words at a steady pace
(client/core/pacing.py) instead of in the lumps they arrive in.

Off by default; View > Smooth streaming (client/ui/view/view_menu.py) sets `enabled` and
remembers it. Decided once per answer, at its second chunk, so switching it applies
from the next answer. Never paced: an answer's
first text (painted in its own loop turn as always), a window that is hidden or
minimised (what is held is shown at once), an answer that has ended (ChatView's
end_stream takes what is held first). The HUD and the metrics measure arrival, never
this display.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget

from client.core.pacing import Pacer

FRAME_MS = 16


class PacedText(QObject):
    """The held text of the chat's streaming answers, released once a frame."""

    def __init__(self, view: QWidget, show: Callable[[int, str], object]) -> None:
        super().__init__(view)
        self.view, self.show = view, show
        self.enabled = False  # View > Smooth streaming
        self.pacers: dict[int, Pacer | None] = {}  # by message key; None: not paced
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self.tick)

    def arrive(self, key: int, text: str) -> str:
        """A streamed chunk after the first: what to show now (the rest is held)."""
        if key not in self.pacers:  # the answer's second chunk: paced or not, decided once
            paced = Pacer() if self.enabled else None
            if paced is not None:
                paced.arrive("", time.perf_counter())  # its first text was shown already
            self.pacers[key] = paced
        pacer = self.pacers[key]
        if pacer is None:
            return text
        if not self._on_screen():
            return pacer.flush() + text
        shown = pacer.arrive(text, time.perf_counter())
        if pacer.holding and not self.timer.isActive():
            self.timer.start()
        return shown

    def finish(self, key: int) -> str:
        """The answer ended: everything it held, and it is paced no more."""
        pacer = self.pacers.pop(key, None)
        return pacer.flush() if pacer is not None else ""

    def tick(self) -> None:
        now = time.perf_counter()
        on_screen = self._on_screen()
        holding = False
        for key, pacer in list(self.pacers.items()):
            if pacer is None:
                continue
            shown = pacer.tick(now) if on_screen else pacer.flush()
            if shown:
                self.show(key, shown)
            holding = holding or pacer.holding
        if not holding:
            self.timer.stop()

    def _on_screen(self) -> bool:
        window = self.view.window()
        return self.view.isVisible() and not window.isMinimized()
