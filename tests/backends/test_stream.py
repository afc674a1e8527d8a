"""ChatStream through the OpenAI backend and httpx.MockTransport: order, errors,
deadlines, cancellation and the timeline."""

from __future__ import annotations

import asyncio
import gzip

import httpx
import pytest

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.errors import (
    AuthenticationFailed,
    BackendUnreachable,
    FirstByteTimeout,
    ModelNotFound,
    ProtocolError,
    ServerError,
    StreamInterrupted,
    StreamStalled,
)
from client.backends.stream import ChatStream, StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest
from client.core.events import Done, DoneReason, Failed, Started, StreamEvent, Token, Usage
from tests.backends.fakes import (
    Recorder,
    ScriptedBody,
    Step,
    cancel_at_text,
    sse,
    sse_delta,
    streaming,
)

ROLE = sse_delta(role="assistant")
DONE = sse("[DONE]")
USAGE = sse({"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 2}})
REQUEST = ChatRequest("m", [ChatMessage("user", "hi")])


async def run(stream: ChatStream) -> list[StreamEvent]:
    async with stream:
        return [event async for event in stream]


def backend(recorder: Recorder) -> OpenAICompatBackend:
    return OpenAICompatBackend("http://server:8000", client=recorder.client())


async def test_started_tokens_usage_done_in_order() -> None:
    response, _ = streaming([ROLE, sse_delta("Hel"), sse_delta("lo", "stop"), USAGE, DONE])
    stream = backend(Recorder([response])).chat(REQUEST)
    events = await run(stream)
    assert isinstance(events[0], Started) and events[0].model == "m"
    assert events[1:] == [Token("Hel"), Token("lo"), Usage(4, 2), Done(DoneReason.STOP, "Hello")]
    assert stream.outcome == Done(DoneReason.STOP, "Hello")
    metrics = stream.metrics()
    assert metrics.output_tokens == 2 and not metrics.output_tokens_estimated


async def test_error_event_after_text_fails_with_the_partial_text() -> None:
    error = sse({"error": {"message": "KV cache full"}})
    response, _ = streaming([ROLE, sse_delta("par"), sse_delta("tial"), error, DONE])
    events = await run(backend(Recorder([response])).chat(REQUEST))
    failed = events[-1]
    assert isinstance(failed, Failed) and isinstance(failed.error, ServerError)
    assert failed.partial_text == "partial" and "KV cache full" in failed.message


async def test_body_ending_early_is_interrupted_with_partial_text() -> None:
    response, body = streaming([ROLE, sse_delta("half")])
    events = await run(backend(Recorder([response])).chat(REQUEST))
    failed = events[-1]
    assert isinstance(failed, Failed) and isinstance(failed.error, StreamInterrupted)
    assert failed.partial_text == "half" and body.closed


async def test_connection_reset_mid_stream_is_interrupted() -> None:
    response, _ = streaming([ROLE, sse_delta("half"), httpx.ReadError("connection reset")])
    events = await run(backend(Recorder([response])).chat(REQUEST))
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, StreamInterrupted)
    assert events[-1].partial_text == "half"


async def test_stall_between_tokens() -> None:
    hang = asyncio.Event()  # never set
    response, body = streaming([ROLE, sse_delta("first"), hang])
    stream = backend(Recorder([response])).chat(REQUEST, StreamTimeouts(5.0, stall_s=0.2))
    events = await asyncio.wait_for(run(stream), 60)
    failed = events[-1]
    assert isinstance(failed, Failed) and isinstance(failed.error, StreamStalled)
    assert failed.partial_text == "first" and body.closed


async def test_first_byte_timeout_while_body_hangs() -> None:
    response, body = streaming([ROLE, asyncio.Event()])
    stream = backend(Recorder([response])).chat(REQUEST, StreamTimeouts(first_byte_s=0.2))
    events = await asyncio.wait_for(run(stream), 60)
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, FirstByteTimeout)
    assert body.closed


async def test_first_byte_timeout_while_headers_never_come() -> None:
    async def no_headers() -> httpx.Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    stream = backend(Recorder([no_headers])).chat(REQUEST, StreamTimeouts(first_byte_s=0.2))
    events = await asyncio.wait_for(run(stream), 60)
    assert len(events) == 1 and isinstance(events[0], Failed)
    assert isinstance(events[0].error, FirstByteTimeout)


