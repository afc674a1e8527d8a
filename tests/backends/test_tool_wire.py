"""Tools and tool messages in each dialect's body, and a stream's Done naming its calls."""

from __future__ import annotations

import json

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.kinds.ollama import body as ollama
from client.backends.kinds.openai import body as openai_compat
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest
from client.core.events import Done, DoneReason, Failed, ToolCallsRequested, ToolCallStarted
from client.core.tools import ToolCall, ToolResult, ToolSpec
from tests.backends.fakes import Recorder, sse, streaming

ADD = ToolSpec(
    "add",
    "Add two numbers",
    {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
)
CALLS = (
    ToolCall("call_a", "add", {"a": 2, "b": 3}, '{"a": 2, "b": 3}', 0),
    ToolCall("call_b", "add", {}, '{"a": 1', 1, error="the arguments are not valid JSON"),
)
TURN = [
    ChatMessage("user", "What is 2 plus 3?"),
    ChatMessage("assistant", "", tool_calls=CALLS),
    ChatMessage.tool_result(ToolResult("call_a", "add", "5")),
    ChatMessage.tool_result(ToolResult("call_b", "add", "invalid arguments", is_error=True)),
]
REQUEST = ChatRequest("m", TURN, tools=(ADD,))
TOOLS_WIRE = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            },
        },
    }
]


def test_ollama_body_has_tools_calls_as_objects_and_named_results() -> None:
    body = ollama.chat_body(REQUEST)
    assert body["tools"] == TOOLS_WIRE
    assert body["messages"][1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_a",
                "function": {"index": 0, "name": "add", "arguments": {"a": 2, "b": 3}},
            },
            {"id": "call_b", "function": {"index": 1, "name": "add", "arguments": {}}},
        ],
    }
    assert body["messages"][2] == {
        "role": "tool",
        "content": "5",
        "tool_name": "add",
        "tool_call_id": "call_a",
    }


def test_openai_body_has_tools_calls_as_json_text_and_one_message_per_result() -> None:
    body = openai_compat.chat_body(REQUEST)
    assert body["tools"] == TOOLS_WIRE
    assert body["messages"][1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
            },
            {"id": "call_b", "type": "function", "function": {"name": "add", "arguments": "{}"}},
        ],
    }
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_a", "content": "5"},
        {"role": "tool", "tool_call_id": "call_b", "content": "invalid arguments"},
    ]


def test_bodies_without_tools_are_unchanged() -> None:
    plain = ChatRequest("m", [ChatMessage("user", "hi")])
    assert "tools" not in ollama.chat_body(plain)
    assert "tools" not in openai_compat.chat_body(plain)
    assert openai_compat.chat_body(plain)["messages"] == [{"role": "user", "content": "hi"}]
    assert ollama.chat_body(plain)["messages"] == [{"role": "user", "content": "hi"}]


async def test_a_stream_done_names_the_calls_the_model_wants() -> None:
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    call = {"index": 0, "id": "call_a", "type": "function"}
    call["function"] = {"name": "add", "arguments": '{"a": 2, "b": 3}'}
    steps = [
        sse({**head, "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}),
        sse({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        sse("[DONE]"),
    ]
    response, _ = streaming(steps)
    recorder = Recorder([response])
    backend = OpenAICompatBackend("http://server:8000", client=recorder.client())
    async with backend.chat(REQUEST) as stream:
        events = [event async for event in stream]
    assert isinstance(events[1], ToolCallStarted)
    assert isinstance(events[-2], ToolCallsRequested)
    done = events[-1]
    assert isinstance(done, Done) and done.reason is DoneReason.TOOL_CALLS and done.wants_tools
    assert done.tool_calls == stream.tool_calls == (CALLS[0],)
    assert json.loads(recorder.requests[0].content)["tools"] == TOOLS_WIRE


async def test_arguments_streaming_longer_than_the_first_byte_wait_do_not_time_out() -> None:
    """A call's fragments are not text (no TTFT), but they show the model is writing."""
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def delta(entry: dict, finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": {"tool_calls": [entry]}, "finish_reason": finish}
        return sse({**head, "choices": [choice]})

    first = {"index": 0, "id": "call_a", "type": "function", "function": {"name": "add"}}
    steps: list = [delta(first)]
    for fragment in ['{"a": ', "2, ", '"b": ', "3}"]:
        steps += [0.4, delta({"index": 0, "function": {"arguments": fragment}})]
    steps += [sse({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})]
    response, _ = streaming([*steps, sse("[DONE]")])
    backend = OpenAICompatBackend("http://server:8000", client=Recorder([response]).client())
    timeouts = StreamTimeouts(first_byte_s=1.0, stall_s=1.0)
    async with backend.chat(REQUEST, timeouts) as stream:
        events = [event async for event in stream]
    assert not isinstance(events[-1], Failed), events[-1]
    assert stream.tool_calls == (CALLS[0],)
    assert stream.timeline.first_token_ns is None  # no text: no TTFT
