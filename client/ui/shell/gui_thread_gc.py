"""Python's cyclic garbage collector, run on the GUI thread only.

The collector runs in whichever thread allocates past its threshold: the lab's thread,
the tools thread, an executor's. A cycle it frees there that holds a Qt object (a
widget and a lambda connected to its signal, say) has that object's C++ destructor run
off the GUI thread, which Qt does not allow: the process may crash later, inside the
GUI thread's event loop, with no Python frame to show. So the automatic collector is
off and the GUI thread collects on a timer, by the collector's own thresholds
(pyqtgraph's GarbageCollector does the same, for the same reason).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

CHECK_EVERY_MS = 1000


def collect_if_due() -> int:
    """What the automatic collector would have done by now, here: the oldest generation
    whose count passed its threshold, with the younger ones (the number freed)."""
    counts, limits = gc.get_count(), gc.get_threshold()
    due = -1
    for generation in range(3):
        if counts[generation] <= limits[generation]:
            break
        due = generation
    return gc.collect(due) if due >= 0 else 0


class GuiThreadCollector(QObject):
    """Turns the automatic collector off and collects on this (the GUI) thread's timer."""

    def __init__(self, parent: QObject | None = None, every_ms: int = CHECK_EVERY_MS) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(every_ms)
        self._timer.timeout.connect(collect_if_due)

    def start(self) -> None:
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """The timer only: the automatic collector stays off (another thread's
        collection is what this prevents), and the next start goes on."""
        self._timer.stop()
