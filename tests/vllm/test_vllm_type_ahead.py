"""Type-ahead on a real vLLM (issue 37): the question read while it is typed comes back
as vLLM's own count of cached prompt tokens, and a read or an answer stopped mid-prefill
leaves vLLM idle. Figures are printed beside the goals, not asserted (this tier checks
behaviour; docs/benchmarks.md keeps them).

vLLM says a request's cached tokens only with --enable-prompt-tokens-details, which the
tier's shared server does not take (its recordings, tests/vllm/test_vllm_lab_fixtures.py,
are held to `prompt_tokens_details: null`): this module starts a vLLM of its own with
it (or uses TACHY_VLLM_URL, which must have been started with it and prefix caching).
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
from collections.abc import Iterator

import pytest

from client.backends import OpenAICompatBackend
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.metrics import RequestMetrics
from client.services.warming import type_ahead_bench as bench
from client.services.warming.type_ahead import TypeAhead, read_figures
from tests.perf.test_engine_stop import WORDS
from tests.vllm.conftest import OPTIONS, VllmServer, given_vllm, start_vllm, stop_vllm

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(1800)]
CACHED_OPTIONS = (*OPTIONS, "--enable-prompt-tokens-details", "--enable-prefix-caching")
QUESTION_WORDS = 430  # ~500 prompt tokens with the template
LAST_WORDS = 12  # typed after the last read (a person's last few seconds)
STOP_WORDS = 1400  # ~1,500 prompt tokens (the model's context is 2,048)
ROUNDS = 3
STOPS = 5
GOAL_MS = 250
ABORTED = "Aborted request"


@pytest.fixture(scope="module")
def vllm_cached() -> Iterator[VllmServer]:
    url = os.environ.get("TACHY_VLLM_URL")
    server = given_vllm(url) if url else start_vllm(CACHED_OPTIONS)
    try:
        yield server
    finally:
        if server.pid is not None:
            stop_vllm(server.pid)


def unseen(words: int) -> str:
    """About `words` tokens no vLLM has cached (its cache outlives a test run)."""
    start = random.randrange(len(WORDS))
    step = random.randrange(1, len(WORDS) - 1)
    head = f"Question {random.getrandbits(48):x}:"
    return " ".join([head, *(WORDS[(start + i * step) % len(WORDS)] for i in range(words))])


def ask(model: str, text: str, max_tokens: int = 8) -> ChatRequest:
    return ChatRequest(model, [ChatMessage("user", text)], GenerationOptions(max_tokens=max_tokens))


def first_token_ms(metrics: RequestMetrics) -> float:
    first = metrics.ttft_ms if metrics.ttft_ms is not None else metrics.e2el_ms
    assert first is not None, metrics
    return first


async def typed_round(backend: OpenAICompatBackend, model: str) -> tuple[int, int, int, float]:
    """The draft read (as after a pause in typing), the last words typed, Enter: the sent
    request's prompt tokens, vLLM's cached count, the saving's tokens, its TTFT."""
    words = unseen(QUESTION_WORDS).split()
    draft, question = " ".join(words[:-LAST_WORDS]), " ".join(words)
    changed = asyncio.Event()
    ahead = TypeAhead(on_change=changed.set)
    try:
        ahead.read(backend, ask(model, draft), draft)
        while ahead.reading:  # vLLM sends no progress: a change is the read's end
            await changed.wait()
            changed.clear()
        ahead.request_started()
        metrics = await bench.send(backend, ask(model, question))
        saving = ahead.request_finished(metrics)
    finally:
        await ahead.aclose()
    figures = read_figures(metrics)
    assert metrics.prompt_tokens is not None and figures.cached is not None, metrics.server
    assert saving is not None, metrics.server
    return metrics.prompt_tokens, figures.cached, saving.tokens, first_token_ms(metrics)