async def test_cancel_keeps_partial_text_and_closes_the_response() -> None:
    hang = asyncio.Event()
    response, body = streaming([ROLE, sse_delta("partial "), sse_delta("text"), hang])
    stream = backend(Recorder([response])).chat(REQUEST, StreamTimeouts(None, None))
    await cancel_at_text(stream, "partial text")
    assert stream.outcome == Done(DoneReason.CANCELLED, "partial text")
    assert body.closed
    assert stream.timeline.done_ns is not None


async def test_ttft_counts_first_text_not_the_role_chunk() -> None:
    response, _ = streaming([ROLE, 0.15, sse_delta(""), sse_delta("a"), sse_delta("b"), DONE])
    stream = backend(Recorder([response])).chat(REQUEST)
    await run(stream)
    metrics = stream.metrics()
    assert metrics.ttft_ms is not None and metrics.ttft_ms >= 140
    assert metrics.headers_ms is not None and metrics.headers_ms < metrics.ttft_ms
    assert metrics.chunks == 2 and metrics.output_tokens == 2 and metrics.output_tokens_estimated
    assert stream.timeline.first_byte_ns < stream.timeline.first_token_ns


@pytest.mark.parametrize(
    ("status", "body", "error_type", "words"),
    [
        (404, b'{"error":{"message":"The model `m` does not exist."}}', ModelNotFound, "no model"),
        (401, b'{"error":{"message":"bad key"}}', AuthenticationFailed, "bad key"),
        (500, b'{"error":"engine crashed"}', ServerError, "engine crashed"),
        (502, b"<html><title>Bad Gateway</title><p>nginx</p></html>", ServerError, "Bad Gateway"),
    ],
)
async def test_http_errors_before_the_stream(
    status: int, body: bytes, error_type: type, words: str
) -> None:
    response, _ = streaming([body], status=status, content_type="application/json")
    events = await run(backend(Recorder([response])).chat(REQUEST))
    assert len(events) == 1 and isinstance(events[0], Failed)
    assert type(events[0].error) is error_type and words in events[0].message
    assert "<" not in events[0].message


async def test_connect_error_is_unreachable() -> None:
    recorder = Recorder([httpx.ConnectError("All connection attempts failed")])
    events = await run(backend(recorder).chat(REQUEST))
    assert isinstance(events[0], Failed) and isinstance(events[0].error, BackendUnreachable)
    assert "server:8000" in events[0].message


async def test_error_status_with_a_stalled_body_does_not_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("client.backends.stream.ERROR_BODY_WAIT_S", 0.2)
    response, _ = streaming([b'{"error": "par', asyncio.Event()], status=503)
    stream = backend(Recorder([response])).chat(REQUEST, StreamTimeouts(None, None))
    events = await asyncio.wait_for(run(stream), 60)
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, ServerError)
    assert events[-1].error.status == 503


async def test_body_that_fails_its_content_encoding_is_a_protocol_error() -> None:
    headers = {"content-encoding": "gzip", "content-type": "text/event-stream"}
    response = httpx.Response(200, headers=headers, stream=ScriptedBody([b"this is not gzip"]))
    events = await run(backend(Recorder([response])).chat(REQUEST))
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, ProtocolError)


async def test_a_gzip_encoded_stream_is_decoded_and_an_identity_one_read_as_sent() -> None:
    """Identity bodies are read raw (the hot path skips httpx's content decoding);
    an encoded one still goes through it, split anywhere."""
    body = gzip.compress(ROLE + sse_delta("Hel") + sse_delta("lo", "stop") + DONE)
    headers = {"content-encoding": "gzip", "content-type": "text/event-stream"}
    steps: list[Step] = [body[:7], body[7:20], body[20:]]
    response = httpx.Response(200, headers=headers, stream=ScriptedBody(steps))
    events = await run(backend(Recorder([response])).chat(REQUEST))
    assert [e.text for e in events if isinstance(e, Token)] == ["Hel", "lo"]
    assert events[-1] == Done(DoneReason.STOP, "Hello")
    plain, _ = streaming([ROLE, sse_delta("Hel"), sse_delta("lo", "stop"), DONE])
    events = await run(backend(Recorder([plain])).chat(REQUEST))
    assert events[-1] == Done(DoneReason.STOP, "Hello")


async def test_finish_reason_then_end_of_body_without_done_marker_is_done() -> None:
    response, _ = streaming([ROLE, sse_delta("a"), sse_delta(None, "length")])
    stream = backend(Recorder([response])).chat(REQUEST)
    events = await run(stream)
    assert events[-1] == Done(DoneReason.LENGTH, "a")
