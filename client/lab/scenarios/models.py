"""Which models are "loaded" and until when: Ollama's keep_alive semantics.

keep_alive is a Go duration string ("10m", "30s", "1h30m", "500ms"), a number of
seconds, negative for forever, 0 to unload at once. Times are loop.time() seconds
(monotonic); expires_at is shown as wall-clock time computed from the remaining span.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

FOREVER = math.inf
_UNIT_S = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


class KeepAliveError(ValueError):
    pass


def parse_keep_alive(value: object) -> float:
    """Seconds to stay loaded after a request: inf = forever, 0 = unload now."""
    if isinstance(value, bool):
        raise KeepAliveError(f"invalid keep_alive {value!r}")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        seconds = _parse_duration(value.strip())
    else:
        raise KeepAliveError(f"invalid keep_alive {value!r}")
    return FOREVER if seconds < 0 else seconds


def _parse_duration(text: str) -> float:
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    try:
        return sign * float(body)  # a bare number: seconds
    except ValueError:
        pass
    parts = _PART.findall(body)
    if not body or "".join(n + u for n, u in parts) != body:
        raise KeepAliveError(f'time: invalid duration "{text}"')
    return sign * sum(float(n) * _UNIT_S[u] for n, u in parts)


@dataclass(slots=True)
class LoadedModel:
    name: str
    loaded_at: float
    until: float  # loop time; inf = forever
    ready_at: float  # loading finishes (== loaded_at when it was warm)
    busy: int = 0  # requests in flight: never expires under them


class ModelState:
    def __init__(self) -> None:
        self._loaded: dict[str, LoadedModel] = {}

    def loaded(self, name: str, now: float) -> LoadedModel | None:
        model = self._loaded.get(name)
        if model is not None and model.busy == 0 and model.until <= now:
            del self._loaded[name]
            return None
        return model

    def running(self, now: float) -> list[LoadedModel]:
        return [m for m in list(self._loaded.values()) if self.loaded(m.name, now) is not None]

    def acquire(self, name: str, now: float, load_s: float, hold_s: float) -> float:
        """Make sure `name` is loaded; return the seconds this request waits for loading."""
        model = self.loaded(name, now)
        if model is None:
            model = LoadedModel(name, now, now + load_s + hold_s, now + load_s)
            self._loaded[name] = model
        model.busy += 1
        model.until = max(model.until, now + hold_s)
        return max(0.0, model.ready_at - now)

    def release(self, name: str, now: float, keep_alive_s: float) -> None:
        """After a request: stay loaded for keep_alive (0 unloads now)."""
        model = self._loaded.get(name)
        if model is None:
            return
        model.busy = max(0, model.busy - 1)
        if keep_alive_s <= 0:
            del self._loaded[name]
        else:
            model.until = now + keep_alive_s

    def start_loading(self, name: str, now: float, load_s: float, keep_alive_s: float) -> None:
        """Begin loading `name` now, with no request waiting for it (a server starting)."""
        self._loaded[name] = LoadedModel(name, now, now + load_s + keep_alive_s, now + load_s)

    def load_now(self, name: str, now: float, keep_alive_s: float) -> None:
        self._loaded[name] = LoadedModel(name, now, now + keep_alive_s, now)

    def unload(self, name: str) -> None:
        self._loaded.pop(name, None)

    def clear(self) -> None:
        self._loaded.clear()


def expires_at_iso(model: LoadedModel, now: float) -> str:
    """Wall-clock expiry as Ollama prints it; 'forever' is far in the future like Go's max."""
    remaining = model.until - now
    wall = datetime.now(UTC).astimezone()
    if math.isinf(remaining):
        expiry = wall + timedelta(days=365 * 290)
    else:
        expiry = wall + timedelta(seconds=max(0.0, remaining))
    return go_time(expiry)


def go_time(moment: datetime) -> str:
    """RFC 3339 with nanoseconds, trailing zeros trimmed, as Go's time.Time marshals."""
    text = moment.isoformat(timespec="microseconds")
    date, _, rest = text.partition("T")
    clock, offset = rest[:15], rest[15:]
    clock = clock.rstrip("0").rstrip(".")
    if offset in ("+00:00", ""):
        offset = "Z"
    return f"{date}T{clock}{offset}"


def created_at() -> str:
    """Now, in UTC with nanoseconds, as Ollama stamps each chunk (cheap: on the hot path)."""
    seconds, nanos = divmod(time.time_ns(), 1_000_000_000)
    if _last_second[0] != seconds:  # formatting the date is the slow part: once a second
        _last_second[:] = [seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))]
    fraction = f"{nanos:09d}".rstrip("0")
    stamp = _last_second[1]
    return f"{stamp}.{fraction}Z" if fraction else f"{stamp}Z"


_last_second: list[Any] = [None, ""]
