"""TTFT prediction on synthetic data: what it learns; and from the local engine (its
accuracy there is a benchmark: tests/perf/test_prediction_engine.py)."""

from __future__ import annotations

import random

import pytest

from client.backends.kinds.registry import decode_report
from client.core.conversation import ChatMessage
from client.core.metrics import RequestMetrics
from client.core.prediction import ModelState, Prediction, TtftPredictor, tokens_to_process


def ttft_of(tokens: int, overhead: float = 40.0, rate: float = 2000.0) -> float:
    return overhead + tokens / rate * 1000


def test_nothing_learned_nothing_predicted() -> None:
    predictor = TtftPredictor()
    assert predictor.predict(100) is None
    assert predictor.median_error_pct() is None


def test_learns_overhead_and_prefill_rate_exactly_from_clean_data() -> None:
    predictor = TtftPredictor()
    for tokens in (50, 200, 400, 800, 1500):
        predictor.observe(tokens, ttft_of(tokens))
    assert predictor.overhead_ms == pytest.approx(40.0)
    assert predictor.prefill_tokens_per_s == pytest.approx(2000.0)
    prediction = predictor.predict(1000)
    assert prediction is not None and prediction.ttft_ms == pytest.approx(540.0)


def test_noisy_data_stays_within_ten_percent() -> None:
    rng = random.Random(7)
    predictor = TtftPredictor()
    for _ in range(40):
        tokens = rng.randint(50, 1500)
        predictor.observe(tokens, ttft_of(tokens) * rng.uniform(0.95, 1.05))
    for tokens in (60, 700, 1400):
        prediction = predictor.predict(tokens)
        assert prediction is not None
        assert abs(prediction.ttft_ms - ttft_of(tokens)) / ttft_of(tokens) < 0.10


def test_attention_cost_growing_with_the_prompt_is_learned() -> None:
    def curved(tokens: int) -> float:
        return 20.0 + 0.5 * tokens + 0.0001 * tokens**2

    predictor = TtftPredictor()
    for tokens in (50, 700, 1500, 300, 1100):
        predictor.observe(tokens, curved(tokens))
    for tokens in (60, 150, 450, 900, 1400):
        prediction = predictor.predict(tokens)
        assert prediction is not None
        assert prediction.ttft_ms == pytest.approx(curved(tokens), rel=0.02)


def test_one_observation_uses_the_servers_prefill_timing() -> None:
    predictor = TtftPredictor()
    predictor.observe(400, 240.0, server_prompt_ms=200.0, server_prompt_tokens=400)
    # 0.5 ms/token from the server; the other 40 ms is overhead.
    assert predictor.overhead_ms == pytest.approx(40.0)
    prediction = predictor.predict(800)
    assert prediction is not None and prediction.ttft_ms == pytest.approx(440.0)


def test_one_observation_without_server_timings_gives_a_rough_guess() -> None:
    predictor = TtftPredictor()
    predictor.observe(100, 100.0)
    prediction = predictor.predict(100)
    assert prediction is not None and prediction.ttft_ms == pytest.approx(100.0)
    bigger = predictor.predict(300)
    assert bigger is not None and bigger.ttft_ms > 100.0


def test_negative_intercept_is_refit_through_the_origin() -> None:
    predictor = TtftPredictor()
    for tokens, ttft in ((100, 20.0), (200, 60.0), (300, 100.0)):
        predictor.observe(tokens, ttft)
    assert predictor.overhead_ms == 0.0
    prediction = predictor.predict(200)
    assert prediction is not None and prediction.ttft_ms > 0


def test_cold_load_learned_from_a_cold_request() -> None:
    predictor = TtftPredictor()
    for tokens in (100, 500, 1000):
        predictor.observe(tokens, ttft_of(tokens))
    cold = predictor.predict(100, ModelState.COLD)
    assert cold is not None and cold.load_unknown and not cold.includes_load
    assert "after the model loads" in cold.label()
    predictor.observe(100, ttft_of(100) + 2000.0, cold=True)
    assert predictor.load_ms == pytest.approx(2000.0)
    cold = predictor.predict(100, ModelState.COLD)
    assert cold is not None and cold.includes_load
    assert cold.ttft_ms == pytest.approx(ttft_of(100) + 2000.0)
    loading = predictor.predict(100, "loading", load_elapsed_ms=1500.0)
    assert loading is not None and loading.ttft_ms == pytest.approx(ttft_of(100) + 500.0)
    # A cold request does not bend the warm line.
    warm = predictor.predict(100, "warm")
    assert warm is not None and warm.ttft_ms == pytest.approx(ttft_of(100))


def test_what_was_learned_survives_a_restart_through_json() -> None:
    """learned() goes into the settings table as JSON; restore() in the next session
    predicts as the old predictor did, loads included."""
    import json

    old = TtftPredictor()
    for tokens in (50, 700, 1500, 300, 1100):
        old.observe(tokens, 20.0 + 0.5 * tokens + 0.0001 * tokens**2)
    old.observe(100, 2100.0, cold=True)
    new = TtftPredictor()
    assert new.predict(400) is None
    new.restore(json.loads(json.dumps(old.learned())))
    for tokens in (60, 450, 1400):
        for state in (ModelState.WARM, ModelState.COLD):
            before, after = old.predict(tokens, state), new.predict(tokens, state)
            assert before is not None and after is not None
            assert after.ttft_ms == pytest.approx(before.ttft_ms, rel=1e-3)
    assert new.load_ms == pytest.approx(old.load_ms or 0.0, rel=1e-3)


