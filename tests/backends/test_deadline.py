"""ReadDeadline: one timer per stream, moved by tokens, exact on expiry."""

from __future__ import annotations

import asyncio
import time

import pytest

from client.backends.deadline import ReadDeadline


class Moving:
    """A stall limit of `seconds` after the last `touch()`."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.last = time.monotonic()

    def touch(self) -> None:
        self.last = time.monotonic()

    def left(self) -> float:
        return self.seconds - (time.monotonic() - self.last)


async def test_reads_that_arrive_in_time_arm_one_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    armed = []
    real_call_at = loop.call_at
    monkeypatch.setattr(loop, "call_at", lambda *a, **k: armed.append(a) or real_call_at(*a, **k))
    limit = Moving(5.0)
    deadline = ReadDeadline(limit.left)
    for _ in range(200):
        assert await deadline.wait(asyncio.sleep(0, "token")) == "token"
        limit.touch()
    deadline.cancel()
    assert len(armed) == 1


async def test_expires_after_the_last_token_not_the_first() -> None:
    limit = Moving(0.2)
    deadline = ReadDeadline(limit.left)
    for _ in range(3):  # tokens every 0.1 s keep it alive past the first 0.2 s
        await deadline.wait(asyncio.sleep(0.1))
        limit.touch()
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await deadline.wait(asyncio.Event().wait())
    assert 0.15 <= time.monotonic() - started < 2.0


async def test_a_real_cancel_is_not_turned_into_a_timeout() -> None:
    deadline = ReadDeadline(Moving(10).left)
    task = asyncio.ensure_future(deadline.wait(asyncio.Event().wait()))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline.cancel()


async def test_no_limit_and_no_time_left() -> None:
    assert await ReadDeadline(lambda: None).wait(asyncio.sleep(0, 1)) == 1
    coroutine = asyncio.sleep(0)
    with pytest.raises(TimeoutError):
        await ReadDeadline(lambda: 0.0).wait(coroutine)
