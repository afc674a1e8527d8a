"""Every error class and the cancellation through a real HTTP server on loopback."""

from __future__ import annotations

import asyncio
import socket

import pytest

from client.backends import backend_for
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
from client.core.events import Done, DoneReason, Failed, Token
from tests.backends.fakes import cancel_at_text
from tests.backends.live_server import LiveServer, Script

REQUEST = ChatRequest("fake-model", [ChatMessage("user", "hi")])
FAST = StreamTimeouts(first_byte_s=0.3, stall_s=0.3)
# Error-mapping tests are not about timing: a loaded CI machine must not turn them into timeouts.
PATIENT = StreamTimeouts(first_byte_s=30, stall_s=30)
STALL_ONLY = StreamTimeouts(first_byte_s=30, stall_s=0.3)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def events_of(script: Script, timeouts: StreamTimeouts = PATIENT) -> tuple[ChatStream, list]:
    with LiveServer(script) as server:
        backend = backend_for(server.url, script.api)
        try:
            stream = backend.chat(REQUEST, timeouts)
            async with stream:
                events = [event async for event in stream]
        finally:
            await backend.aclose()
    return stream, events


@pytest.mark.parametrize("api", ["openai", "ollama"])
async def test_whole_answer_and_metrics(api: str) -> None:
    stream, _ = await events_of(Script(api=api, tokens=["a", "b", "c"], delay_s=0.01))
    assert stream.outcome == Done(DoneReason.STOP, "abc")
    metrics = stream.metrics()
    assert metrics.output_tokens == 3 and not metrics.output_tokens_estimated
    assert metrics.ttft_ms is not None and metrics.e2el_ms is not None
    assert 0 < metrics.ttft_ms <= metrics.e2el_ms
    assert metrics.tpot_ms is not None and metrics.tpot_ms > 5  # the 10 ms gaps


async def test_unreachable() -> None:
    backend = backend_for(f"http://127.0.0.1:{closed_port()}", "openai")
    stream = backend.chat(REQUEST, FAST)
    async with stream:
        events = [e async for e in stream]
    await backend.aclose()
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, BackendUnreachable)


async def test_first_byte_timeout_closes_the_connection() -> None:
    with LiveServer(Script(hang_after=0)) as server:
        backend = backend_for(server.url, "openai")
        stream = backend.chat(REQUEST, FAST)
        async with stream:
            events = [e async for e in stream]
        await backend.aclose()
        assert isinstance(events[-1], Failed) and isinstance(events[-1].error, FirstByteTimeout)
        assert await asyncio.to_thread(server.disconnected.wait, 2)


async def test_stall_keeps_partial_text() -> None:
    _, events = await events_of(Script(tokens=["one ", "two"], hang_after=1), STALL_ONLY)
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, StreamStalled)
    assert events[-1].partial_text == "one "


@pytest.mark.parametrize("api", ["openai", "ollama"])
async def test_connection_reset_mid_stream(api: str) -> None:
    _, events = await events_of(Script(api=api, tokens=["one ", "two"], reset_after=1))
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, StreamInterrupted)
    assert events[-1].partial_text == "one "


@pytest.mark.parametrize(
    ("status", "body", "content_type", "error_type", "words"),
    [
        (500, b'{"error":"CUDA error"}', "application/json", ServerError, "CUDA error"),
        (
            404,
            b'{"error":{"message":"model fake-model not found"}}',
            "application/json",
            ModelNotFound,
            "fake-model",
        ),
        (
            401,
            b'{"error":{"message":"Invalid key"}}',
            "application/json",
            AuthenticationFailed,
            "Invalid key",
        ),
        (
            502,
            b"<html><head><title>502 Bad Gateway</title></head></html>",
            "text/html",
            ServerError,
            "Bad Gateway",
        ),
        (
            200,
            b"<!doctype html><html><body>login</body></html>",
            "text/html",
            ProtocolError,
            "HTML",
        ),
        (200, b"not an event stream\n", "text/plain", ProtocolError, "server-sent event"),
    ],
)
async def test_error_answers(
    status: int, body: bytes, content_type: str, error_type: type, words: str
) -> None:
    script = Script(status=status, body=body, content_type=content_type)
    _, events = await events_of(script)
    assert isinstance(events[-1], Failed) and type(events[-1].error) is error_type
    assert not any(isinstance(e, Token) for e in events)
    assert words in events[-1].message and "<" not in events[-1].message


async def test_cancel_closes_the_connection_and_keeps_text() -> None:
    with LiveServer(Script(tokens=["a", "b", "c", "d"], hang_after=2)) as server:
        backend = backend_for(server.url, "openai")
        stream = backend.chat(REQUEST, StreamTimeouts(None, None))
        await cancel_at_text(stream, "ab")
        assert stream.outcome == Done(DoneReason.CANCELLED, "ab")
        assert await asyncio.to_thread(server.disconnected.wait, 2)
        await backend.aclose()


async def test_request_reaches_the_server_as_sent() -> None:
    with LiveServer(Script(tokens=["x"])) as server:
        backend = backend_for(server.url + "/v1", "openai", api_key="secret")
        async with backend.chat(REQUEST) as stream:
            [e async for e in stream]
        await backend.aclose()
    assert server.requests[0]["stream_options"] == {"include_usage": True}
    assert server.headers[0]["Authorization"] == "Bearer secret"


@pytest.mark.parametrize("api", ["openai", "ollama"])
async def test_a_finished_answer_leaves_the_connection_reusable(api: str) -> None:
    with LiveServer(Script(api=api, tokens=["x"])) as server:
        backend = backend_for(server.url, api)
        for _ in range(3):
            async with backend.chat(REQUEST) as stream:
                [e async for e in stream]
            assert isinstance(stream.outcome, Done)
        await backend.aclose()
    assert len(set(server.peers)) == 1  # one connection served all three


@pytest.mark.parametrize("api", ["openai", "ollama"])
async def test_token_times_are_when_their_bytes_arrived_not_when_they_were_read(
    api: str,
) -> None:
    """A reader that comes late (a window busy painting, 50 streams at once) still stamps
    each chunk with the time it arrived: the gaps are the server's 80 ms, where stamps
    taken as the late reader parses them would be a few microseconds apart."""
    with LiveServer(Script(api=api, tokens=["a", "b", "c"], delay_s=0.08)) as server:
        backend = backend_for(server.url, api)
        try:
            stream = backend.chat(REQUEST, PATIENT)
            async with stream:
                events = aiter(stream)
                await anext(events)  # Started: the headers are in, no token yet
                await asyncio.sleep(0.6)  # meanwhile every token arrives, unread
                rest = [event async for event in events]
        finally:
            await backend.aclose()
    assert "".join(event.text for event in rest if isinstance(event, Token)) == "abc"
    gaps = stream.metrics().itl_ms
    assert len(gaps) == 2 and min(gaps) > 40, gaps
