"""What each server of a pool did: its times to first token, its wins, its failures and
Tachy's requests in flight to it. The HUD shows it (per-server P50/P95 and wins), and
the policies read it (the hedge's wait, the failover's health, least-loaded's counts).

A request closed because another server answered first never had its first token: it
waited at least as long as it was open. Those waits are marked as such (`waits`): the
figures shown are real first tokens only. The hedge's P95 counts a request cut short
as the slowest real first token, or its own wait when that is shorter. Not by its wait
alone: that is the hedge's own delay plus the winner's first token, and counting it
would push each next P95 up; a server whose requests keep losing goes first less often.
Not as the slowest alone: one real 2 s stall (its hedge stalled too) would count every
later cut request as 2 s, and once those pass 5 % the P95 is 2 s and no stall is hedged.
(Once one real stall is among them its wait does count, and each cut pushes the next
P95 up; a hedge that stalls too gets one of its own, so a real stall is rare.) Which
server goes first reads the same P95; a server that never answered yet is ranked by
its cut waits, not taken for fast. (Ranking every server by its cut requests' own
waits sent more requests to the lab fleet's busy server at 4 at once: 10.8-15.8 %
extra requests at that level in four runs, against 9.2-11.7 % in three.)
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from client.core.stats import percentile

KEPT = 200  # the latest waits per server that the figures are taken over
MIN_SAMPLES = 20  # fewer than this: no P95 of its own (the pool's, or the default)
DEFAULT_HEDGE_MS = 1000.0  # before anything is known: over 1 s the user needs a hint
UNHEALTHY_S = 15.0  # a server that failed is tried last for this long


@dataclass(slots=True)
class MemberRecord:
    # (ms, cut short): a real time to first token, or how long a request cut short waited
    waits: deque[tuple[float, bool]] = field(default_factory=lambda: deque(maxlen=KEPT))
    sent: int = 0
    wins: int = 0
    failures: int = 0
    in_flight: int = 0
    failed_at: float | None = None
    # perf_counter_ns of the winner's first token each time this server's request lost:
    # the moment it was closed from (a benchmark pairs it with the server's disconnect)
    cut_at_ns: deque[int] = field(default_factory=lambda: deque(maxlen=KEPT))

    @property
    def ttft_ms(self) -> list[float]:
        return [ms for ms, cut in self.waits if not cut]


@dataclass(frozen=True, slots=True)
class MemberFigures:
    """One server's line in the HUD's pool table."""

    name: str
    n: int
    p50_ms: float | None
    p95_ms: float | None
    wins: int
    sent: int
    failures: int
    in_flight: int


class FleetBook:
    def __init__(self, names: list[str], clock: Callable[[], float] = time.monotonic) -> None:
        self.names = names
        self.records = [MemberRecord() for _ in names]
        self.requests = 0  # answers asked of the pool
        self.hedged = 0  # of them, sent to a second server by the hedge
        self.clock = clock

    # ---- what happened ----------------------------------------------------------------
    def sent(self, member: int) -> None:
        record = self.records[member]
        record.sent += 1
        record.in_flight += 1

    def ended(self, member: int) -> None:
        record = self.records[member]
        record.in_flight = max(record.in_flight - 1, 0)

    def first_token(self, member: int, ttft_ms: float) -> None:
        record = self.records[member]
        record.waits.append((ttft_ms, False))
        record.failed_at = None

    def cut_short(self, member: int, waited_ms: float, at_ns: int) -> None:
        """Closed before its first token because another server answered at `at_ns`."""
        record = self.records[member]
        record.waits.append((waited_ms, True))
        record.cut_at_ns.append(at_ns)

    def won(self, member: int) -> None:
        self.records[member].wins += 1

    def failed(self, member: int) -> None:
        record = self.records[member]
        record.failures += 1
        record.failed_at = self.clock()

    # ---- what the policies read --------------------------------------------------------
    def healthy(self, member: int) -> bool:
        failed_at = self.records[member].failed_at
        return failed_at is None or self.clock() - failed_at > UNHEALTHY_S

    def in_flight(self, member: int) -> int:
        return self.records[member].in_flight

    def p95_wait_ms(self, member: int) -> float | None:
        """The server's own P95 wait for a first token, as the hedge counts it; a server
        none of whose requests answered yet, by how long they waited before they were
        cut short (not as unmeasured, so fast) (None: not measured yet)."""
        record = self.records[member]
        own = _waits(record) or sorted(ms for ms, _cut in record.waits)
        return percentile(own, 95) if own else None

    def hedge_after_ms(self, member: int) -> float:
        """How long a request waits before another is sent: its server's P95 wait (a
        request cut short as above), else the pool's, else DEFAULT_HEDGE_MS."""
        own = _waits(self.records[member])
        if len(own) >= MIN_SAMPLES:
            return percentile(own, 95)
        pooled = sorted(ms for record in self.records for ms in _waits(record))
        if len(pooled) >= MIN_SAMPLES:
            return percentile(pooled, 95)
        return DEFAULT_HEDGE_MS

    # ---- what the HUD shows -----------------------------------------------------------
    def figures(self) -> list[MemberFigures]:
        return [
            MemberFigures(
                name,
                len(record.ttft_ms),
                _percentile(record.ttft_ms, 50),
                _percentile(record.ttft_ms, 95),
                record.wins,
                record.sent,
                record.failures,
                record.in_flight,
            )
            for name, record in zip(self.names, self.records, strict=True)
        ]


def _waits(record: MemberRecord) -> list[float]:
    """Real first tokens and each request cut short (as the slowest of them, or its own
    wait when shorter), sorted."""
    real = sorted(record.ttft_ms)
    if not real:
        return []
    slowest = real[-1]
    cut = [min(ms, slowest) for ms, cut_short in record.waits if cut_short]
    return sorted(real + cut)


def _percentile(values: list[float], q: float) -> float | None:
    return percentile(sorted(values), q) if values else None
