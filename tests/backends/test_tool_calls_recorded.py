"""Tachy's decoding of tool calls as a real vLLM 0.32 streamed them
(tests/lab/fixtures/vllm_0_32_tools.json, recorded through `tachy lab --upstream URL
--record`; its `recording.server` and `recording.requests` say what produced each reply).

What the real wire showed beyond the docs: after the first delta vLLM sends
`"name": null` with every fragment; the first fragment rides on the call's first delta;
a named tool_choice ends with finish_reason "stop" (not "tool_calls") and an empty
arguments fragment on the finish chunk; tool_choice "required" may end by "length".
(The real llama-server, tests/backends/test_tool_calls_engine.py, gave no tool-call wire
with SmolLM2: its template has no tools.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.backends.apis.openai.decoder import OpenAIStreamDecoder
from client.core.events import Done, DoneReason, Finished, Token
from client.core.tools import ToolCallsRequested
from tests.backends.chunking import feed_in_pieces

FIXTURE = Path(__file__).parent.parent / "lab" / "fixtures" / "vllm_0_32_tools.json"
REPLIES = json.loads(FIXTURE.read_text(encoding="utf-8"))["recording"]["replies"]
PARIS = {"city": "Paris"}


def _wire(index: int) -> tuple[bytes, list[int]]:
    """A reply's body, and where the network cut it when it was recorded."""
    texts = [chunk["text"].encode() for chunk in REPLIES[index]["chunks"]]
    cuts, at = [], 0
    for text in texts[:-1]:
        at += len(text)
        cuts.append(at)
    return b"".join(texts), cuts


def _decoded(index: int) -> list:
    """The events, the same whatever the chunking: as recorded, whole, byte by byte, and
    cut once every 7 bytes."""
    data, recorded = _wire(index)
    events = feed_in_pieces(OpenAIStreamDecoder(), data, recorded)
    assert feed_in_pieces(OpenAIStreamDecoder(), data, []) == events
    assert feed_in_pieces(OpenAIStreamDecoder(), data, list(range(1, len(data)))) == events
    for cut in range(1, len(data), 7):
        assert feed_in_pieces(OpenAIStreamDecoder(), data, [cut]) == events, cut
    return events


def _calls(events: list) -> list[tuple[int, str, dict, bool]]:
    (requested,) = [e for e in events if isinstance(e, ToolCallsRequested)]
    return [(c.index, c.name, c.arguments, c.valid) for c in requested.calls]


def test_required_three_calls_cut_by_length() -> None:
    events = _decoded(0)
    assert _calls(events) == [(i, "get_weather", PARIS, True) for i in range(3)]
    assert Finished(DoneReason.LENGTH) in events and events[-1] == Done(DoneReason.LENGTH)


def test_named_tool_choice_ends_with_stop_and_an_empty_fragment() -> None:
    events = _decoded(1)
    assert _calls(events) == [(0, "get_weather", PARIS, True)]
    assert events[-1] == Done(DoneReason.TOOL_CALLS)  # "stop", but it called a tool


def test_required_one_call_ends_with_tool_calls() -> None:
    events = _decoded(3)
    assert _calls(events) == [(0, "add", {"a": 2, "b": 3}, True)]
    assert Finished(DoneReason.TOOL_CALLS) in events and events[-1] == Done(DoneReason.TOOL_CALLS)
    assert not any(isinstance(e, Token) for e in events)


def test_the_answer_after_the_tool_turn_is_plain_text() -> None:
    events = _decoded(2)
    text = "".join(e.text for e in events if isinstance(e, Token))
    assert "Paris" in text and events[-1] == Done(DoneReason.STOP)
    assert not any(isinstance(e, ToolCallsRequested) for e in events)


@pytest.mark.parametrize("index", range(len(REPLIES)))
def test_every_recorded_reply_was_a_stream_that_ended(index: int) -> None:
    assert REPLIES[index]["status"] == 200 and REPLIES[index]["end"] == "eof"
