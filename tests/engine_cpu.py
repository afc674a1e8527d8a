"""The local engine's CPU as the Stop tests see it: its ticks so far, and the moment it
spent its last one after a Stop (llama-server goes idle once it notices the closed
connection, one to two batches later)."""

from __future__ import annotations

import threading
import time
from pathlib import Path


def cpu_ticks(pid: int) -> int:
    """user + system ticks (1/100 s) of a process so far (/proc/PID/stat fields 14, 15)."""
    after_name = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(after_name[11]) + int(after_name[12])


class LastTick(threading.Thread):
    """Samples a process's CPU ticks every few ms on a thread of its own, so that a busy
    event loop or window cannot miss the last ones. Start it before the Stop and call
    `stopped()` at the Stop; it ends once the process spent no tick for `quiet_s` after
    both the Stop and its last tick."""

    def __init__(self, pid: int, quiet_s: float = 0.6) -> None:
        super().__init__(daemon=True)
        self.pid, self.quiet_s = pid, quiet_s
        self.stopped_at: float | None = None
        self.last_growth = 0.0

    def stopped(self) -> None:
        self.stopped_at = time.monotonic()

    def run(self) -> None:
        ticks = cpu_ticks(self.pid)
        while not self._quiet():
            time.sleep(0.003)  # sampling a clock, not waiting for an event
            now = cpu_ticks(self.pid)
            if now > ticks:
                ticks, self.last_growth = now, time.monotonic()

    def _quiet(self) -> bool:
        if self.stopped_at is None:
            return False
        return time.monotonic() - max(self.last_growth, self.stopped_at) >= self.quiet_s

    def idle_ms(self) -> float:
        """Waits for the quiet, then: ms from the Stop to the last tick (0: none after)."""
        self.join(timeout=60)
        assert self.stopped_at is not None, "stopped() was never called"
        return max(self.last_growth - self.stopped_at, 0.0) * 1000.0
