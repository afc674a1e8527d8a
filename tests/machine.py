"""How much of this VM's CPU the hypervisor took while something was measured.

These are 2-core guests; at busy times the hypervisor takes 20-35 % of their CPU
(the steal field of /proc/stat, vmstat's `st`). Every wall-clock figure is then
inflated whatever the code does, so the benchmarks judge a goal on measurements taken
where the hypervisor left the machine its CPU, and take a stolen one again.
"""

from __future__ import annotations

from pathlib import Path

from tests.engine_cpu import cpu_ticks

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


QUIET_OTHERS = 0.25  # ... and other processes used less than this share of the machine


def _busy_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine so far: busy is all but idle and iowait."""
    fields = Path("/proc/stat").read_text(encoding="utf-8").split("\n", 1)[0].split()[1:]
    numbers = [int(value) for value in fields[:8]]
    return sum(numbers) - numbers[3] - numbers[4], sum(numbers)


def _cpu_jiffies(pids: tuple[int, ...]) -> int:
    """user + system jiffies of these processes so far (/proc/PID/stat fields 14, 15)."""
    total = 0
    for pid in pids:
        try:
            total += cpu_ticks(pid)
        except OSError:
            continue  # it ended: its time is lost, which only makes "others" look busier
    return total


class LoadMeter:
    """Since it was made: the share of the machine's CPU the hypervisor stole, and the
    share other processes used (all busy time minus the processes measured, `pids`).
    On a VM shared by several jobs, a wake-up comes late when another process holds
    the core, whatever the code measured does; this tells such runs apart."""

    def __init__(self, *pids: int) -> None:
        self.pids = pids
        self._steal = StealMeter()
        self._busy = _busy_jiffies()
        self._own = _cpu_jiffies(pids)

    def others(self) -> float:
        busy, total = _busy_jiffies()
        own = _cpu_jiffies(self.pids) - self._own
        return max(0.0, busy - self._busy[0] - own) / max(1, total - self._busy[1])

    def steal(self) -> float:
        return self._steal.share()

    def quiet(self) -> bool:
        return self.steal() < QUIET_STEAL and self.others() < QUIET_OTHERS


# The SSE decoder's chunks/s on the machine where the throughput goals were set and met
# (docs/benchmarks.md, "Decoder throughput": 71,900, median of 3 x 200,000 chunks). CI machines
# have since been several times slower per core (31,000-47,000), for all Python alike.
REFERENCE_CHUNKS_PER_S = 71_900


def python_speed(chunks: int = 20_000, repeats: int = 5) -> float:
    """This machine's speed at pure Python work, as a share of the reference machine's
    (capped at 1): the SSE decoder over realistic chunks, CPU time, median of `repeats`.
    A goal stated as a rate of work (tokens a second into the window) is judged at that
    rate times this, so a slower core is asked for the same share of its time."""
    from client.backends.apis.openai.decoder import OpenAIStreamDecoder
    from tests.perf.bench_decoders import decode_all, openai_stream

    reads = openai_stream(chunks)
    cpu_s = sorted(decode_all(OpenAIStreamDecoder, reads, chunks) for _ in range(repeats))
    return min(1.0, chunks / cpu_s[repeats // 2] / REFERENCE_CHUNKS_PER_S)
