"""Whatever bytes a server sends, a decoder answers events or a TachyError, never
another exception (which would surface as a traceback)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from client.backends.apis.ollama.decoder import OllamaDecoder
from client.backends.apis.openai.decoder import OpenAIStreamDecoder
from client.backends.errors import TachyError
from client.core.events import Done, Finished, ServerTimings, Token, Usage

SSE_SAMPLE = (
    b'data: {"choices":[{"delta":{"role":"assistant"}}]}\n\n'
    b'data: {"choices":[{"delta":{"content":"Hi \\ud83d\\ude80"},"finish_reason":null}]}\n\n'
    b'data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2},'
    b'"timings":{"predicted_n":2}}\n\n'
    b"data: [DONE]\n\n"
)
NDJSON_SAMPLE = (
    b'{"message":{"content":"Hi","thinking":"hm"},"done":false}\n'
    b'{"done":true,"done_reason":"stop","eval_count":2,"eval_duration":1000}\n'
)
DECODED = (Token, Usage, ServerTimings, Finished, Done)


def check(decoder: OllamaDecoder | OpenAIStreamDecoder, data: bytes, cuts: list[int]) -> None:
    events = []
    start = 0
    try:
        for cut in [*sorted(c for c in cuts if c < len(data)), len(data)]:
            events += decoder.feed(data[start:cut])
            start = cut
        events += decoder.close()
    except TachyError:
        pass
    assert all(isinstance(e, DECODED) for e in events)
    for event in events:
        if isinstance(event, Token):
            event.text.encode("utf-8")  # printable: no lone surrogates


def mutate(sample: bytes, edits: list[tuple[int, int]]) -> bytes:
    data = bytearray(sample)
    for position, value in edits:
        data[position % len(data)] = value
    return bytes(data)


edits = st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6)
cuts = st.lists(st.integers(1, 400), max_size=6)


@settings(max_examples=50, deadline=None)
@given(data=st.binary(max_size=300), cuts=cuts)
def test_random_bytes(data: bytes, cuts: list[int]) -> None:
    check(OpenAIStreamDecoder(), data, cuts)
    check(OllamaDecoder(), data, cuts)


@settings(max_examples=50, deadline=None)
@given(edits=edits, cuts=cuts)
def test_damaged_sse_stream(edits: list[tuple[int, int]], cuts: list[int]) -> None:
    check(OpenAIStreamDecoder(), mutate(SSE_SAMPLE, edits), cuts)


@settings(max_examples=50, deadline=None)
@given(edits=edits, cuts=cuts)
def test_damaged_ndjson_stream(edits: list[tuple[int, int]], cuts: list[int]) -> None:
    check(OllamaDecoder(), mutate(NDJSON_SAMPLE, edits), cuts)
