"""Paced display: text shown at a steady pace from what has arrived (View > Smooth
streaming), in the spirit of the Vercel AI SDK's `smoothStream` (which releases a
stream word by word, `/\\S+\\s+/`, with a fixed delay between words).

Unlike smoothStream the pace follows the answer: the mean rate it has arrived at so
far, faster while much is held (it drains with a time constant of a third of
`max_lag_s`), so a burst is spread over the time before the next one rather than shown at once,
and a fast answer is never slowed to a fixed pace. Rules the window relies on:
- the first text of an answer is never held (the first token is painted at once);
- nothing is held longer than `max_lag_s`, nor more than `max_held_chars` at once;
- `flush()` gives back everything held (the answer ended, the window was hidden).
Display only: the HUD and the metrics measure arrival, never this.
Times are seconds on any monotonic clock; no Qt, no I/O.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PaceLimits:
    max_lag_s: float = 1.0  # text is shown at most this long after it arrived
    max_held_chars: int = 400  # and no more than this is ever held back
    least_chars_per_s: float = 24.0  # about 5 tokens a second, until the rate is known
    rate_known_after_s: float = 0.25  # the answer's own rate is used from then on
    word_reach: int = 16  # a release ends at a word's end if one is this near


DEFAULT_LIMITS = PaceLimits()


class Pacer:
    """One answer's text between arrival and display."""

    def __init__(self, limits: PaceLimits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self._held: deque[tuple[float, str]] = deque()  # (arrived at, text), oldest first
        self._held_chars = 0
        self._first_s: float | None = None
        self._arrived_chars = 0
        self._last_tick_s: float | None = None
        self._credit = 0.0  # characters the pace allows and not yet shown

    @property
    def holding(self) -> bool:
        return self._held_chars > 0

    @property
    def held_chars(self) -> int:
        return self._held_chars

    def arrive(self, text: str, now_s: float) -> str:
        """Text that arrived now; returns what to show at once."""
        self._arrived_chars += len(text)
        if self._first_s is None:  # the first text is never held
            self._first_s = self._last_tick_s = now_s
            return text
        if not text:
            return ""
        if not self._held:  # the pace starts from now: an idle wait earns no credit
            self._last_tick_s, self._credit = now_s, 0.0
        self._held.append((now_s, text))
        self._held_chars += len(text)
        over = self._held_chars - self.limits.max_held_chars
        return self._take(over) if over > 0 else ""

    def tick(self, now_s: float) -> str:
        """Once a frame: what the pace releases now."""
        last = self._last_tick_s if self._last_tick_s is not None else now_s
        self._last_tick_s = now_s
        if not self._held:
            self._credit = 0.0  # an idle pace saves nothing up for the next burst
            return ""
        self._credit += self.chars_per_s(now_s) * max(now_s - last, 0.0)
        wanted = max(int(self._credit), self._overdue_chars(now_s))
        if wanted <= 0:
            return ""
        shown = self._take(self._word_end(wanted))
        self._credit = max(self._credit - len(shown), 0.0)
        return shown

    def flush(self) -> str:
        """Everything held, at once."""
        return self._take(self._held_chars)

    def chars_per_s(self, now_s: float) -> float:
        """The pace: the answer's mean arrival rate, or faster while much is held."""
        limits = self.limits
        rate = limits.least_chars_per_s
        if self._first_s is not None and now_s - self._first_s >= limits.rate_known_after_s:
            rate = max(rate, self._arrived_chars / (now_s - self._first_s))
        return max(rate, self._held_chars / (limits.max_lag_s / 3))

    def _overdue_chars(self, now_s: float) -> int:
        """Characters held since before now - max_lag_s: they go now."""
        deadline = now_s - self.limits.max_lag_s
        count = 0
        for arrived, text in self._held:
            if arrived > deadline:
                break
            count += len(text)
        return count

    def _word_end(self, count: int) -> int:
        """`count` moved on to the end of the word it cuts, if that is near."""
        if count >= self._held_chars:
            return self._held_chars
        reach = self.limits.word_reach
        seen = 0
        for _, text in self._held:
            if seen + len(text) <= count:
                seen += len(text)
                continue
            start = count - seen
            for offset, char in enumerate(text[start : start + reach]):
                if char.isspace():
                    return count + offset + 1
            return count  # no word end near (or CJK text): cut by characters
        return count

    def _take(self, count: int) -> str:
        parts: list[str] = []
        while count > 0 and self._held:
            arrived, text = self._held[0]
            if len(text) <= count:
                self._held.popleft()
                parts.append(text)
                count -= len(text)
                self._held_chars -= len(text)
            else:
                parts.append(text[:count])
                self._held[0] = (arrived, text[count:])
                self._held_chars -= count
                count = 0
        return "".join(parts)
