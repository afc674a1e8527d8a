"""Tool calls on both wires, every case over every chunking (UTF-8 cut included)."""

from __future__ import annotations

import json
from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from client.backends.apis.ollama.decoder import OllamaDecoder
from client.backends.apis.openai.decoder import OpenAIStreamDecoder
from client.core.events import Done, DoneReason, Finished, Token, Usage
from client.core.server_timings import ServerTimings
from client.core.tools import (
    ToolCall,
    ToolCallArguments,
    ToolCallsRequested,
    ToolCallStarted,
)
from tests.backends.chunking import feed_in_pieces, same_for_every_chunking


def ollama_line(message: dict, done: bool = False, **extra: object) -> bytes:
    obj = {"model": "m", "created_at": "t", "message": {"role": "assistant", **message}}
    obj |= {"done": done, **extra}
    return json.dumps(obj, ensure_ascii=False).encode() + b"\n"


def ollama_call(name: str, arguments: object, call_id: str | None = None) -> dict:
    call: dict = {"function": {"index": 0, "name": name, "arguments": arguments}}
    return {**({"id": call_id} if call_id else {}), **call}


OLLAMA_DONE = {"done_reason": "stop", "eval_count": 9}
ADD = ollama_call("add", {"a": 2, "b": 3}, "call_k3x9")
WEATHER = ollama_call("get_weather", {"city": "東京"})


def calls(events: list) -> tuple[ToolCall, ...]:
    ends = [e for e in events if isinstance(e, ToolCallsRequested)]
    assert len(ends) == 1, events
    return ends[0].calls


def without_timings(events: list) -> list:
    return [e for e in events if not isinstance(e, ServerTimings)]


def test_ollama_whole_call_on_a_line_then_an_empty_done_line() -> None:
    data = ollama_line({"content": "", "tool_calls": [ADD]}) + ollama_line(
        {"content": ""}, True, **OLLAMA_DONE
    )
    events = without_timings(same_for_every_chunking(OllamaDecoder, data))
    add = ToolCall("call_k3x9", "add", {"a": 2, "b": 3}, '{"a": 2, "b": 3}', 0)
    assert events == [
        ToolCallStarted(0, "call_k3x9", "add"),
        ToolCallArguments(0, '{"a": 2, "b": 3}'),
        ToolCallsRequested((add,)),
        Finished(DoneReason.STOP),
        Done(DoneReason.TOOL_CALLS),
    ]


def test_ollama_calls_in_the_done_line_itself_several_in_one_line() -> None:
    data = ollama_line({"content": "Let me check."}) + ollama_line(
        {"content": "", "tool_calls": [ADD, WEATHER]}, True, **OLLAMA_DONE
    )
    events = same_for_every_chunking(OllamaDecoder, data)
    assert events[0] == Token("Let me check.")
    found = calls(events)
    assert [(c.index, c.id, c.name, c.arguments) for c in found] == [
        (0, "call_k3x9", "add", {"a": 2, "b": 3}),
        (1, "call_1", "get_weather", {"city": "東京"}),
    ]
    assert all(c.valid for c in found)
    assert events[-1] == Done(DoneReason.TOOL_CALLS)


def test_ollama_calls_on_separate_lines_are_numbered_in_order() -> None:
    data = (
        ollama_line({"content": "", "tool_calls": [WEATHER]})
        + ollama_line({"content": "", "tool_calls": [ADD]})
        + ollama_line({"content": ""}, True, done_reason="length")
    )
    events = same_for_every_chunking(OllamaDecoder, data)
    assert [(c.index, c.name) for c in calls(events)] == [(0, "get_weather"), (1, "add")]
    assert Finished(DoneReason.LENGTH) in events  # the server's word for the timeline
    assert events[-1] == Done(DoneReason.TOOL_CALLS)  # calls sent: it wants tools


def test_ollama_odd_calls_are_marked_invalid_and_junk_is_ignored() -> None:
    odd = [
        ollama_call("add", '{"a": 1}'),  # a string: read as JSON text
        ollama_call("add", [1, 2]),  # not an object
        {"function": {"arguments": {}}},  # no name
        "junk",
        {"function": "junk"},
    ]
    data = ollama_line({"content": "", "tool_calls": odd}) + ollama_line(
        {"content": "", "tool_calls": "junk"}, True, **OLLAMA_DONE
    )
    found = calls(same_for_every_chunking(OllamaDecoder, data))
    assert [(c.name, c.arguments, c.valid) for c in found] == [
        ("add", {"a": 1}, True),
        ("add", {}, False),
        ("", {}, False),
    ]
    assert found[1].error == "the arguments are an array, not a JSON object"
    assert found[2].error == "the model named no tool"


