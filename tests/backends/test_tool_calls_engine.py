"""Tools against the real llama-server (the local engine: xllamacpp's llama-server, --jinja
on, SmolLM2-135M with its own chat template).

What it does, found here: SmolLM2's template has no tools (/props chat_template_caps
supports_tools false), so llama-server leaves the tools out and the model answers in
plain text, finish_reason "stop", without a tool_calls delta. (With a tool-aware
ChatML template put in its place, the caps say true and the prompt lists the tools, but
the 135M model never writes a <tool_call>, and this build did not constrain it with
tool_choice "required" or a named tool either.) So here the engine checks that a
request with tools decodes as the plain answer it is, and that its parser takes a whole
tool turn as Tachy writes it (the assistant's calls, then one role "tool" message per
call). The call deltas themselves are checked against a real vLLM's recorded wire
(tests/backends/test_tool_calls_recorded.py).
"""

from __future__ import annotations

import httpx
import pytest

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.engine.local_engine import LocalEngine
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Done, DoneReason, Failed
from client.core.tools import ToolCall, ToolResult, ToolSpec

pytestmark = pytest.mark.engine

ADD = ToolSpec(
    "add",
    "Add two numbers",
    {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
)
SHORT = GenerationOptions(temperature=0, max_tokens=24)


async def _answer(engine: LocalEngine, messages: list[ChatMessage]) -> Done:
    backend = OpenAICompatBackend(engine.url)
    try:
        request = ChatRequest(engine.model, messages, SHORT, tools=(ADD,))
        async with backend.chat(request) as stream:
            events = [event async for event in stream]
    finally:
        await backend.aclose()
    last = events[-1]
    assert not isinstance(last, Failed), last.message
    assert isinstance(last, Done)
    return last


async def test_smollm2_template_answers_a_tools_request_in_plain_text(
    local_engine: LocalEngine,
) -> None:
    async with httpx.AsyncClient(trust_env=False) as client:
        props = (await client.get(f"{local_engine.url}/props")).json()
    assert props["chat_template_caps"]["supports_tools"] is False
    done = await _answer(local_engine, [ChatMessage("user", "What is 2 plus 3?")])
    assert done.reason in (DoneReason.STOP, DoneReason.LENGTH) and done.text
    assert not done.wants_tools


async def test_the_engine_takes_a_whole_tool_turn_as_tachy_writes_it(
    local_engine: LocalEngine,
) -> None:
    calls = (
        ToolCall("call_a", "add", {"a": 2, "b": 3}, '{"a": 2, "b": 3}', 0),
        ToolCall("call_b", "add", {}, '{"a": 1', 1, error="the arguments are not valid JSON"),
    )
    turn = [
        ChatMessage("user", "What is 2 plus 3?"),
        ChatMessage("assistant", "", tool_calls=calls),
        ChatMessage.tool_result(ToolResult("call_a", "add", "5")),
        ChatMessage.tool_result(ToolResult("call_b", "add", "invalid arguments", True)),
    ]
    done = await _answer(local_engine, turn)
    assert done.text and not done.wants_tools
