from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.backends.apis.ollama.decoder import OllamaDecoder
from client.backends.errors import ModelNotFound, ProtocolError, ServerError
from client.core.events import Done, DoneReason, Finished, ServerTimings, Token, TokenKind
from tests.backends.chunking import feed_in_pieces, merged_text, same_for_every_chunking


def line(obj: dict) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def chunk(content: str = "", thinking: str | None = None) -> bytes:
    message: dict = {"role": "assistant", "content": content}
    if thinking is not None:
        message["thinking"] = thinking
    return line({"model": "m", "created_at": "t", "message": message, "done": False})


FINAL = line(
    {
        "model": "m",
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
        "total_duration": 5_000_000_000,
        "load_duration": 1_500_000,
        "prompt_eval_count": 26,
        "prompt_eval_duration": 130_000_000,
        "eval_count": 3,
        "eval_duration": 250_000_000,
    }
)


def test_tokens_then_timings_in_milliseconds_then_done() -> None:
    data = chunk("Hel") + chunk("lo") + chunk("") + FINAL
    events = same_for_every_chunking(OllamaDecoder, data)
    assert events[:3] == [Token("Hel"), Token("lo"), Finished(DoneReason.STOP)]
    timings, done = events[3], events[4]
    assert isinstance(timings, ServerTimings) and timings.source == "ollama"
    assert timings.values == {
        "total_duration_ms": 5000.0,
        "load_duration_ms": 1.5,
        "prompt_eval_duration_ms": 130.0,
        "eval_duration_ms": 250.0,
        "prompt_eval_count": 26,
        "eval_count": 3,
    }
    assert done == Done(DoneReason.STOP)
    assert len(events) == 5


def test_thinking_comes_before_the_answer_of_the_same_line() -> None:
    events = same_for_every_chunking(OllamaDecoder, chunk("A", thinking="hmm") + FINAL)
    assert events[:2] == [Token("hmm", TokenKind.THINKING), Token("A", TokenKind.ANSWER)]


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("stop", DoneReason.STOP),
        ("length", DoneReason.LENGTH),
        ("load", DoneReason.LOAD),
        ("unload", DoneReason.UNLOAD),
        ("weird", DoneReason.OTHER),
    ],
)
def test_done_reasons(reason: str, expected: DoneReason) -> None:
    events = feed_in_pieces(OllamaDecoder(), line({"done": True, "done_reason": reason}), [])
    assert events[0] == Finished(expected) and events[-1] == Done(expected)


def test_chinese_and_emoji_split_inside_characters() -> None:
    text = "你好，世界 🚀👩‍💻"
    data = b"".join(chunk(ch) for ch in text) + FINAL
    events = same_for_every_chunking(OllamaDecoder, data)
    assert merged_text(events) == text


def test_surrogate_pair_escapes_become_one_emoji() -> None:
    data = b'{"message":{"content":"go \\ud83d\\ude80"},"done":false}\n' + FINAL
    events = same_for_every_chunking(OllamaDecoder, data)
    assert events[0] == Token("go 🚀")


def test_lone_surrogate_escape_becomes_replacement_character() -> None:
    data = b'{"message":{"content":"x\\ud83d"},"done":false}\n' + FINAL
    events = feed_in_pieces(OllamaDecoder(), data, [])
    assert events[0] == Token("x\ufffd")
    events[0].text.encode("utf-8")  # printable


def test_crlf_and_blank_lines_are_fine() -> None:
    data = chunk("a").replace(b"\n", b"\r\n") + b"\r\n" + FINAL.replace(b"\n", b"\r\n")
    events = same_for_every_chunking(OllamaDecoder, data)
    assert events[0] == Token("a") and events[-1] == Done(DoneReason.STOP)


def test_last_line_without_newline_is_still_read() -> None:
    events = feed_in_pieces(OllamaDecoder(), chunk("a") + FINAL.rstrip(b"\n"), [3, 40])
    assert events[-1] == Done(DoneReason.STOP)


def test_stream_without_done_line_has_no_done() -> None:
    events = feed_in_pieces(OllamaDecoder(), chunk("a") + chunk("b"), [5])
    assert not any(isinstance(e, Done) for e in events)


@pytest.mark.parametrize("before", [b"", b"x"])
def test_error_line_at_any_point_is_a_server_error(before: bytes) -> None:
    data = (chunk("partial") if before else b"") + line({"error": "out of memory"})
    decoder = OllamaDecoder()
    with pytest.raises(ServerError) as caught:
        feed_in_pieces(decoder, data, [7])
    assert caught.value.server_message == "out of memory"
    assert caught.value.status is None
    assert "out of memory" in str(caught.value)


def test_model_not_found_error_line() -> None:
    with pytest.raises(ModelNotFound) as caught:
        OllamaDecoder("llama9").feed(line({"error": 'model "llama9" not found, try pulling it'}))
    assert "llama9" in str(caught.value)


def test_non_json_line_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="not JSON"):
        OllamaDecoder().feed(chunk("a") + b"hello there\n")


def test_json_that_is_not_an_object_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="not a JSON object"):
        OllamaDecoder().feed(b"[1, 2]\n")


def test_html_page_is_a_protocol_error_without_the_html() -> None:
    with pytest.raises(ProtocolError) as caught:
        OllamaDecoder().feed(b"<!DOCTYPE html>\n<html><body>Bad Gateway</body></html>\n")
    assert "HTML" in str(caught.value) and "<" not in str(caught.value)


def test_oversize_line_is_a_protocol_error_without_growing() -> None:
    decoder = OllamaDecoder(line_limit=1000)
    decoder.feed(b'{"message":{"content":"')
    with pytest.raises(ProtocolError, match="longer than"):
        for _ in range(100):  # bounded: the limit trips on the 2nd piece
            decoder.feed(b"x" * 600)


def test_oversize_line_in_one_piece() -> None:
    with pytest.raises(ProtocolError, match="longer than"):
        OllamaDecoder(line_limit=100).feed(b"x" * 200 + b"\n")


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=8),
    cuts=st.lists(st.integers(min_value=1, max_value=2000), max_size=12),
)
def test_random_text_and_random_cuts_keep_every_character(
    texts: list[str], cuts: list[int]
) -> None:
    data = b"".join(chunk(t) for t in texts) + FINAL
    events = feed_in_pieces(OllamaDecoder(), data, [c for c in cuts if c < len(data)])
    expected = "".join(
        t.encode("utf-16", "surrogatepass").decode("utf-16", "replace") for t in texts
    )
    assert merged_text(events) == expected
    assert events[-1] == Done(DoneReason.STOP)
