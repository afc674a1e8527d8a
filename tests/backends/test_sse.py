from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.backends.apis.openai.decoder import OpenAIStreamDecoder
from client.backends.errors import ModelNotFound, ProtocolError, ServerError
from client.backends.kinds.registry import timings_of
from client.core.events import (
    Done,
    DoneReason,
    Finished,
    Token,
    TokenKind,
    Usage,
)
from tests.backends.chunking import feed_in_pieces, merged_text, same_for_every_chunking

STOPPED = Finished(DoneReason.STOP)


def event(obj: dict | str, newline: bytes = b"\n") -> bytes:
    data = obj if isinstance(obj, str) else json.dumps(obj)
    return b"data: " + data.encode() + newline + newline


def delta(content: str | None = None, finish: str | None = None, **extra: str) -> bytes:
    d: dict = dict(extra)
    if content is not None:
        d["content"] = content
    return event(
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": d, "finish_reason": finish}],
        }
    )


ROLE = delta(role="assistant") + delta("", role="assistant")
USAGE = event(
    {
        "id": "c1",
        "choices": [],
        "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11},
    }
)
DONE = event("[DONE]")


def test_role_only_and_empty_chunks_are_not_tokens() -> None:
    data = ROLE + delta("Hi") + delta(" there") + delta(None, "stop") + USAGE + DONE
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert events == [Token("Hi"), Token(" there"), STOPPED, Usage(9, 2), Done(DoneReason.STOP)]


def test_done_waits_for_the_usage_chunk_after_finish_reason() -> None:
    decoder = OpenAIStreamDecoder()
    assert decoder.feed(delta("a") + delta(None, "length")) == [
        Token("a"),
        Finished(DoneReason.LENGTH),
    ]
    assert decoder.feed(USAGE + DONE) == [Usage(9, 2), Done(DoneReason.LENGTH)]


def test_finish_reason_without_done_marker_counts_as_done_at_close() -> None:
    events = feed_in_pieces(OpenAIStreamDecoder(), delta("a") + delta(None, "stop"), [4])
    assert events == [Token("a"), STOPPED, Done(DoneReason.STOP)]


def test_neither_finish_reason_nor_done_marker_leaves_no_done() -> None:
    events = feed_in_pieces(OpenAIStreamDecoder(), ROLE + delta("a"), [10])
    assert events == [Token("a")]


def test_comment_pings_and_crlf() -> None:
    data = (
        b": ping\r\n\r\n"
        + delta("a").replace(b"\n", b"\r\n")
        + b":keep-alive\r\n\r\n"
        + delta("b", "stop").replace(b"\n", b"\r\n")
        + b"data: [DONE]\r\n\r\n"
    )
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert events == [Token("a"), Token("b"), STOPPED, Done(DoneReason.STOP)]


def test_data_without_space_and_event_and_id_fields() -> None:
    data = b'id: 1\nevent: message\ndata:{"choices":[{"delta":{"content":"x"}}]}\n\n' + DONE
    assert feed_in_pieces(OpenAIStreamDecoder(), data, []) == [Token("x"), Done(DoneReason.STOP)]


def test_multi_line_data_is_joined() -> None:
    data = b'data: {"choices":\ndata: [{"delta":{"content":"x"}}]}\n\n' + DONE
    assert feed_in_pieces(OpenAIStreamDecoder(), data, [])[0] == Token("x")


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_deltas_are_thinking_tokens(field: str) -> None:
    data = ROLE + delta(None, **{field: "think"}) + delta("answer") + DONE
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert events[:2] == [Token("think", TokenKind.THINKING), Token("answer")]


def test_llamacpp_timings_and_vllm_metrics() -> None:
    timings = {
        "prompt_n": 5,
        "prompt_ms": 12.5,
        "predicted_n": 3,
        "predicted_ms": 40.0,
        "predicted_per_second": 75.0,
        "cache_n": 0,
    }
    metrics = {"time_to_first_token_ms": 85.2, "queue_time_ms": 1.5, "tokens_per_second": 99.0}
    last = {"choices": [{"delta": {}, "finish_reason": "stop"}], "timings": timings}
    data = delta("a") + event(last) + event({"choices": [], "metrics": metrics}) + DONE
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert events[1:3] == [STOPPED, timings_of("llamacpp", timings)]
    assert events[3] == timings_of("vllm", metrics)
    assert events[4] == Done(DoneReason.STOP)


def test_other_finish_reasons() -> None:
    events = feed_in_pieces(OpenAIStreamDecoder(), delta("a", "content_filter") + DONE, [])
    assert events[-1] == Done(DoneReason.OTHER)


def test_emoji_and_chinese_split_inside_characters() -> None:
    text = "速度 🚀 ok"
    data = ROLE + b"".join(delta(ch) for ch in text) + DONE
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert merged_text(events) == text


