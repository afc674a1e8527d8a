"""The local engine's work, counted instead of timed: CPU ticks from /proc and its slots'
own `is_processing`. A test tells that a Stop freed the engine by the work it did after
the Stop against the work the rest of the request would have cost; on a busy machine
that ratio holds where a wall-clock bound does not (tests/perf times the Stop)."""

from __future__ import annotations

import time

import httpx

from tests.engine_cpu import cpu_ticks

__all__ = ["cpu_ticks", "processing", "wait_until_idle", "work_after_stop"]
IDLE_WAIT_S = 120.0  # a safety net: an engine freed by a Stop is idle within a second


def processing(url: str) -> bool:
    """Whether any of the engine's slots is working on a request (llama-server /slots)."""
    slots = httpx.get(f"{url}/slots", timeout=30, trust_env=False).json()
    return any(slot["is_processing"] for slot in slots)


def wait_until_idle(url: str, timeout_s: float = IDLE_WAIT_S) -> None:
    """Until no slot is processing; fails after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while processing(url):
        assert time.monotonic() < deadline, f"the engine at {url} is still working"
        time.sleep(0.05)  # polling the engine's own state, not waiting for time


def work_after_stop(pid: int, url: str, stopped_at_ticks: int) -> int:
    """The CPU ticks the engine spent from `stopped_at_ticks` until it was idle again."""
    wait_until_idle(url)
    return cpu_ticks(pid) - stopped_at_ticks
