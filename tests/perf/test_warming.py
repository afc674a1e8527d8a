"""Does warming make the first message as fast as a warm one?

Against the latency lab's cold-start preset (both APIs) and against fresh local engine
processes: the first message after start *with* warming must be within 1.3x of a warm
TTFT (medians over rounds, compared in the same run); *without* warming the cold TTFT
is reported as such. Against the local engine, a prefix warm-up must take a long
conversation's prefill out of the next question's wait. Also: the per-keystroke cost
of the composer's prediction.

Like with like: llama-server (the local engine) reuses the longest common token
prefix of consecutive requests. The first message after warming shares only the chat
template's start with the warm-up ("Hi"), so every question here starts with a word no
other question starts with and has the same token count (6, SmolLM2's tokenizer): each
warm request then shares exactly as much with the request before it as the first
message shares with the warm-up. (Questions that all began "Name one ..." gave the
warm ones 2-4 fewer tokens to prefill: 8-9 against 12 for the first message after
warming, measured from the engine's "prompt eval" log, which alone made 1.2-1.3x.)
The round's first question also rotates, so no question's length favours one side.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
from dataclasses import replace
from typing import Any

import pytest

from client.backends import OllamaBackend, OpenAICompatBackend
from client.backends.engine.local_engine import LocalEngine, free_port
from client.backends.stream import StreamTimeouts
from client.core.budget import estimate_tokens
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.prediction import ModelState, TtftPredictor
from client.lab.scenarios.scenario import Distribution, preset
from client.lab.server import LabServer
from client.services.servers.model_status import ServerPolicy
from client.services.warming.cold_start import cold_start_then_warm
from client.services.warming.warming import KeepAliveWarmer

pytestmark = pytest.mark.perf

TIMEOUTS = StreamTimeouts(first_byte_s=300.0, stall_s=60.0)
COLD_QUESTION = "Name one colour of the sea."
# 6 tokens each, no two starting with the same word (see the module docstring).
QUESTIONS = (
    "Which sea bird is big?",
    "What colour is the sea?",
    "Where do big ships dock?",
    "How deep is the sea?",
    "Why is the sea salty?",
    "Tell me a sea bird.",
)


async def ttft_ms(backend: Any, model: str, question: str, max_tokens: int = 4) -> float:
    return await prompt_ttft_ms(backend, model, [ChatMessage("user", question)], max_tokens)


async def prompt_ttft_ms(
    backend: Any, model: str, messages: list[ChatMessage], max_tokens: int = 4
) -> float:
    request = ChatRequest(model, messages, options=GenerationOptions(max_tokens=max_tokens))
    async with backend.chat(request, TIMEOUTS) as stream:
        async for _event in stream:
            pass
    measured = stream.metrics().ttft_ms
    assert measured is not None, stream.outcome
    return measured


def report(name: str, cold: list[float], warmed: list[float], warm: list[float]) -> float:
    warm_median = statistics.median(warm)
    ratio = statistics.median(warmed) / warm_median
    print(
        f"\n{name}: first message without warming (cold) median "
        f"{statistics.median(cold):.0f} ms ({statistics.median(cold) / warm_median:.2f}x warm); "
        f"with warming {statistics.median(warmed):.0f} ms ({ratio:.2f}x warm); "
        f"warm median {warm_median:.0f} ms (n={len(warm)}); rounds={len(cold)}"
    )
    return ratio


# -- scripted servers: the lab's cold-start preset ----------------------------------

LAB_LOAD_MS = 600.0
LAB_TTFT_MS = 60.0


def cold_lab() -> LabServer:
    # Fixed TTFT: the comparison then measures loading and the client, not dice.
    scenario = replace(
        preset("cold-start"),
        load_ms=LAB_LOAD_MS,
        ttft=Distribution("fixed", LAB_TTFT_MS),
        output_tokens=4,
    )
    return LabServer(scenario)


@pytest.mark.parametrize("api", ["ollama", "openai"])
async def test_first_message_after_warming_is_warm_fast_on_the_lab(api: str) -> None:
    cold, warmed, warm = [], [], []
    for _round in range(2):
        lab = cold_lab()
        url = await lab.start()
        backend = OllamaBackend(url) if api == "ollama" else OpenAICompatBackend(url)
        model = lab.scenario.model
        cold.append(await ttft_ms(backend, model, COLD_QUESTION))
        await backend.aclose()
        await lab.stop()

        lab = cold_lab()
        url = await lab.start()
        backend = OllamaBackend(url) if api == "ollama" else OpenAICompatBackend(url)
        warmer = KeepAliveWarmer(backend, model)
        await warmer.warm_now("app start")  # the user is still typing meanwhile
        assert warmer.state is ModelState.WARM
        assert warmer.user_request_started() is False  # no LOADING stage for this one
        warmed.append(await ttft_ms(backend, model, QUESTIONS[1]))
        warmer.user_request_finished(ok=True)
        for question in QUESTIONS[2:5]:
            warm.append(await ttft_ms(backend, model, question))
        await warmer.aclose()
        await backend.aclose()
        await lab.stop()
    ratio = report(f"lab cold-start ({api})", cold, warmed, warm)
    assert ratio <= 1.3
    assert statistics.median(cold) >= LAB_LOAD_MS  # the cold figure really is cold


# -- the real local engine: "cold" is a freshly started process -----------------------


@pytest.mark.engine
@pytest.mark.timeout(900)
async def test_first_message_after_warming_is_warm_fast_on_the_local_engine() -> None:
    """Seven rounds, each round's first message judged against that round's warm ones,
    and the median of those ratios asserted. On a busy machine one request in a few
    takes up to twice its time (the engine's own prompt eval figure: 12 tokens in
    80-290 ms under three CPU hogs, none of it Tachy's); with the medians of three
    pooled rounds, one such first message decided the figure (CI: 331 ms against a
    warm 212 ms, 1.56x; under load here the per-round ratios were 0.92-1.36x)."""
    cold, warmed, warm, ratios = [], [], [], []
    engine = LocalEngine(port=free_port())
    try:
        for round_ in range(7):
            await engine.restart()  # fresh process: cold
            backend = OpenAICompatBackend(engine.url)
            cold.append(await ttft_ms(backend, engine.model, COLD_QUESTION))
            await backend.aclose()
            first, *later = rotated(QUESTIONS, round_)

            await engine.stop()  # the warmer starts it, as the app does
            backend = OpenAICompatBackend(engine.url)  # a fixed port: the same URL
            hook = cold_start_then_warm(None, backend, engine.model, engine=engine)
            await hook()
            assert engine.running
            warmed.append(await ttft_ms(backend, engine.model, first))
            round_warm = [await ttft_ms(backend, engine.model, q) for q in later[:3]]
            await backend.aclose()
            warm.extend(round_warm)
            ratios.append(warmed[-1] / statistics.median(round_warm))
    finally:
        await engine.stop()
    report("local engine", cold, warmed, warm)
    ratio = statistics.median(ratios)
    print(f"per-round ratios {[round(r, 2) for r in ratios]}: median {ratio:.2f}x (goal 1.3x)")
    assert ratio <= 1.3
    assert statistics.median(warmed) < statistics.median(cold)


def rotated(items: tuple[str, ...], by: int) -> list[str]:
    by %= len(items)
    return [*items[by:], *items[:by]]


# -- prefix warming on the local engine ------------------------------------------------


def long_conversation(topic: str, turns: int = 6) -> list[ChatMessage]:
    """System prompt and `turns` exchanges: about 600 tokens for SmolLM2 (measured)."""
    messages = [ChatMessage("system", f"You answer short questions about {topic}.")]
    for turn in range(turns):
        messages.append(ChatMessage("user", f"Tell me fact {turn + 1} about {topic}, please."))
        detail = " ".join(f"{topic} detail {turn}.{k} is worth a note;" for k in range(6))
        messages.append(ChatMessage("assistant", f"Fact {turn + 1}: {detail} that is all."))
    return messages


def engine_prompt_eval(engine: LocalEngine) -> str:
    """The engine's own figure for the last request (llama-server's perf log line)."""
    found = re.findall(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens", engine.log_tail(40))
    return f"{float(found[-1][0]):.0f} ms for {found[-1][1]} tokens" if found else "not logged"


@pytest.mark.engine
@pytest.mark.timeout(600)
async def test_prefix_warm_up_takes_the_conversation_out_of_the_wait(
    local_engine: LocalEngine,
) -> None:
    """A ~600-token conversation: the next question's TTFT without a warm-up (a
    conversation the engine has never read) against with a prefix warm-up first.

    Every round and side gets a conversation of its own: llama-server keeps earlier
    prompts in its host-RAM prompt cache (cache_ram_mib) and restores the best match,
    so a conversation read once is never cold again in this engine's life."""
    backend = OpenAICompatBackend(local_engine.url)
    model = local_engine.model
    topics = iter(["the sea", "the moon", "old boats", "red birds"])  # same token counts
    # Another conversation before each question: it differs from the first token of
    # the system prompt on, so the slot holds nothing of the next conversation.
    other = [ChatMessage("system", "You answer questions about mountains.")]
    plain, warmed, server = [], [], []
    tokens = 0
    try:
        for round_ in range(2):  # alternated, so drift in machine load hits both
            conversation = long_conversation(next(topics))
            tokens = sum(estimate_tokens(m) for m in conversation)
            await prompt_ttft_ms(backend, model, [*other, ChatMessage("user", "Hi")])
            question = ChatMessage("user", QUESTIONS[2 * round_])
            plain.append(await prompt_ttft_ms(backend, model, [*conversation, question]))
            server.append(f"unwarmed {engine_prompt_eval(local_engine)}")

            conversation = long_conversation(next(topics))
            await prompt_ttft_ms(backend, model, [*other, ChatMessage("user", "Hi")])
            warmer = KeepAliveWarmer(backend, model, policy=ServerPolicy.KEEPS_LOADED)
            warmer.prefix_provider = lambda conversation=conversation: conversation
            await warmer.warm_now("conversation opened")
            assert warmer.warm_requests == 1 and warmer.last_error is None
            assert warmer.warm("typing") is None  # the same prefix is not sent again
            await warmer.aclose()
            question = ChatMessage("user", QUESTIONS[2 * round_ + 1])
            warmed.append(await prompt_ttft_ms(backend, model, [*conversation, question]))
            server.append(f"warmed {engine_prompt_eval(local_engine)}")
    finally:
        await backend.aclose()
    ratio = statistics.median(warmed) / statistics.median(plain)
    print(
        f"\nprefix warming, ~{tokens}-token conversation (estimate): next question TTFT "
        f"unwarmed {[round(x) for x in plain]} ms, after a prefix warm-up "
        f"{[round(x) for x in warmed]} ms; median ratio {ratio:.2f}x; "
        f"engine prompt eval: {'; '.join(server)}"
    )
    assert ratio < 0.5