@pytest.mark.parametrize(
    "saved",
    [
        None,
        "warm",
        [],
        {"warm": "x"},
        {"warm": [[1, 2, 3], ["a", 5], [100, -4], [True, 9], [100, float("nan")]]},
        {"loads": [None, "5", -1], "server_prefill": [[0]]},
    ],
)
def test_damaged_saved_samples_are_skipped(saved: object) -> None:
    predictor = TtftPredictor()
    predictor.restore(saved)
    assert predictor.predict(100) is None and predictor.load_ms is None
    predictor.restore({"warm": [[100, 90.0], "junk", [400, 240.0], [900, 490.0]]})
    prediction = predictor.predict(400)
    assert prediction is not None and prediction.ttft_ms == pytest.approx(240.0, rel=0.01)


def test_ollama_load_duration_splits_a_cold_request() -> None:
    predictor = TtftPredictor()
    metrics = RequestMetrics(ttft_ms=3100.0, prompt_tokens=200)
    metrics.server = decode_report(
        {
            "ollama": {
                "load_duration_ms": 3000.0,
                "prompt_eval_duration_ms": 80.0,
                "prompt_eval_count": 200,
            }
        }
    )
    predictor.observe_metrics(metrics)
    assert predictor.load_ms == pytest.approx(3000.0)
    warm = predictor.predict(200)
    assert warm is not None and warm.ttft_ms == pytest.approx(100.0)


def test_llamacpp_timings_and_callers_token_count() -> None:
    predictor = TtftPredictor()
    metrics = RequestMetrics(ttft_ms=150.0, prompt_tokens=None)
    metrics.server = decode_report({"llamacpp": {"prompt_ms": 100.0, "prompt_n": 250}})
    predictor.observe_metrics(metrics, prompt_tokens=250)
    assert predictor.overhead_ms == pytest.approx(50.0)
    predictor.observe_metrics(RequestMetrics(ttft_ms=None), prompt_tokens=10)  # ignored
    assert predictor.overhead_ms == pytest.approx(50.0)


def test_median_error_of_predicted_vs_actual() -> None:
    predictor = TtftPredictor()
    for predicted, actual in ((110.0, 100.0), (80.0, 100.0), (100.0, 100.0)):
        predictor.observe(100, actual, predicted_ms=predicted)
    assert predictor.median_error_pct() == pytest.approx(10.0)
    assert predictor.error_count == 3


def test_labels() -> None:
    assert Prediction(447.0).label() == "≈ 450 ms to first token"
    assert Prediction(3.0).label() == "≈ 10 ms to first token"
    assert Prediction(2345.0).label() == "≈ 2.3 s to first token"


def test_window_follows_a_server_that_got_slower() -> None:
    predictor = TtftPredictor(window=8)
    for tokens in (100, 400, 800, 1200) * 2:
        predictor.observe(tokens, ttft_of(tokens))
    for tokens in (100, 400, 800, 1200) * 2:
        predictor.observe(tokens, ttft_of(tokens, rate=1000.0))
    assert predictor.prefill_tokens_per_s == pytest.approx(1000.0)


def test_tokens_to_process_counts_only_what_the_server_has_not_seen() -> None:
    def count(message: ChatMessage) -> int:
        return len(message.content)

    first = [ChatMessage("system", "ss"), ChatMessage("user", "aaaa")]
    second = [*first, ChatMessage("assistant", "bbb"), ChatMessage("user", "cc")]
    assert tokens_to_process([], first, count) == 6
    assert tokens_to_process(first, second, count) == 5
    cut = [ChatMessage("system", "ss"), ChatMessage("user", "cc")]
    assert tokens_to_process(second, cut, count) == 2
    assert tokens_to_process(second, [ChatMessage("user", "zz"), *second[1:]], count) == 11


# -- the real local engine ------------------------------------------------------

SENTENCES = (
    "The harbour wakes before the town does.",
    "Fishing boats slide out past the old stone wall.",
    "Gulls argue over scraps on the wet planks.",
    "A bell rings twice from the lighthouse at noon.",
    "Nets dry in long rows beside the boat sheds.",
    "The tide leaves ribbons of weed across the sand.",
)


def prompt_of(index: int, sentences: int) -> str:
    # A different opening per prompt: the engine's prompt cache cannot reuse one
    # prompt for the next beyond the chat template.
    body = " ".join(SENTENCES[(index + i) % len(SENTENCES)] for i in range(sentences))
    return f"Report {index * 7919 % 1000}: {body} Summarise this in one line."


@pytest.mark.engine
async def test_the_predictor_learns_from_the_local_engine(local_engine: object) -> None:
    """Three prompts observed, then a longer prompt is predicted to take longer: what
    the app does with its own server. How close the figures come is a benchmark."""
    from client.backends import OpenAICompatBackend
    from client.backends.stream import StreamTimeouts
    from client.core.conversation import ChatRequest, GenerationOptions
    from client.services.planning.tokenize import PromptTokenCounter

    engine: object = local_engine
    backend = OpenAICompatBackend(engine.url)  # type: ignore[attr-defined]
    model = engine.model  # type: ignore[attr-defined]
    counter = PromptTokenCounter.for_backend(backend, model)
    predictor = TtftPredictor()
    try:
        for index, sentences in enumerate((4, 40, 12), start=500):
            message = ChatMessage("user", prompt_of(index, sentences))
            await counter.prepare([message])
            request = ChatRequest(model, [message], options=GenerationOptions(max_tokens=1))
            async with backend.chat(request, StreamTimeouts(300.0, 60.0)) as stream:
                async for _event in stream:
                    pass
            ttft = stream.metrics().ttft_ms
            assert ttft is not None and ttft > 0, stream.outcome
            predictor.observe(counter(message), ttft)
    finally:
        await backend.aclose()
    assert counter.source == "server"
    short, long = predictor.predict(60), predictor.predict(1200)
    assert short is not None and long is not None and 0 < short.ttft_ms < long.ttft_ms
