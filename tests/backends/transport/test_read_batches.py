"""ChatStream hands on the tokens of one network read as one Token (read_batches.py),
while the timeline keeps every chunk's own stamp."""

from __future__ import annotations

import asyncio
import warnings

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.core.events import Done, DoneReason, Token, TokenKind
from tests.backends.fakes import Recorder, sse, sse_delta, streaming
from tests.backends.test_stream import REQUEST, ROLE, run

DONE = sse("[DONE]")


def thinking(text: str) -> bytes:
    return sse({"choices": [{"index": 0, "delta": {"reasoning_content": text}}]})


def backend(recorder: Recorder) -> OpenAICompatBackend:
    return OpenAICompatBackend("http://server:8000", client=recorder.client())


async def test_chunks_read_together_come_as_one_token_the_first_alone() -> None:
    # Bytes steps are there at once (one read); a sleep makes the next read wait.
    steps = [ROLE, sse_delta("a"), sse_delta("b"), sse_delta("c"), 0.02]
    steps += [sse_delta("d"), sse_delta("e", "stop"), DONE]
    response, _ = streaming(steps)
    stream = backend(Recorder([response])).chat(REQUEST)
    events = await run(stream)
    assert [e.text for e in events if isinstance(e, Token)] == ["a", "bc", "de"]
    assert events[-1] == Done(DoneReason.STOP, "abcde")
    stamps = stream.timeline.tokens
    assert [s.chars for s in stamps] == [1, 1, 1, 1, 1]  # every chunk stamped on its own
    assert stamps[3].at_ns - stamps[2].at_ns >= 15_000_000  # the wait between the reads
    assert stream.metrics().output_tokens == 5


async def test_a_new_kind_goes_on_alone_at_once() -> None:
    steps = [ROLE, thinking("t1"), thinking("t2"), sse_delta("a1"), sse_delta("a2", "stop"), DONE]
    response, _ = streaming(steps)
    events = await run(backend(Recorder([response])).chat(REQUEST))
    tokens = [(e.kind, e.text) for e in events if isinstance(e, Token)]
    assert tokens == [
        (TokenKind.THINKING, "t1"),
        (TokenKind.THINKING, "t2"),
        (TokenKind.ANSWER, "a1"),
        (TokenKind.ANSWER, "a2"),
    ]


async def test_the_text_before_a_broken_chunk_is_handed_on_before_the_failure() -> None:
    response, _ = streaming(
        [ROLE, sse_delta("a"), sse_delta("b"), sse_delta("c"), b"data: {oops\n\n"]
    )
    events = await run(backend(Recorder([response])).chat(REQUEST))
    assert "".join(e.text for e in events if isinstance(e, Token)) == "abc"
    assert events[-1].partial_text == "abc"  # type: ignore[union-attr]


async def test_stopping_at_a_batch_while_the_next_read_waits_closes_the_body() -> None:
    never = asyncio.Event()
    response, body = streaming([ROLE, sse_delta("a"), sse_delta("b"), sse_delta("c"), never])
    stream = backend(Recorder([response])).chat(REQUEST)
    seen: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        async with stream:
            async for event in stream:
                if isinstance(event, Token):
                    seen.append(event.text)
                    if event.text == "bc":  # handed on before the read that waits
                        break
        await asyncio.sleep(0.1)  # the abandoned read is ended within its bound
    assert seen == ["a", "bc"] and body.closed
    assert stream.outcome == Done(DoneReason.CANCELLED, "abc")
