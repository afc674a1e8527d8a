"""The current reply's live series for the HUD, without Qt.

`LiveStream` keeps the token stamps: `add()` is O(1) (one list append) so the streaming
hot path does no HUD work; `flush()` runs once per frame and turns the new stamps into the
series the plots draw: the live rate (tokens in the sliding 1 s before each token, per
second) and the inter-token gaps with stalls marked. `PeakSeries` keeps a plot's peaks.
May import: numpy and client.core.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from client.core.metrics import NS_PER_MS
from client.core.timeline import STALL_AFTER_MS

RATE_WINDOW_NS = 1_000_000_000
STALL_FACTOR = 5.0  # a gap over 5x the running median of the earlier gaps is a stall
STALL_ABSOLUTE_MS = STALL_AFTER_MS  # ... and any gap as long as the turn's stalled state
MIN_GAPS_FOR_MEDIAN = 5  # too few gaps make a median that flags normal jitter
STALL_FLOOR_MS = 50.0  # chunks read in bursts have µs gaps; a pause under this is no stall
MAX_LIVE_POINTS = 200_000  # beyond this the oldest half is dropped (memory stays bounded)


class _Growing:
    """A float64 array with amortised O(1) appends, keeping at most `cap` values."""

    def __init__(self, cap: int = MAX_LIVE_POINTS) -> None:
        self._data = np.empty(1024, dtype=np.float64)
        self._size = 0
        self._cap = cap

    def extend(self, values: np.ndarray | Sequence[float]) -> None:
        values = np.asarray(values, dtype=np.float64)
        need = self._size + len(values)
        if need > self._cap:
            keep = self._data[self._size // 2 : self._size].copy()
            self._data[: len(keep)] = keep
            self._size = len(keep)
            need = self._size + len(values)
        if need > len(self._data):
            grown = np.empty(max(need, 2 * len(self._data)), dtype=np.float64)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : need] = values
        self._size = need

    @property
    def view(self) -> np.ndarray:
        return self._data[: self._size]

    def __len__(self) -> int:
        return self._size


class RunningMedian:
    """Exact median of everything added so far (two heaps, O(log n) per value)."""

    def __init__(self) -> None:
        self._low: list[float] = []  # max-heap by negation
        self._high: list[float] = []
        self.n = 0

    def add(self, value: float) -> None:
        if self._low and value > -self._low[0]:
            heapq.heappush(self._high, value)
        else:
            heapq.heappush(self._low, -value)
        if len(self._low) > len(self._high) + 1:
            heapq.heappush(self._high, -heapq.heappop(self._low))
        elif len(self._high) > len(self._low):
            heapq.heappush(self._low, -heapq.heappop(self._high))
        self.n += 1

    def median(self) -> float | None:
        if not self.n:
            return None
        if len(self._low) > len(self._high):
            return -self._low[0]
        return (-self._low[0] + self._high[0]) / 2.0


class LiveStream:
    """The current reply's token stamps and the live series derived from them.

    x values are seconds since the request was written (or since the first token
    when no written stamp is known).
    """

    def __init__(self) -> None:
        self.reset(None)

    def reset(self, written_ns: int | None) -> None:
        self.written_ns = written_ns
        self._pending: list[int] = []
        self._stamps = _Growing()  # ns, as float (exact below 2**53 ns = 104 days)
        self.rate_x = _Growing()
        self.rate = _Growing()
        self.gap_x = _Growing()
        self.gap_ms = _Growing()
        self.stall_x = _Growing()
        self.stall_ms = _Growing()
        self._median = RunningMedian()
        self._last_ns: int | None = None
        self._open_stall = False  # the gap since the last token was counted while open
        self.tokens = 0
        self.stalls = 0
        self.rate_max = 0.0
        self.gap_max_ms = 0.0

    def add(self, at_ns: int) -> None:
        """Hot path: called once per token-bearing chunk. Only a list append."""
        self._pending.append(at_ns)

    @property
    def pending(self) -> int:
        return len(self._pending)

    def flush(self) -> bool:
        """Turn the stamps that arrived since the last frame into series. True if any."""
        if not self._pending:
            return False
        new, self._pending = self._pending, []
        origin = self.written_ns if self.written_ns is not None else new[0]
        if self.written_ns is None:
            self.written_ns = origin
        self._stamps.extend(new)
        self.tokens += len(new)
        stamps = self._stamps.view
        fresh = stamps[-len(new) :]
        # Tokens in (t - 1 s, t]: everything after the first stamp <= t - 1 s.
        first_inside = np.searchsorted(stamps, fresh - RATE_WINDOW_NS, side="right")
        end = np.arange(len(stamps) - len(new), len(stamps)) + 1
        x = (fresh - origin) / 1e9
        self.rate_x.extend(x)
        rates = (end - first_inside).astype(np.float64)
        self.rate.extend(rates)
        self.rate_max = max(self.rate_max, float(rates.max()))
        self._add_gaps(new, x)
        return True

    def _add_gaps(self, new: list[int], x: np.ndarray) -> None:
        gap_x: list[float] = []
        gaps: list[float] = []
        for at_ns, at_s in zip(new, x.tolist(), strict=True):
            if self._last_ns is not None:
                gap = (at_ns - self._last_ns) / NS_PER_MS
                gap_x.append(at_s)
                gaps.append(gap)
                if self._open_stall:  # counted while it lasted: its mark gets its end
                    self.stall_x.view[-1], self.stall_ms.view[-1] = at_s, gap
                elif self._is_stall(gap):
                    self.stall_x.extend([at_s])
                    self.stall_ms.extend([gap])
                    self.stalls += 1
                self._open_stall = False
                self._median.add(gap)
            self._last_ns = at_ns
        if gaps:
            self.gap_x.extend(gap_x)
            self.gap_ms.extend(gaps)
            self.gap_max_ms = max(self.gap_max_ms, max(gaps))

    def note_silence(self, at_ns: int) -> bool:
        """No token since the last one, at `at_ns`: a gap long enough to be a stall is
        counted now, once, so a stream that never resumes has its stall counted too.
        True when this call counted it."""
        if self._last_ns is None or self._open_stall or self._pending:
            return False
        gap = (at_ns - self._last_ns) / NS_PER_MS
        if not self._is_stall(gap):
            return False
        self._open_stall = True
        origin = self.written_ns if self.written_ns is not None else self._last_ns
        self.stall_x.extend([(at_ns - origin) / 1e9])
        self.stall_ms.extend([gap])
        self.stalls += 1
        return True

    def _is_stall(self, gap_ms: float) -> bool:
        if gap_ms > STALL_ABSOLUTE_MS:
            return True
        median = self._median.median()
        return (
            self._median.n >= MIN_GAPS_FOR_MEDIAN
            and median is not None
            and (gap_ms > max(STALL_FACTOR * median, STALL_FLOOR_MS))
        )

    def rate_now(self, now_ns: int) -> int:
        """Tokens in the last second before now_ns (falls to 0 after a stream ends)."""
        stamps = self._stamps.view
        if not len(stamps):
            return 0
        return int(len(stamps) - np.searchsorted(stamps, now_ns - RATE_WINDOW_NS, side="right"))


class PeakSeries:
    """A growing x/y series reduced for drawing: the x span is cut into `bins` equal bins
    and each non-empty bin is drawn as its min and max (the "peak" downsampling pyqtgraph
    does, but kept up to date incrementally), so a frame's work does not grow with the
    stream. Rebuilt from the full series only when the span changes (a few times a reply).
    """

    def __init__(self, bins: int = 1000) -> None:
        self.bins = bins
        self.span = 0.0
        self._used = 0  # points of the source series already binned
        self._low = np.full(bins, np.inf)
        self._high = np.full(bins, -np.inf)

    def update(self, xs: np.ndarray, ys: np.ndarray, span: float) -> tuple[np.ndarray, np.ndarray]:
        """xs ascending, all within [0, span]; returns the x, y arrays to draw."""
        if span != self.span or len(xs) < self._used:
            self.span, self._used = span, 0
            self._low.fill(np.inf)
            self._high.fill(-np.inf)
        if len(xs) > self._used:
            new_x, new_y = xs[self._used :], ys[self._used :]
            index = np.clip((new_x / self.span * self.bins).astype(np.int64), 0, self.bins - 1)
            np.minimum.at(self._low, index, new_y)
            np.maximum.at(self._high, index, new_y)
            self._used = len(xs)
        filled = np.flatnonzero(self._high >= self._low)
        centres = (filled + 0.5) * (self.span / self.bins)
        return np.repeat(centres, 2), np.column_stack(
            (self._low[filled], self._high[filled])
        ).ravel()


# -- requests over sessions ---------------------------------------------------------
