"""The lab as a server with a bounded batch: capacity, continuous or static batching,
chunked prefill or not (client/lab/timing/scheduler.py)."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

from client.lab import PRESETS
from client.lab.timing.scheduler import GROUP_WINDOW_S, Scheduler
from tests.lab.conftest import chat_body


async def test_continuous_admits_a_waiter_as_soon_as_one_ends() -> None:
    scheduler = Scheduler(capacity=2)
    await scheduler.acquire()
    await scheduler.acquire()
    third = asyncio.create_task(scheduler.acquire())
    await asyncio.sleep(0.01)
    assert not third.done() and scheduler.waiting == 1
    scheduler.release()
    await asyncio.wait_for(third, 60)
    assert scheduler.running == 2 and scheduler.waiting == 0


async def test_static_batch_waits_for_the_whole_group() -> None:
    scheduler = Scheduler(capacity=4, batching="static")
    await scheduler.acquire()
    await scheduler.acquire()  # within GROUP_WINDOW_S: joins the group
    await asyncio.sleep(GROUP_WINDOW_S * 3)  # the group is sealed
    late = [asyncio.create_task(scheduler.acquire()) for _ in range(3)]
    await asyncio.sleep(0.01)
    assert scheduler.waiting == 3  # room for 2 more, but the group is running
    scheduler.release()
    await asyncio.sleep(0.01)
    assert scheduler.waiting == 3  # one of the group still runs
    scheduler.release()
    await asyncio.wait_for(asyncio.gather(*late), 60)
    assert scheduler.running == 3  # the waiting ones start together


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    scheduler = Scheduler(capacity=1)
    await scheduler.acquire()
    waiter = asyncio.create_task(scheduler.acquire())
    await asyncio.sleep(0.01)
    waiter.cancel()
    await asyncio.sleep(0.01)
    assert scheduler.waiting == 0
    scheduler.release()
    assert scheduler.running == 0


async def test_past_capacity_the_first_token_waits_and_metrics_say_so(start_lab) -> None:
    # The first reply takes 0.86 s: time enough, on a busy machine, to send the second
    # while it runs.
    _, client = await start_lab(capacity=1, ttft=60, tpot_ms=100, output_tokens=8)
    started = time.monotonic()

    async def ttft_ms() -> float:
        first = None
        async with client.stream("POST", "/v1/chat/completions", json=chat_body(stream=True)) as r:
            async for line in r.aiter_lines():  # to the end: leaving early frees the place
                if first is None and '"content":"' in line and '"content":""' not in line:
                    first = (time.monotonic() - started) * 1000.0
        assert first is not None
        return first

    async def until_gauge(name: str, value: str) -> None:
        line = f'vllm:{name}{{engine="0",model_name="tachy-lab:latest"}} {value}'
        for _ in range(6000):  # polled, not slept: a busy machine may be slow to start
            if line in (await client.get("/metrics")).text:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{line} never showed")

    first = asyncio.create_task(ttft_ms())
    await until_gauge("num_requests_running", "1.0")
    second = asyncio.create_task(ttft_ms())
    await until_gauge("num_requests_waiting", "1.0")
    one, two = await asyncio.gather(first, second)
    assert one > 55
    # The second waited for the first reply (60 ms, then 100 ms a token after its first),
    # then its own 60 ms: both counted from before the first was sent (sleeps only come
    # late).
    assert two > 60 + 7 * 100 + 60 - 5
    metrics = (await client.get("/metrics")).text
    queued = next(
        x for x in metrics.splitlines() if x.startswith("vllm:request_queue_time_seconds_sum")
    )
    assert float(queued.rsplit(" ", 1)[1]) > 0.02  # the second waited for the first to end


async def test_ollama_load_duration_includes_the_queue(start_lab) -> None:
    _, client = await start_lab(capacity=1, ttft=80, tpot_ms=2)
    body = {"model": "tachy-lab", "messages": [{"role": "user", "content": "hi"}], "stream": False}
    first, second = await asyncio.gather(
        client.post("/api/chat", json=body), client.post("/api/chat", json=body)
    )
    loads = sorted([first.json()["load_duration"], second.json()["load_duration"]])
    assert loads[0] < 20_000_000 and loads[1] > 70_000_000  # waited for the runner


async def test_without_chunked_prefill_a_new_prefill_stalls_running_streams(start_lab) -> None:
    _, client = await start_lab(ttft=150, tpot_ms=10, output_tokens=30, chunked_prefill=False)

    async def gaps() -> list[float]:
        stamps = []
        async with client.stream("POST", "/v1/chat/completions", json=chat_body(stream=True)) as r:
            async for line in r.aiter_lines():
                if '"content":"' in line and '"content":""' not in line:
                    stamps.append(time.monotonic())
        return [(b - a) * 1000 for a, b in itertools.pairwise(stamps)]

    running = asyncio.create_task(gaps())
    await asyncio.sleep(0.2)  # the first stream is decoding
    await client.post("/v1/chat/completions", json=chat_body())
    assert max(await running) > 120  # held for the newcomer's 150 ms prefill


async def test_with_chunked_prefill_running_streams_go_on(start_lab) -> None:
    _, client = await start_lab(ttft=150, tpot_ms=10, output_tokens=30)
    stamps = []

    async def stream() -> None:
        async with client.stream("POST", "/v1/chat/completions", json=chat_body(stream=True)) as r:
            async for line in r.aiter_lines():
                if '"content":"' in line and '"content":""' not in line:
                    stamps.append(time.monotonic())

    running = asyncio.create_task(stream())
    await asyncio.sleep(0.2)
    await client.post("/v1/chat/completions", json=chat_body())
    await running
    assert max((b - a) * 1000 for a, b in itertools.pairwise(stamps)) < 110  # no 150 ms hold


def test_the_two_batching_presets_differ_only_in_scheduling() -> None:
    continuous, static = PRESETS["continuous"], PRESETS["static"]
    assert (continuous.capacity, static.capacity) == (8, 8)
    assert (continuous.batching, static.batching) == ("continuous", "static")
    assert continuous.chunked_prefill and not static.chunked_prefill
    assert json.dumps(str(continuous.ttft)) == json.dumps(str(static.ttft))
