"""ChatStream: one streaming request, its timeline, and its guaranteed cleanup.

    async with backend.chat(request) as stream:
        async for event in stream:
            ...

Events: Started, Token / Usage / ServerTimings ..., then Done or Failed. Errors
never escape as exceptions: they end the stream as Failed with the partial text.
Cancelling the consuming task closes the response at once (so the server stops);
``stream.outcome`` is then Done(reason=cancelled) with the partial text, and the
CancelledError is re-raised, never swallowed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from client.backends.deadline import ReadDeadline
from client.backends.decoders import redirect_refused
from client.backends.errors import (
    BackendUnreachable,
    FirstByteTimeout,
    ProtocolError,
    StreamInterrupted,
    StreamStalled,
    TachyError,
)
from client.backends.reasons import reason_of
from client.backends.transport import read_batches
from client.backends.transport.read_batches import BATCH_SPAN_NS, Resumed, TokenBatch
from client.backends.transport.socket_stream import RECEIVED_NS
from client.core.events import (
    DecodedEvent,
    Done,
    DoneReason,
    Failed,
    Finished,
    Prefill,
    ServerTimings,
    Started,
    StreamEvent,
    Token,
    TokenKind,
    ToolCallArguments,
    ToolCallsRequested,
    ToolCallStarted,
    Usage,
)
from client.core.metrics import RequestMetrics, compute_metrics
from client.core.timeline import RequestTimeline, now_ns
from client.core.tools import ToolCall


class Decoder(Protocol):
    """Pure bytes -> events. Raises TachyError subclasses for errors in the stream."""

    def feed(self, data: bytes) -> list[DecodedEvent]: ...

    def close(self) -> list[DecodedEvent]: ...


@dataclass(slots=True)
class StreamTimeouts:
    first_byte_s: float | None = 60.0  # request written -> first token; None: wait forever
    stall_s: float | None = 15.0  # between tokens


@dataclass(slots=True)
class HttpCall:
    """What to send; the backend builds it, the stream runs it."""

    method: str
    url: str
    json: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)


ErrorMapper = Callable[[httpx.Response, bytes], TachyError]
ERROR_BODY_WAIT_S = 5.0  # reading an HTTP error's body
DRAIN_WAIT_S = 0.05  # reading the end of a finished body, to reuse the connection


class ChatStream:
    def __init__(
        self,
        client: httpx.AsyncClient,
        call: HttpCall,
        decoder: Decoder,
        model: str,
        map_http_error: ErrorMapper,
        timeouts: StreamTimeouts | None = None,
    ) -> None:
        self._client = client
        self._call = call
        self._decoder = decoder
        self._map_http_error = map_http_error
        self.model = model
        self.timeouts = timeouts or StreamTimeouts()
        self.timeline = RequestTimeline()
        self.text_parts: list[str] = []
        self.thinking_parts: list[str] = []
        self.usage: Usage | None = None
        self.server_timings: list[ServerTimings] = []
        self.tool_calls: tuple[ToolCall, ...] = ()  # complete, at the message's end
        self._call_output_ns: int | None = None  # the last tool call fragment's arrival
        self.outcome: Done | Failed | None = None
        self._response: httpx.Response | None = None
        self._deadline = ReadDeadline(self._seconds_left)
        self._wait_from_ns: int | None = None  # the wait for a first byte starts here

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def thinking(self) -> str:
        return "".join(self.thinking_parts)

    def metrics(self) -> RequestMetrics:
        return compute_metrics(self.timeline, self.usage, self.server_timings)

    async def __aenter__(self) -> ChatStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        response, self._response = self._response, None
        if response is not None:
            await response.aclose()
        if self.outcome is None:
            self._finish_cancelled()

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[StreamEvent]:
        try:
            response = await self._send()
            yield Started(self.model, self.timeline.request_written_ns or now_ns())
            async for event in self._read(response):
                yield event
        except asyncio.CancelledError:
            self._finish_cancelled()
            raise
        except TachyError as error:
            yield self._fail(error)
        except httpx.TransportError as error:
            yield self._fail(self._map_transport_error(error))
        except httpx.HTTPError as error:  # e.g. a body that fails its content-encoding
            yield self._fail(ProtocolError(_describe(error)))
        finally:
            await self._close_response()

    async def _send(self) -> httpx.Response:
        self._wait_from_ns = now_ns()  # the connect counts; _trace moves it to the write
        request = self._client.build_request(
            self._call.method,
            self._call.url,
            json=self._call.json,
            headers=self._call.headers,
            extensions={"trace": self._trace},
        )
        try:
            response = await self._with_deadline(self._client.send(request, stream=True))
        except httpx.TransportError as error:
            raise self._map_transport_error(error) from error
        self._response = response
        if self.timeline.request_written_ns is None:
            self.timeline.mark_written()
        if self.timeline.headers_ns is None:
            self.timeline.mark_headers(_arrival_clock(response)())
        if response.status_code >= 400:
            body = await self._read_error_body(response)
            raise self._map_http_error(response, body)
        if response.is_redirect:
            raise redirect_refused(response.status_code, response.headers.get("location", ""))
        return response

    async def _trace(self, name: str, info: dict[str, Any]) -> None:
        # httpcore's trace hook gives the moment the request goes out, rather than the
        # moment we called send(): as its body's write begins (a chat body goes at once).
        # After the write, the stamp could wait for the GIL while a server in this
        # process (the lab, in a thread) already reads the request and starts its clock.
        # The headers are stamped when their bytes arrived (_send), like the body's.
        if name.endswith("send_request_body.started"):
            self.timeline.mark_written()
            # From the write on, the wait counts from it, as the TTFT does: a cascade
            # that fell back at the send's start + 2.5 s gave a TTFT short of 2.5 s + the
            # other model's, by the time the connect took.
            self._wait_from_ns = self.timeline.request_written_ns

    async def _read(self, response: httpx.Response) -> AsyncIterator[StreamEvent]:
        """The body's events, the tokens of one network read handed on as one
        (read_batches.py); a token of a kind not seen just before goes on alone, at once
        (the first token is painted, and a stage stamped, at its own chunk)."""
        chunks = _body_chunks(response)
        arrived = _arrival_clock(response)
        batch = TokenBatch()
        kind: TokenKind | None = None  # of the last token handed on or gathered
        reading: Resumed | None = None
        try:
            while True:
                try:
                    read = read_batches.start(chunks)
                    if isinstance(read, Resumed):
                        reading = read
                        if batch:
                            yield batch.take()  # what the last read brought, before waiting
                        data = await self._with_deadline(reading)
                    else:
                        data = read
                except StopAsyncIteration:
                    break
                except httpx.TransportError as error:
                    raise self._interrupted(error) from error
                at_ns = arrived()
                self.timeline.mark_first_byte(at_ns)
                for event in self._decoder.feed(data):
                    if (out := self._accept(event, at_ns)) is None:
                        continue
                    if type(out) is Token and out.kind is kind:
                        batch.add(out, now_ns())
                        continue
                    if batch:
                        yield batch.take()
                    if type(out) is Token:
                        kind = out.kind
                    yield out
                    if isinstance(out, Done):
                        await _drain(chunks)
                        return
                if batch and now_ns() - batch.since_ns > BATCH_SPAN_NS:
                    yield batch.take()
        except Exception:
            if batch:  # the text that came before the error is handed on first
                yield batch.take()
            raise
        finally:
            if reading is not None and not reading.finished:
                await self._abandon(reading)
        if batch:
            yield batch.take()
        for event in self._decoder.close():
            if (out := self._accept(event, now_ns())) is not None:
                yield out
                if isinstance(out, Done):
                    return
        raise StreamInterrupted("the server closed the stream before it finished")

    async def _abandon(self, reading: Resumed) -> None:
        """A read started and left waiting (the consumer stopped at the batch before it):
        close the connection, so that the read ends, and let it end, bounded."""
        await self._close_response()
        try:
            async with asyncio.timeout(DRAIN_WAIT_S):
                await reading
        except (Exception, TimeoutError):
            pass  # the connection is closed: whatever the read says is moot

    def _accept(self, event: DecodedEvent, at_ns: int) -> StreamEvent | None:
        """`at_ns`: when the bytes that completed the event arrived."""
        if isinstance(event, Token):
            if not event.text:
                return None
            self.timeline.mark_token(event.kind, len(event.text), at_ns)
            parts = self.thinking_parts if event.kind is TokenKind.THINKING else self.text_parts
            parts.append(event.text)
            return event
        if isinstance(event, Usage):
            self.usage = event
            return event
        if isinstance(event, ServerTimings):
            self.server_timings.append(event)
            return event
        if isinstance(event, Prefill):
            self.timeline.mark_prefill(event, at_ns)
            return event
        if isinstance(event, Finished):
            self.timeline.mark_finished(event.reason, at_ns)
            return None
        if isinstance(event, ToolCallStarted | ToolCallArguments | ToolCallsRequested):
            if isinstance(event, ToolCallsRequested):
                self.tool_calls = event.calls
            else:  # not text (no TTFT), but the model is writing: no first-byte timeout
                self._call_output_ns = at_ns
            return event
        self.timeline.mark_done(at_ns)
        self.outcome = Done(event.reason, self.text, self.thinking, self.tool_calls)
        return self.outcome

    async def _with_deadline(self, awaitable: Any) -> Any:
        try:
            return await self._deadline.wait(awaitable)
        except TimeoutError as timeout:
            raise self._timeout_error() from timeout

    def _seconds_left(self) -> float | None:
        """Time left before the first-byte or the stall limit; None: no limit."""
        last_token = _latest(self.timeline.last_token_ns, self._call_output_ns)
        if last_token is None:
            seconds = self.timeouts.first_byte_s
            # From this stream's own write (its send, while it connects): a cascade's
            # fallback keeps the first request's "written" stamp on the shared timeline
            # (TTFT counts from there), but its own wait for a first byte is its own.
            start = self._wait_from_ns or self.timeline.request_written_ns
        else:
            seconds, start = self.timeouts.stall_s, last_token
        if seconds is None or start is None:
            return seconds
        return seconds - (now_ns() - start) / 1e9

    def _timeout_error(self) -> TachyError:
        if _latest(self.timeline.last_token_ns, self._call_output_ns) is None:
            return FirstByteTimeout(self.timeouts.first_byte_s or 0)
        return StreamStalled(self.timeouts.stall_s or 0)

    async def _read_error_body(self, response: httpx.Response, limit: int = 65536) -> bytes:
        body = b""
        try:
            # Bounded: a server that sends an error status and then stalls must not
            # hang the request when no first-byte deadline is set.
            async with asyncio.timeout(ERROR_BODY_WAIT_S):
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) >= limit:
                        break
        except (httpx.TransportError, TimeoutError):
            pass
        return body[:limit]

    def _interrupted(self, error: httpx.TransportError) -> TachyError:
        if isinstance(error, httpx.ReadTimeout):
            return StreamStalled(self.timeouts.stall_s or 0)
        return StreamInterrupted(_describe(error))

    def _map_transport_error(self, error: httpx.TransportError) -> TachyError:
        if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout):
            return BackendUnreachable(str(self._call.url), _describe(error))
        if isinstance(error, httpx.RemoteProtocolError) and self._response is None:
            return ProtocolError(_describe(error))
        if isinstance(error, httpx.TimeoutException):
            return FirstByteTimeout(self.timeouts.first_byte_s or 0)
        return StreamInterrupted(_describe(error))

    def _fail(self, error: TachyError) -> Failed:
        if self.timeline.done_ns is None:
            self.timeline.mark_done()
        self.outcome = Failed(error, self.text, self.thinking)
        return self.outcome

    def _finish_cancelled(self) -> None:
        if self.outcome is None:
            self.timeline.mark_done()
            self.outcome = Done(DoneReason.CANCELLED, self.text, self.thinking)

    async def _close_response(self) -> None:
        self._deadline.cancel()
        response, self._response = self._response, None
        if response is not None:
            await response.aclose()


def _latest(token_ns: int | None, call_ns: int | None) -> int | None:
    # Cheap: the read deadline asks for every chunk.
    if call_ns is None:
        return token_ns
    return call_ns if token_ns is None or call_ns > token_ns else token_ns


def _arrival_clock(response: httpx.Response) -> Callable[[], int]:
    """When the bytes just read arrived, as client/backends/transport/socket_stream.py stamps
    them (the kernel's receive time on Linux, else the loop turn they came in); with
    another transport (a test's httpx.MockTransport), now."""
    stream = response.extensions.get("network_stream")
    if stream is None or stream.get_extra_info(RECEIVED_NS) is None:
        return now_ns
    return lambda: stream.get_extra_info(RECEIVED_NS) or now_ns()


def _body_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body as it arrives. An identity body (what streaming servers send) skips
    httpx's content decoding: one async generator and two calls less per chunk, which
    counts at thousands of chunks a second (tests/perf/test_stream_lag.py)."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity") and not response.is_stream_consumed:
        return response.aiter_raw()
    return response.aiter_bytes()  # also a body already read (httpx.MockTransport's)


async def _drain(chunks: AsyncIterator[bytes], limit: int = 65536) -> None:
    """Read what is left of a finished body (usually just the final empty chunk),
    so the connection goes back to the pool instead of being closed: the next
    request then skips connection set-up. Bounded in time and size."""
    received = 0
    try:
        async with asyncio.timeout(DRAIN_WAIT_S):
            async for chunk in chunks:
                received += len(chunk)
                if received > limit:
                    return
    except (TimeoutError, httpx.TransportError):
        pass


def _describe(error: Exception) -> str:
    return reason_of(error)