@pytest.mark.engine
@pytest.mark.timeout(600)
async def test_first_message_in_a_long_conversation_after_start_is_warm_fast() -> None:
    """The app starts with a ~600-token conversation open: the engine is started and
    the prefix warmed, then the first question is timed against warm questions in the
    same conversation. Like with like: each request is the conversation plus one
    question, so each shares the conversation (and the user header) with the request
    before it, exactly as the first one shares it with the warm-up."""
    conversation = long_conversation("the sea")
    warmed: list[float] = []
    ratios: list[float] = []  # each round's first message against that round's warm ones
    engine = LocalEngine(port=free_port())
    try:
        # Five rounds: this machine's speed varies ±20 % from one request to the next
        # (the engine's own "prompt eval" figure, not stolen time), and one request in
        # ~15 took twice its time. With two rounds one such first message decided the
        # median (CI: [257, 439] ms against 262); three gave 0.97-1.23x. Each round is
        # judged against its own warm questions: with other work going on, the machine's
        # speed drifts between rounds (a busy run: first messages [282, 209, 198, 141,
        # 139] ms against one warm median of 151 ms gave 1.31x, though no round was slow
        # against its own warm questions).
        for round_ in range(5):
            await engine.stop()  # the warmer starts it, as the app does
            backend = OpenAICompatBackend(f"http://{engine.host}:{engine.requested_port}")
            warmer = KeepAliveWarmer(backend, engine.model, engine=engine)
            warmer.prefix_provider = lambda: conversation
            await warmer.warm_now("app start")
            assert engine.running and warmer.last_error is None
            await warmer.aclose()
            first, *later = rotated(QUESTIONS, 2 * round_)
            ask = [*conversation, ChatMessage("user", first)]
            warmed.append(await prompt_ttft_ms(backend, engine.model, ask))
            warm = []
            for question in later[:3]:
                ask = [*conversation, ChatMessage("user", question)]
                warm.append(await prompt_ttft_ms(backend, engine.model, ask))
            ratios.append(warmed[-1] / statistics.median(warm))
            await backend.aclose()
    finally:
        await engine.stop()
    ratio = statistics.median(ratios)
    print(
        f"\nlong conversation, first message after start with prefix warming: "
        f"{[round(x) for x in warmed]} ms; against each round's warm median "
        f"{[round(r, 2) for r in ratios]}, median {ratio:.2f}x"
    )
    assert ratio <= 1.3