def test_raw_utf8_in_json_split_everywhere() -> None:
    data = b'data: {"choices":[{"delta":{"content":"\xe4\xbd\xa0\xf0\x9f\x98\x80"}}]}\n\n' + DONE
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert events[0] == Token("你😀")


def test_surrogate_escapes() -> None:
    data = b'data: {"choices":[{"delta":{"content":"\\ud83d\\ude80!"}}]}\n\n' + DONE
    assert feed_in_pieces(OpenAIStreamDecoder(), data, [30])[0] == Token("🚀!")


def test_error_event_before_any_text() -> None:
    data = event({"error": {"message": "context too long", "type": "BadRequest", "code": 400}})
    with pytest.raises(ServerError) as caught:
        feed_in_pieces(OpenAIStreamDecoder(), data + DONE, [3])
    assert caught.value.server_message == "context too long"


def test_error_event_inside_the_stream() -> None:
    decoder = OpenAIStreamDecoder()
    assert decoder.feed(ROLE + delta("part")) == [Token("part")]
    with pytest.raises(ServerError, match="engine died"):
        decoder.feed(event({"error": {"message": "engine died"}}) + DONE)


def test_error_event_type_with_string_error() -> None:
    with pytest.raises(ServerError, match="boom"):
        OpenAIStreamDecoder().feed(b'event: error\ndata: {"error": "boom"}\n\n')


def test_model_not_found_in_stream() -> None:
    with pytest.raises(ModelNotFound):
        OpenAIStreamDecoder("x").feed(
            event({"error": {"message": "The model `x` does not exist."}})
        )


def test_non_json_data_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="not JSON"):
        OpenAIStreamDecoder().feed(b"data: hello\n\n")


def test_html_body_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="HTML"):
        OpenAIStreamDecoder().feed(b"<html><head><title>502</title></head></html>\n")


def test_plain_json_error_body_with_status_200() -> None:
    with pytest.raises(ServerError, match="no slots"):
        OpenAIStreamDecoder().feed(b'{"error": {"message": "no slots"}}\n')


def test_plain_json_body_is_not_an_event_stream() -> None:
    with pytest.raises(ProtocolError, match="plain JSON"):
        OpenAIStreamDecoder().feed(b'{"choices": []}\n')


def test_garbage_line_is_broken_sse() -> None:
    with pytest.raises(ProtocolError, match="not a server-sent event"):
        OpenAIStreamDecoder().feed(b"hello world\n")


def test_oversize_event_line() -> None:
    decoder = OpenAIStreamDecoder(line_limit=4096)
    decoder.feed(b'data: {"choices":[{"delta":{"content":"')
    with pytest.raises(ProtocolError, match="longer than"):
        for _ in range(10):
            decoder.feed(b"y" * 1024)


def test_nothing_after_done_is_read() -> None:
    events = feed_in_pieces(OpenAIStreamDecoder(), delta("a") + DONE + b"garbage\n", [])
    assert events == [Token("a"), Done(DoneReason.STOP)]


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=8),
    cuts=st.lists(st.integers(min_value=1, max_value=3000), max_size=12),
    crlf=st.booleans(),
)
def test_random_text_and_cuts(texts: list[str], cuts: list[int], crlf: bool) -> None:
    data = ROLE + b"".join(delta(t) for t in texts) + USAGE + DONE
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    events = feed_in_pieces(OpenAIStreamDecoder(), data, [c for c in cuts if c < len(data)])
    expected = "".join(
        t.encode("utf-16", "surrogatepass").decode("utf-16", "replace") for t in texts
    )
    assert merged_text(events) == expected
    assert events[-2:] == [Usage(9, 2), Done(DoneReason.STOP)]


def test_a_whole_data_line_is_a_token_before_its_blank_line_arrives() -> None:
    decoder = OpenAIStreamDecoder()
    assert decoder.feed(b'data: {"choices":[{"delta":{"content":"now"}}]}\n') == [Token("now")]
    assert decoder.feed(b"\n") == []


def test_server_without_blank_lines_still_streams() -> None:
    data = (
        b'data: {"choices":[{"delta":{"content":"a"}}]}\n'
        b'data: {"choices":[{"delta":{"content":"b"}}]}\n'
        b"data: [DONE]\n"
    )
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert events == [Token("a"), Token("b"), Done(DoneReason.STOP)]


def test_data_field_without_colon_is_an_empty_line() -> None:
    data = b'data: {"choices":\ndata\ndata: [{"delta":{"content":"x"}}]}\n\n' + DONE
    assert feed_in_pieces(OpenAIStreamDecoder(), data, [])[0] == Token("x")


def test_broken_multi_line_event_is_a_protocol_error_at_its_end() -> None:
    decoder = OpenAIStreamDecoder()
    assert decoder.feed(b'data: {"choices": [\n') == []
    with pytest.raises(ProtocolError, match="not JSON"):
        decoder.feed(b"\n")
