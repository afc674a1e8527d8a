"""Reaching a chosen server: backoff while its port is closed, a steady poll while it
loads its model, other errors at once."""

from __future__ import annotations

import asyncio

import pytest

from client.backends.errors import BackendUnreachable, ModelLoading, ProtocolError
from client.services.servers.reachability import Backoff, Reach, Waiting, WaitKind


def test_backoff_doubles_up_to_its_cap() -> None:
    delays = [Backoff(1.0, 30.0).delay(n) for n in range(1, 9)]
    assert delays == [1, 2, 4, 8, 16, 30, 30, 30]


def _answers_after(errors: list[Exception]) -> tuple[list[int], object]:
    calls: list[int] = []

    async def attempt() -> str:
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return "answered"

    return calls, attempt


def test_unreachable_then_loading_then_answered() -> None:
    errors: list[Exception] = [
        BackendUnreachable("http://x"),
        BackendUnreachable("http://x"),
        ModelLoading(),
    ]
    calls, attempt = _answers_after(errors)
    seen: list[Waiting] = []
    reach = Reach(Backoff(0.001, 0.004), loading_poll_s=0.001, clock=lambda: 100.0)
    result = asyncio.run(reach.run(attempt, seen.append))  # type: ignore[arg-type]
    assert result == "answered"
    assert [w.kind for w in seen] == [WaitKind.UNREACHABLE, WaitKind.UNREACHABLE, WaitKind.LOADING]
    assert [w.misses for w in seen] == [1, 2, 0]
    assert [w.delay_s for w in seen] == [0.001, 0.002, 0.001]
    assert seen[0].next_try_at == pytest.approx(100.001)
    assert "Can't reach the server at http://x" in seen[0].reason
    assert len(calls) == 4 and reach.waiting is None


def test_a_first_miss_starts_the_wait_without_asking_again_at_once() -> None:
    calls, attempt = _answers_after([])
    seen: list[Waiting] = []
    reach = Reach(Backoff(0.001))
    missed = BackendUnreachable("http://x")
    assert asyncio.run(reach.run(attempt, seen.append, missed)) == "answered"  # type: ignore[arg-type]
    assert len(seen) == 1 and len(calls) == 1


def test_try_now_cuts_the_wait_short() -> None:
    calls, attempt = _answers_after([BackendUnreachable("http://x")])

    async def scenario() -> str:
        reach = Reach(Backoff(3600.0))  # an hour: only try_now ends it
        task = asyncio.ensure_future(reach.run(attempt, lambda _w: reach.try_now()))  # type: ignore[arg-type]
        return await asyncio.wait_for(task, 60)  # a safety net

    assert asyncio.run(scenario()) == "answered"
    assert len(calls) == 2


def test_other_errors_are_no_wait() -> None:
    _calls, attempt = _answers_after([ProtocolError("not an LLM server")])
    with pytest.raises(ProtocolError):
        asyncio.run(Reach().run(attempt, lambda _w: None))  # type: ignore[arg-type]
