"""Each kind's typed timings answer the same neutral questions in their own terms."""

from __future__ import annotations

import pytest

from client.backends.kinds.llamacpp.timings import DRAFTS_ACCEPTED, LlamacppTimings
from client.backends.kinds.ollama.timings import OllamaTimings
from client.backends.kinds.vllm.timings import VllmTimings


def test_ollamas_final_line_in_milliseconds() -> None:
    line = {"done": True, "load_duration": 2_000_000, "prompt_eval_duration": 8_000_000}
    timings = OllamaTimings.from_final_line(line | {"eval_count": 5, "prompt_eval_count": 7})
    assert timings.values == {
        "load_duration_ms": 2.0,
        "prompt_eval_duration_ms": 8.0,
        "prompt_eval_count": 7,
        "eval_count": 5,
    }
    assert (timings.output_tokens(), timings.prompt_tokens(), timings.load_ms()) == (5, 7, 2.0)
    assert timings.first_token_ms() == 10.0
    labels = [phase.label for phase in timings.phases()]
    assert labels == ["server: model load", "server: prompt processing"]


def test_llama_cpp_drafts_and_cache() -> None:
    timings = LlamacppTimings(
        {"prompt_n": 3, "cache_n": 40, "prompt_ms": 9.0, "draft_n": 10, "draft_n_accepted": 6}
    )
    assert timings.drafts() == (10, 6) and timings.first_token_ms() == 9.0
    (drafts,) = [p for p in timings.phases() if p.label == DRAFTS_ACCEPTED]
    assert drafts.figures == (("drafted", 10), ("accepted", 6))
    assert LlamacppTimings({"predicted_n": 4}).phases() == ()  # no prompt_ms: no rows


def test_vllm_current_and_older_names_read_the_same() -> None:
    current = VllmTimings(
        {"time_to_first_token_ms": 100.0, "queue_time_ms": 20.0, "generation_time_ms": 300.0}
    )
    older = VllmTimings(
        {
            "arrival_time": 10.0,
            "first_scheduled_time": 10.02,
            "first_token_time": 10.1,
            "time_in_queue": 0.02,
            "last_token_time": 10.4,
        }
    )
    for timings in (current, older):
        assert timings.ttft_ms == pytest.approx(100.0)
        assert timings.queue_ms == pytest.approx(20.0)
        assert timings.prefill_ms == pytest.approx(80.0)
        assert timings.decode_ms == pytest.approx(300.0)
    assert VllmTimings({"tokens_per_second": 5.0}).phases() == ()  # no first token said
