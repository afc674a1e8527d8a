"""History compression on the local engine: the TTFT of the next message of a long
conversation, with the older turns summarised by the same model and without.

Like with like: before every measured request an unrelated one takes the engine's
prompt cache (llama-server keeps the longest common prefix of consecutive requests),
so each measured request prefills its whole prompt, as the first message after a
reopen or after another conversation does. Both sides ask the same new questions, in
alternating order; medians over the rounds of one run.
"""

from __future__ import annotations

import statistics

import pytest

from client.backends import OpenAICompatBackend
from client.backends.engine.engine_settings import EngineSettings
from client.backends.engine.local_engine import LocalEngine
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, GenerationOptions
from client.services.planning.compression import older_turns, summarise, worth_compressing
from client.services.planning.planner import (
    HistorySummary,
    PlanInput,
    PlanSettings,
    Route,
    plan_request,
)

pytestmark = [pytest.mark.perf, pytest.mark.engine]

TIMEOUTS = StreamTimeouts(first_byte_s=300.0, stall_s=60.0)
ROUNDS = 3
TOPICS = ("the sea", "mountains", "old trains", "city gardens")
QUESTIONS = ("Which colour is it?", "Where is it found?", "Who likes it most?")


def _history() -> list[ChatMessage]:
    messages: list[ChatMessage] = [ChatMessage("system", "You are brief.")]
    for topic in TOPICS:
        detail = " ".join(f"Fact {n} about {topic} is worth noting." for n in range(16))
        messages.append(ChatMessage("user", f"Tell me about {topic}. {detail}"))
        messages.append(ChatMessage("assistant", f"Here is what I know of {topic}. {detail}"))
    return messages


async def _ttft(route: Route, given: PlanInput) -> float:
    plan = plan_request(given)
    async with route.backend.chat(plan.request(), TIMEOUTS) as stream:
        async for _ in stream:
            pass
    ttft = stream.metrics().ttft_ms
    assert ttft is not None, stream.outcome
    return ttft


async def _flush_cache(route: Route, index: int) -> None:
    settings = PlanSettings(options=GenerationOptions(max_tokens=1))
    await _ttft(route, PlanInput([], f"Unrelated {index}: say one word.", settings, [route]))


async def test_a_summarised_history_gets_the_next_first_token_sooner() -> None:
    # One slot and no host-RAM prompt cache: the unrelated request before each measured
    # one surely takes the cache. With the app's two slots it went to the other slot, and
    # with cache_ram the history came back from RAM (1,409 tokens "prefilled" in 138 ms).
    settings_ = EngineSettings.default().with_changes(n_parallel=1, cache_ram_mib=0)
    async with LocalEngine(settings=settings_) as engine:
        await _measure(engine)


async def _measure(engine: LocalEngine) -> None:
    backend = OpenAICompatBackend(engine.url)
    try:
        route = Route(backend, engine.model)
        history = _history()
        settings = PlanSettings(options=GenerationOptions(max_tokens=1, temperature=0.0))
        full = plan_request(PlanInput(history, "", settings, [route]))
        # The engine's 2,048-token context leaves room for a history of about 1,400
        # estimated tokens (SmolLM2's tokenizer counts more), just under the default
        # threshold: the measurement is of what a summary saves, not of the trigger.
        assert full.prompt_tokens > 1000 and not worth_compressing(100, None)
        older, _ids = older_turns(history, [None] * len(history))
        text = await summarise(route, older)
        assert text, "the engine wrote no summary"
        summary = HistorySummary(text, len(older))
        without: list[float] = []
        with_summary: list[float] = []
        for index in range(ROUNDS):
            for question, use in (
                (QUESTIONS[index], index % 2 == 0),
                (QUESTIONS[index], index % 2),
            ):
                await _flush_cache(route, 2 * index + int(bool(use)))
                given = PlanInput(
                    history, question, settings, [route], summary=summary if use else None
                )
                (with_summary if use else without).append(await _ttft(route, given))
        short = plan_request(PlanInput(history, "", settings, [route], summary=summary))
    finally:
        await backend.aclose()
    med_without, med_with = statistics.median(without), statistics.median(with_summary)
    print(
        f"\nprompt {full.prompt_tokens} tokens -> {short.prompt_tokens} with the summary; "
        f"TTFT median without {med_without:.0f} ms, with {med_with:.0f} ms "
        f"(ratio {med_with / med_without:.2f}; rounds {ROUNDS})"
    )
    assert short.prompt_tokens < full.prompt_tokens * 0.7
    assert med_with < med_without * 0.9