def test_ollama_without_calls_is_unchanged() -> None:
    data = ollama_line({"content": "Hi"}) + ollama_line({"content": ""}, True, **OLLAMA_DONE)
    events = same_for_every_chunking(OllamaDecoder, data)
    assert not any(isinstance(e, ToolCallsRequested) for e in events)
    assert events[-1] == Done(DoneReason.STOP)


HEAD = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def sse(obj: dict | str) -> bytes:
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


def chunk(delta: dict, finish: str | None = None) -> bytes:
    return sse({**HEAD, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def call_delta(index: int, arguments: str | None = None, **head: str) -> dict:
    function: dict = {}
    if "name" in head:
        function["name"] = head.pop("name")
    if arguments is not None:
        function["arguments"] = arguments
    entry: dict = {"index": index, **head}
    if "id" in head:
        entry["type"] = "function"
    return {"tool_calls": [{**entry, "function": function}]}


USAGE = sse({**HEAD, "choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 20}})
DONE = sse("[DONE]")
ROLE = chunk({"role": "assistant", "content": None})


def test_openai_deltas_of_one_call_are_concatenated() -> None:
    data = (
        ROLE
        + chunk(call_delta(0, "", id="call_a", name="add"))
        + chunk(call_delta(0, '{"a": '))
        + chunk(call_delta(0, "2, "))
        + chunk(call_delta(0, '"b": 3}'))
        + chunk({}, "tool_calls")
        + USAGE
        + DONE
    )
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    add = ToolCall("call_a", "add", {"a": 2, "b": 3}, '{"a": 2, "b": 3}', 0)
    assert events == [
        ToolCallStarted(0, "call_a", "add"),
        ToolCallArguments(0, '{"a": '),
        ToolCallArguments(0, "2, "),
        ToolCallArguments(0, '"b": 3}'),
        ToolCallsRequested((add,)),
        Finished(DoneReason.TOOL_CALLS),
        Usage(40, 20),
        Done(DoneReason.TOOL_CALLS),
    ]


def test_openai_parallel_calls_interleave_by_index() -> None:
    data = (
        ROLE
        + chunk({"content": "Checking."})
        + chunk(call_delta(0, "", id="call_a", name="add"))
        + chunk(call_delta(1, "", id="call_w", name="get_weather"))
        + chunk(call_delta(1, '{"city": "東'))
        + chunk(call_delta(0, '{"a": 2, "b": 3}'))
        + chunk(call_delta(1, '京"}'))
        + chunk({}, "tool_calls")
        + DONE
    )
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert events[0] == Token("Checking.")
    found = calls(events)
    assert [(c.index, c.id, c.name, c.arguments) for c in found] == [
        (0, "call_a", "add", {"a": 2, "b": 3}),
        (1, "call_w", "get_weather", {"city": "東京"}),
    ]
    fragments = [e.text for e in events if isinstance(e, ToolCallArguments) and e.index == 1]
    assert fragments == ['{"city": "東', '京"}']


def test_vllm_finish_chunk_carries_the_last_fragment() -> None:
    # vLLM (serving_chat.py) sends what its parser held back on the finish chunk itself.
    finish = chunk(call_delta(0, '"Paris"}'), "tool_calls")
    data = (
        chunk({"role": "assistant", "content": ""})
        + chunk(call_delta(0, id="chatcmpl-tool-9", name="get_weather"))
        + chunk(call_delta(0, '{"city": '))
        + finish
        + USAGE
        + DONE
    )
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert calls(events)[0].arguments == {"city": "Paris"}
    tail = events.index(ToolCallArguments(0, '"Paris"}'))
    assert isinstance(events[tail + 1], ToolCallsRequested)
    assert events[tail + 2] == Finished(DoneReason.TOOL_CALLS)


def test_openai_malformed_arguments_mark_the_call_invalid_and_keep_the_text() -> None:
    # vLLM's parsers are known to drop a closing brace.
    data = (
        chunk({"content": "Sure: "})
        + chunk(call_delta(0, '{"a": 2, "b": 3', id="call_a", name="add"))
        + chunk({}, "tool_calls")
        + DONE
    )
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    (broken,) = calls(events)
    assert not broken.valid and broken.arguments == {}
    assert broken.arguments_text == '{"a": 2, "b": 3'
    assert broken.error is not None and broken.error.startswith("the arguments are not valid JSON")
    assert broken.arguments_json() == "{}"  # what goes back to a server stays valid JSON
    assert events[0] == Token("Sure: ") and events[-1] == Done(DoneReason.TOOL_CALLS)


def test_openai_odd_servers() -> None:
    data = (
        chunk(call_delta(0, '{"x": 1}'))  # arguments before the name
        + chunk(call_delta(0, id="call_a", name="first"))
        + chunk(call_delta(0, "{}", id="call_b", name="second"))  # same index, new id
        + chunk({"tool_calls": [{"function": {"name": "third", "arguments": ""}}]})  # no index
        + chunk({"tool_calls": None})
        + chunk({"tool_calls": ["junk", 1]})
        + chunk({}, "stop")  # a server that says "stop" though it called
        + DONE
    )
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert events[:2] == [ToolCallStarted(0, "call_a", "first"), ToolCallArguments(0, '{"x": 1}')]
    found = calls(events)
    assert [(c.index, c.id, c.name, c.arguments, c.valid) for c in found] == [
        (0, "call_a", "first", {"x": 1}, True),
        (1, "call_b", "second", {}, True),
        (2, "call_2", "third", {}, True),
    ]
    assert events[-1] == Done(DoneReason.TOOL_CALLS)


def test_openai_calls_without_finish_reason_end_at_done_marker() -> None:
    data = chunk(call_delta(0, '{"a": 1}', id="call_a", name="add")) + DONE
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert calls(events)[0].arguments == {"a": 1}
    assert events[-1] == Done(DoneReason.TOOL_CALLS)


def test_openai_stream_cut_mid_arguments_hands_on_no_calls() -> None:
    """No end: the stream reports an interruption; the fragments already seen stay."""
    data = chunk(call_delta(0, '{"a": ', id="call_a", name="add"))
    events = same_for_every_chunking(OpenAIStreamDecoder, data)
    assert events == [ToolCallStarted(0, "call_a", "add"), ToolCallArguments(0, '{"a": ')]


ARGUMENT_VALUES = st.one_of(st.integers(), st.text(max_size=12), st.booleans(), st.none())
CALL_ARGUMENTS = st.dictionaries(st.text(min_size=1, max_size=6), ARGUMENT_VALUES, max_size=4)


@settings(max_examples=40)
@given(
    arguments=st.lists(CALL_ARGUMENTS, min_size=1, max_size=3),
    cuts=st.lists(st.integers(1, 8), min_size=1, max_size=20),
    order=st.randoms(use_true_random=False),
)
def test_any_interleaving_of_fragments_gives_the_same_calls(
    arguments: list[dict], cuts: list[int], order: Random
) -> None:
    """Parallel calls, each split anywhere (inside a character too), interleaved at random."""
    queues = []
    for index, values in enumerate(arguments):
        text = json.dumps(values, ensure_ascii=False)
        pieces, at = [], 0
        for size in cuts:
            if at < len(text):
                pieces.append(text[at : at + size])
                at += size
        pieces.append(text[at:])
        first = call_delta(index, pieces[0], id=f"call_{index}", name=f"tool{index}")
        queues.append([first, *(call_delta(index, piece) for piece in pieces[1:])])
    data = b""
    while any(queues):
        queue = order.choice([q for q in queues if q])  # each call's own order is kept
        data += chunk(queue.pop(0))
    data += chunk({}, "tool_calls") + DONE
    events = feed_in_pieces(OpenAIStreamDecoder(), data, [])
    byte_by_byte = feed_in_pieces(OpenAIStreamDecoder(), data, list(range(1, len(data))))
    assert byte_by_byte == events
    found = calls(events)  # in the servers' index order, whatever came first
    assert [(c.name, c.arguments, c.valid) for c in found] == [
        (f"tool{i}", values, True) for i, values in enumerate(arguments)
    ]