# -- the composer's prediction on every keystroke --------------------------------------


def test_prediction_per_keystroke_costs_a_tiny_part_of_a_frame() -> None:
    predictor = TtftPredictor()
    for tokens in range(50, 1550, 50):
        predictor.observe(tokens, 40 + tokens * 0.5)
    history = [ChatMessage("user" if i % 2 else "assistant", "word " * 80) for i in range(40)]
    history_tokens = sum(estimate_tokens(m) for m in history)  # counted once, not per key
    draft = ""
    samples_us, baseline_us = [], []
    for key in range(2000):
        draft += "abcdefgh "[key % 9]
        started = time.perf_counter_ns()
        tokens = history_tokens + estimate_tokens(ChatMessage("user", draft))
        prediction = predictor.predict(tokens, ModelState.WARM)
        label = prediction.label() if prediction else ""
        samples_us.append((time.perf_counter_ns() - started) / 1000)
        started = time.perf_counter_ns()
        label = f"{len(draft)} characters"  # baseline: the cheapest status text there is
        baseline_us.append((time.perf_counter_ns() - started) / 1000)
    assert label
    median_us = statistics.median(samples_us)
    base_us = statistics.median(baseline_us)
    print(
        f"\nprediction per keystroke: median {median_us:.1f} µs, P99 "
        f"{statistics.quantiles(samples_us, n=100)[98]:.1f} µs (n={len(samples_us)}); "
        f"baseline f-string {base_us:.2f} µs; ratio {median_us / base_us:.1f}x; "
        f"a 60 Hz frame is 16,667 µs"
    )
    assert median_us < 16_667 / 100  # under 1% of a frame
    # And observing a finished request (the refit) is cheap enough to do inline.
    started = time.perf_counter_ns()
    predictor.observe(900, 500.0)
    assert (time.perf_counter_ns() - started) / 1e6 < 50


async def test_warmer_calls_never_block_the_loop() -> None:
    """warm() on typing is called from the key handler: it must return at once, while
    the warm-up it started (a 600 ms load on the lab) is still running."""
    lab = cold_lab()
    url = await lab.start()
    backend = OllamaBackend(url)
    warmer = KeepAliveWarmer(backend, lab.scenario.model)
    durations = []
    for _ in range(200):
        started = time.perf_counter_ns()
        warmer.warm("typing")
        warmer.note_activity()
        durations.append((time.perf_counter_ns() - started) / 1000)
        await asyncio.sleep(0)
    print(f"\nwarm() per call: median {statistics.median(durations):.1f} µs (n=200)")
    assert statistics.median(durations) < 1000
    await warmer.aclose()
    await backend.aclose()
    await lab.stop()
