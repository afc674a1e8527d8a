"""How much of this VM's CPU the hypervisor took while something was measured.

These are 2-core guests; at busy times the hypervisor takes 20-35 % of their CPU
(the steal field of /proc/stat, vmstat's `st`). Every wall-clock figure is then
inflated whatever the code does, so the benchmarks judge a goal on measurements taken
where the hypervisor left the machine its CPU, and take a stolen one again.
"""

from __future__ import annotations

from pathlib import Path

QUIET_STEAL = 0.10  # a measurement is judged when less than this share was stolen


def cpu_steal_share() -> tuple[int, int]:
    """(steal, total) jiffies of the whole machine so far, from /proc/stat."""
    fields = Path("/proc/stat").read_text(encoding="utf-8").split("\n", 1)[0].split()[1:]
    numbers = [int(value) for value in fields[:8]]
    return numbers[7], sum(numbers)


class StealMeter:
    """The share of the machine's CPU time stolen since it was made."""

    def __init__(self) -> None:
        self._start = cpu_steal_share()

    def share(self) -> float:
        steal, total = cpu_steal_share()
        return (steal - self._start[0]) / max(1, total - self._start[1])

    def quiet(self) -> bool:
        return self.share() < QUIET_STEAL