async def test_a_question_read_while_typed_is_vllms_cached_prefix(
    vllm_cached: VllmServer,
) -> None:
    backend = OpenAICompatBackend(vllm_cached.url)
    model = vllm_cached.model
    rounds, pasted = [], []
    try:
        await bench.send(backend, ask(model, unseen(10)))  # first use
        for _ in range(ROUNDS):
            rounds.append(await typed_round(backend, model))
            plain = await bench.send(backend, ask(model, unseen(QUESTION_WORDS)))
            pasted.append(first_token_ms(plain))
    finally:
        await backend.aclose()
    for prompt, cached, saved, _ in rounds:
        assert 0 < saved <= cached < prompt  # vLLM counted the read's prefix as cached
    typed = statistics.median(r[3] for r in rounds)
    whole = statistics.median(pasted)
    print(
        f"\nvLLM: ~500-token question read while typed, then {LAST_WORDS} words more: "
        f"cached/prompt tokens {[(r[1], r[0]) for r in rounds]}, saving {[r[2] for r in rounds]}"
        f"; TTFT typed {typed:.0f} ms {[round(r[3]) for r in rounds]}, pasted {whole:.0f} ms "
        f"{[round(x) for x in pasted]} ({typed / whole:.2f}x)"
    )


async def aborted(vllm: VllmServer, before: int) -> None:
    """vLLM logged the stopped request's abort (its log: the only sign it gives soon
    enough; vllm:num_requests_running is updated too seldom for a 1-second prefill)."""
    while (await asyncio.to_thread(vllm.log_text)).count(ABORTED) <= before:  # noqa: ASYNC110 (a file: polled)
        await asyncio.sleep(0.1)


async def stop_mid_prefill(vllm: VllmServer, backend: OpenAICompatBackend, read: bool) -> float:
    """Stop a ~1,500-token prefill (an answer's, or a type-ahead read's as Enter cancels
    it) at a random point of its first half, and send a 10-token question at once (as
    Enter does): that question's TTFT."""
    before = (await asyncio.to_thread(vllm.log_text)).count(ABORTED)
    request = ask(vllm.model, unseen(STOP_WORDS), max_tokens=1)
    ahead = TypeAhead()
    task = None
    if read:
        ahead.read(backend, request, "draft")
    else:
        task = asyncio.create_task(bench.send(backend, request))
    await asyncio.sleep(random.uniform(0.1, 0.5))  # the prefill takes about a second
    if task is not None:
        task.cancel()
    else:
        ahead.request_started()
    after = await bench.send(backend, ask(vllm.model, unseen(8)))
    if task is not None:
        await asyncio.gather(task, return_exceptions=True)
    await ahead.aclose()
    await asyncio.wait_for(aborted(vllm, before), 60)
    return first_token_ms(after)


async def test_stop_mid_prefill_leaves_vllm_idle(vllm_cached: VllmServer) -> None:
    """vLLM's CPU worker spins for about a second after any step (its queue's busy wait),
    so its CPU says nothing of idleness: the figure is what the stopped prefill adds to
    the TTFT of a question sent at the Stop, against the same question's alone."""
    backend = OpenAICompatBackend(vllm_cached.url)
    model = vllm_cached.model
    try:
        prefill = first_token_ms(await bench.send(backend, ask(model, unseen(STOP_WORDS), 1)))
        alone = [await short_question(backend, model) for _ in range(STOPS)]
        stops = [await stop_mid_prefill(vllm_cached, backend, read=False) for _ in range(STOPS)]
        reads = [await stop_mid_prefill(vllm_cached, backend, read=True) for _ in range(STOPS)]
    finally:
        await backend.aclose()
    short, stop, read = (statistics.median(x) for x in (alone, stops, reads))
    print(
        f"\nvLLM: a ~1,500-token prefill takes {prefill:.0f} ms; a 10-token question's TTFT "
        f"alone {short:.0f} ms {[round(x) for x in alone]}; sent at a Stop mid-prefill "
        f"{stop:.0f} ms {[round(x) for x in stops]} (+{stop - short:.0f} ms); sent as Enter "
        f"cancels a read mid-prefill {read:.0f} ms {[round(x) for x in reads]} "
        f"(+{read - short:.0f} ms); goal: idle within {GOAL_MS} ms"
    )


async def short_question(backend: OpenAICompatBackend, model: str) -> float:
    return first_token_ms(await bench.send(backend, ask(model, unseen(8))))
