"""Stop mid-prefill against the prefill rate: the local engine's batch trade.

llama-server notices a closed connection only when it writes the next progress chunk,
after a batch, and ends the request after the batch under way then: a Stop frees the
CPU one to two batch times later. Smaller batches stop sooner; with flash attention they
also read much slower (its CPU kernel is fast only from 64 tokens a batch), without it
hardly (engine_settings.py). On engines side by side in one run, the default against
flash attention at 64 and 128 (the fastest readers) and the default at 16: the prefill
rate (the server's own timings of a ~1,230-token prompt it has never read, and tokens
per CPU second of the engine, steadier on a shared machine) and the time from a Stop at
a random point of a batch (as a user's) to the engine's last CPU tick (/proc, 10 ms
ticks, sampled from a thread from before the close). Medians of rounds.

Asserted for the default (batches of 8 since issue 37): its CPU-time rate within 15 % of
the batch of 32 it replaced (the goal is 10 %; margin for a shared machine) and its
median stop at most 500 ms or, when this machine is too busy for that, 2.5 of its own
batch times. tests/perf/test_type_ahead.py holds the 250 ms goal.
"""

from __future__ import annotations

import asyncio
import random
import statistics

import pytest

from client.backends import OpenAICompatBackend
from client.backends.engine.engine_settings import EngineSettings
from client.backends.engine.local_engine import LocalEngine
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Prefill
from tests.engine_cpu import LastTick, cpu_ticks

pytestmark = [pytest.mark.perf, pytest.mark.engine]

DEFAULT = EngineSettings.default()
CONFIGS = {
    "default": DEFAULT,
    "flash 64": DEFAULT.with_changes(n_batch=64, flash_attn=True, cache_type_k="f16"),
    "flash 128": DEFAULT.with_changes(n_batch=128, flash_attn=True, cache_type_k="f16"),
    "default 16": DEFAULT.with_changes(n_batch=16),
    "default 32": DEFAULT.with_changes(n_batch=32),  # the default before issue 37
}
ROUNDS = 3
PROMPT_WORDS = 1200
TIMEOUTS = StreamTimeouts(first_byte_s=600.0, stall_s=120.0)
WORDS = (
    "river stone light green window paper music garden silver morning table winter "
    "forest candle bridge yellow ocean letter summer mountain cloud orange station"
).split()
_prompts = iter(range(1_000_000))


def unseen_prompt(words: int) -> str:
    """About `words` tokens no engine has read: each prompt's word order differs from
    the first word on, so nothing of it is in any prompt cache."""
    n = next(_prompts)
    step = n % (len(WORDS) - 1) + 1
    return " ".join(WORDS[(i * step + n) % len(WORDS)] for i in range(words))


async def prefill_rate(backend: OpenAICompatBackend, engine: LocalEngine) -> tuple[float, float]:
    """(tokens per second by the server's timings, tokens per CPU second of the engine)."""
    assert engine.pid is not None
    request = ChatRequest(
        engine.model,
        [ChatMessage("user", unseen_prompt(PROMPT_WORDS))],
        GenerationOptions(max_tokens=1),
    )
    ticks = cpu_ticks(engine.pid)
    async with backend.chat(request, TIMEOUTS) as stream:
        async for _ in stream:
            pass
    cpu_s = max(cpu_ticks(engine.pid) - ticks, 1) / 100.0
    timings = stream.metrics().server["llamacpp"].values
    return timings["prompt_n"] / timings["prompt_ms"] * 1000.0, timings["prompt_n"] / cpu_s


async def stop_ms(backend: OpenAICompatBackend, engine: LocalEngine, batch_s: float) -> float:
    """Close the connection at a random point of the third batch; ms to the last tick."""
    assert engine.pid is not None
    request = ChatRequest(
        engine.model,
        [ChatMessage("user", unseen_prompt(PROMPT_WORDS))],
        GenerationOptions(max_tokens=1),
    )
    chunks = 0
    reading = asyncio.Event()

    async def consume() -> None:
        nonlocal chunks
        async with backend.chat(request, TIMEOUTS) as stream:
            async for event in stream:
                if isinstance(event, Prefill) and event.computed > 0:
                    chunks += 1
                    if chunks >= 2:
                        reading.set()

    last_tick = LastTick(engine.pid)
    last_tick.start()
    task = asyncio.create_task(consume())
    waiting = asyncio.create_task(reading.wait())
    await asyncio.wait({task, waiting}, timeout=300, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    assert reading.is_set(), f"no prefill under way: {task.exception() if task.done() else ''}"
    await asyncio.sleep(random.uniform(0.0, batch_s))  # a Stop falls anywhere in a batch
    task.cancel()
    last_tick.stopped()
    await asyncio.gather(task, return_exceptions=True)
    return await asyncio.to_thread(last_tick.idle_ms)


async def start(settings: EngineSettings) -> tuple[LocalEngine, OpenAICompatBackend]:
    engine = LocalEngine(settings=settings)
    await engine.start()
    backend = OpenAICompatBackend(engine.url)
    await backend.list_models()  # learns llama.cpp: progress chunks are asked for
    await prefill_rate(backend, engine)  # first use: kernels, caches
    return engine, backend


@pytest.mark.timeout(2400)
async def test_the_default_stops_fast_and_reads_near_the_best_rate() -> None:
    """All engines run side by side (idle ones cost nothing) and each round asks each
    in turn, so drift in the machine's load hits every configuration alike."""
    running = {name: await start(settings) for name, settings in CONFIGS.items()}
    walls: dict[str, list[float]] = {name: [] for name in CONFIGS}
    cpus: dict[str, list[float]] = {name: [] for name in CONFIGS}
    stops: dict[str, list[float]] = {name: [] for name in CONFIGS}
    try:
        for _ in range(ROUNDS):
            for name, (engine, backend) in running.items():
                wall, cpu = await prefill_rate(backend, engine)
                walls[name].append(wall)
                cpus[name].append(cpu)
                batch_s = CONFIGS[name].n_batch / wall
                stops[name].append(await stop_ms(backend, engine, batch_s))
    finally:
        for engine, backend in running.values():
            await backend.aclose()
            await engine.stop()
    wall = {name: statistics.median(values) for name, values in walls.items()}
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    stop = {name: statistics.median(values) for name, values in stops.items()}
    best_wall, best_cpu = max(wall.values()), max(cpu.values())
    print("\nconfig      batch  tokens/s (x best)  per CPU s (x best)  batch ms  stop ms  stops")
    for name, settings in CONFIGS.items():
        print(
            f"{name:10s}  {settings.n_batch:5d}  {wall[name]:7.1f} ({wall[name] / best_wall:.2f})"
            f"  {cpu[name]:9.1f} ({cpu[name] / best_cpu:.2f})"
            f"  {settings.n_batch / wall[name] * 1000:8.0f}  {stop[name]:7.0f}"
            f"  {[round(x) for x in stops[name]]}"
        )
    batch_ms = DEFAULT.n_batch / wall["default"] * 1000.0
    assert stop["default 16"] < stop["flash 128"]  # the dial works: smaller stops sooner
    assert cpu["default"] >= 0.85 * cpu["default 32"], cpu
    assert stop["default"] <= max(500.0, 2.5 * batch_ms), (stop, batch_ms)
