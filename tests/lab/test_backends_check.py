"""The lab and the backends check each other: Tachy's own clients against the simulator."""

from __future__ import annotations

import pytest

from client.backends.apis.ollama.backend import OllamaBackend
from client.backends.apis.openai.backend import OpenAICompatBackend
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Done, DoneReason, Failed, Token, TokenKind
from client.lab import LabServer, scenario_from_dict

BACKENDS = pytest.mark.parametrize(
    "make", [OllamaBackend, OpenAICompatBackend], ids=["ollama", "openai"]
)


def request(**options: object) -> ChatRequest:
    return ChatRequest(
        "tachy-lab",
        [ChatMessage("user", "Why is the sky blue?")],
        GenerationOptions(**options),  # type: ignore[arg-type]
    )


async def run(backend, chat: ChatRequest) -> tuple[list, object]:  # type: ignore[no-untyped-def]
    events = []
    async with backend.chat(chat) as stream:
        async for event in stream:
            events.append(event)
    return events, stream


@BACKENDS
async def test_a_scripted_reply_arrives_whole_with_its_metrics(start_lab, make) -> None:
    server, _ = await start_lab(ttft=60, tpot_ms=5, output_tokens=10, reasoning_tokens=3)
    backend = make(server.url)
    try:
        events, stream = await run(backend, request(seed=4))
    finally:
        await backend.aclose()
    done = events[-1]
    assert isinstance(done, Done) and done.reason == DoneReason.STOP
    tokens = [e for e in events if isinstance(e, Token)]
    if make is OpenAICompatBackend or any(t.kind == TokenKind.THINKING for t in tokens):
        assert [t.kind for t in tokens[:3]] == [TokenKind.THINKING] * 3
    assert len([t for t in tokens if t.kind == TokenKind.ANSWER]) == 10
    metrics = stream.metrics()
    # At least the lab's 60 ms, and its last chunk at least 9 x 5 ms after the first (a
    # busy machine's timers only come late; how close they come is
    # tests/perf/test_lab_timing.py's). No floor on TPOT: a first token read late on a
    # busy machine shortens the span it is measured over, below the lab's 5 ms.
    assert metrics.ttft_ms is not None and metrics.ttft_ms >= 55
    assert metrics.e2el_ms is not None and metrics.e2el_ms >= 55 + 9 * 5
    assert metrics.tpot_ms is not None and metrics.tpot_ms > 0


@BACKENDS
@pytest.mark.parametrize("fault", [
    {"kind": "error_mid_stream", "after_tokens": 3},
    {"kind": "reset", "after_tokens": 3},
    {"kind": "utf8_cut"},
    {"kind": "queue_full"},
    {"kind": "html_error"},
])  # fmt: skip
async def test_faults_end_as_failed_with_the_partial_text(start_lab, make, fault) -> None:
    server, _ = await start_lab(fault=fault)
    backend = make(server.url)
    try:
        events, _ = await run(backend, request())
    finally:
        await backend.aclose()
    failed = events[-1]
    assert isinstance(failed, Failed), events[-3:]
    tokens = "".join(e.text for e in events if isinstance(e, Token))
    assert failed.partial_text == tokens
    if fault.get("after_tokens") == 3:
        assert len([e for e in events if isinstance(e, Token)]) == 3


async def test_the_ollama_backend_reads_tags_ps_and_show(lab) -> None:
    server, _ = lab
    backend = OllamaBackend(server.url)
    try:
        (model,) = await backend.list_models()
        assert model.name == "tachy-lab:latest" and model.loaded is True and model.expires_at
        details = await backend.show("tachy-lab")
        assert details.context_length == 8192 and details.capabilities == ("completion",)
        assert await backend.version() == "0.12.6"
    finally:
        await backend.aclose()


async def test_the_openai_backend_reads_the_context_window(lab) -> None:
    server, _ = lab
    backend = OpenAICompatBackend(server.url)
    try:
        (model,) = await backend.list_models()
        assert model.name == "tachy-lab:latest" and model.context_length == 8192
    finally:
        await backend.aclose()


@pytest.mark.parametrize(
    ("preset", "low", "high"),
    [("instant", 0, 100), ("fast", 100, 300), ("typing", 300, 1000), ("slow", 1000, 4000)],
)
async def test_tier_presets_wait_their_tier_from_the_first_reply(preset, low, high) -> None:
    """At least the tier's floor (sleeps only come late); that the first reply lands
    inside its tier is a benchmark (tests/perf/test_lab_timing.py)."""
    server = LabServer(scenario_from_dict({"base": preset, "output_tokens": 3}))
    backend = OllamaBackend(await server.start())
    try:
        _, stream = await run(backend, request())  # the first reply, nothing warmed up
    finally:
        await backend.aclose()
        await server.stop()
    assert stream.metrics().ttft_ms >= low


@BACKENDS
async def test_tpot_spans_the_counted_end_token_on_both_apis(start_lab, make) -> None:
    """As the real servers do (end_token_counted), the lab counts a stop reply's
    end-of-sequence token a TPOT after the text: vLLM as a chunk with content "",
    Ollama in eval_count with its final line. Tachy ends e2el there, so TPOT spans all
    n - 1 gaps; ending at the last text would read 7/8 of the lab's 40 ms. How long the
    gaps read is the lab's timing (tests/perf/test_lab_timing.py): here a first token or
    a last text read late on a busy machine narrows them (each chunk's deadline is
    absolute, so a late loop writes the due chunks together)."""
    server, _ = await start_lab(ttft=20, tpot_ms=40, output_tokens=8, end_token_counted=True)
    backend = make(server.url)
    try:
        _, stream = await run(backend, request(seed=4))
    finally:
        await backend.aclose()
    metrics, timeline = stream.metrics(), stream.timeline
    assert metrics.output_tokens == metrics.chunks + 1 == 9 and not metrics.output_tokens_estimated
    assert timeline.finished_ns is not None and timeline.last_token_ns is not None
    # the final line / chunk comes after the text, and is due 8 TPOTs after the first
    # token (timers only come late, so that is a floor under load too)
    assert timeline.finished_ns > timeline.last_token_ns
    written = timeline.request_written_ns
    assert written is not None and metrics.e2el_ms == (timeline.finished_ns - written) / 1e6
    assert metrics.e2el_ms >= 20 + 8 * 40 - 5
    # TPOT spans all 8 gaps, to the counted end token
    assert metrics.ttft_ms is not None and metrics.tpot_ms is not None
    assert metrics.tpot_ms == pytest.approx((metrics.e2el_ms - metrics.ttft_ms) / 8)
