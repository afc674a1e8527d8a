"""TTFT prediction's accuracy on the real local engine: 19 prompts of ~50 to 1,500
tokens, each predicted before it is sent; the goal is a median error under 25 %.
Wall-clock figures: a benchmark (tests/core/test_prediction.py checks what it learns)."""

from __future__ import annotations

import pytest

from client.core.conversation import ChatMessage
from client.core.prediction import TtftPredictor
from tests.core.test_prediction import prompt_of
from tests.machine import QUIET_STEAL, StealMeter

pytestmark = [pytest.mark.perf, pytest.mark.engine]
GOAL_PCT = 25.0

STOLEN_RETRIES = 2


@pytest.mark.timeout(900)  # 19 prompts of up to 1,500 tokens on a shared 2-core machine
async def test_prediction_within_25_percent_on_the_local_engine(local_engine: object) -> None:
    from client.backends import OpenAICompatBackend
    from client.backends.stream import StreamTimeouts
    from client.core.conversation import ChatRequest, GenerationOptions
    from client.services.planning.tokenize import PromptTokenCounter

    engine: object = local_engine
    backend = OpenAICompatBackend(engine.url)  # type: ignore[attr-defined]
    model = engine.model  # type: ignore[attr-defined]
    counter = PromptTokenCounter.for_backend(backend, model)
    predictor = TtftPredictor()
    timeouts = StreamTimeouts(first_byte_s=300.0, stall_s=60.0)

    async def ttft(text: str) -> float:
        request = ChatRequest(
            model, [ChatMessage("user", text)], options=GenerationOptions(max_tokens=1)
        )
        async with backend.chat(request, timeouts) as stream:
            async for _event in stream:
                pass
        measured = stream.metrics().ttft_ms
        assert measured is not None, stream.outcome
        return measured

    await ttft(prompt_of(0, 1))  # the engine may be fresh: not part of the figures
    # 19 sentence counts from about 50 to 1,500 tokens (n_ctx is 2048); the first
    # three teach the predictor, the rest are predicted before they are sent (and
    # then observed: the predictor keeps learning, as it does in the app).
    # This machine's own speed varies from one request to the next: a ~1,100-token
    # prompt took 7.6-11.3 s over 8 requests, with the engine's CPU time equal to the
    # wall time and nothing stolen. With 8 predicted prompts, the median error was
    # 4 %, 24 % and 26 % in three runs; 16 make that median steadier.
    plan = [4, 70, 150, 9, 110, 27, 90, 45, 130, 18, 60, 35, 100, 14, 75, 120, 22, 50, 140]
    # A prompt timed while the hypervisor took the machine's CPU (tests.machine) is
    # timed again with another prompt of that size.
    errors, sizes, retaken = [], [], 0
    for index, sentences in enumerate(plan, start=1):
        for attempt in range(STOLEN_RETRIES + 1):
            message = ChatMessage("user", prompt_of(index + 100 * attempt, sentences))
            await counter.prepare([message])
            tokens = counter(message)
            prediction = predictor.predict(tokens)
            meter = StealMeter()
            actual = await ttft(message.content)
            stolen = meter.share()
            if stolen < QUIET_STEAL:
                break
            retaken += 1
        sizes.append(tokens)
        predicted = prediction.ttft_ms if prediction and index > 3 else None
        predictor.observe(tokens, actual, predicted_ms=predicted)
        if predicted is not None:
            errors.append(abs(predicted - actual) / actual)
            print(
                f"{tokens:5d} tokens: predicted {predicted:7.1f} ms, actual {actual:7.1f} ms "
                f"({stolen:.0%} stolen)"
            )
    await backend.aclose()
    median_error = predictor.median_error_pct()
    print(
        f"median error {median_error:.1f}% (goal < {GOAL_PCT:.0f} %) over {len(errors)} prompts; "
        f"prefill {predictor.prefill_tokens_per_s:.0f} tokens/s, "
        f"overhead {predictor.overhead_ms:.0f} ms; {retaken} prompts timed again (stolen CPU)"
    )
    assert counter.source == "server"
    assert min(sizes) <= 60 and max(sizes) >= 1400, sizes
    assert median_error is not None and median_error < GOAL_PCT
