"""The lab's tool-calling models, read by Tachy's own backends and by the official
`openai` and `ollama` packages (so the lab's wire is checked by a client nobody here wrote)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import ollama
import openai
import pytest

from client.backends.apis.ollama.backend import OllamaBackend
from client.backends.apis.openai.backend import OpenAICompatBackend
from client.core.conversation import ChatMessage, ChatRequest
from client.core.events import Done, DoneReason, Token, ToolCallArguments, ToolCallStarted
from client.core.tools import ToolResult, ToolSpec
from client.lab import LabServer, ScenarioError, scenario_from_dict
from client.lab.tools.planning import plan_turn

NUMBERS = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}
CITY = {"type": "object", "properties": {"city": {"type": "string"}}}
TOOLS = (
    ToolSpec("add", "Add two numbers", NUMBERS),
    ToolSpec("get_weather", "The weather in a city", CITY),
)
QUESTION = "Use get_weather for Paris, then add 2 and 3."
DIALS = {"ttft": 5, "tpot_ms": 1, "seed": 2}

Start = Callable[..., Awaitable[str]]


@pytest.fixture
async def start() -> AsyncIterator[Start]:
    servers: list[LabServer] = []

    async def start(**dials: Any) -> str:
        server = LabServer(scenario_from_dict({**DIALS, **dials}))
        servers.append(server)
        return await server.start()

    yield start
    for server in servers:
        await server.stop()


def test_the_model_calls_the_tools_the_question_names_with_its_values() -> None:
    turn = plan_turn([t.wire() for t in TOOLS], [{"role": "user", "content": QUESTION}])
    assert [(c.name, c.arguments) for c in turn.calls] == [
        ("get_weather", {"city": "Paris"}),
        ("add", {"a": 2, "b": 3}),
    ]
    unnamed = plan_turn([t.wire() for t in TOOLS], [{"role": "user", "content": "Hi"}])
    assert [c.name for c in unnamed.calls] == ["add"]  # naming none: the first tool


async def _turn(backend: Any, messages: list[ChatMessage]) -> tuple[list, Done]:
    request = ChatRequest("tachy-lab", messages, tools=TOOLS)
    async with backend.chat(request) as stream:
        events = [event async for event in stream]
    assert isinstance(events[-1], Done), events[-1]
    return events, events[-1]


async def _call_then_answer(backend: Any) -> list:
    """Ask, run the tools (here: fixed results), send them back, read the answer."""
    question = ChatMessage("user", QUESTION)
    events, done = await _turn(backend, [question])
    assert done.reason is DoneReason.TOOL_CALLS
    assert [(c.name, c.arguments, c.valid) for c in done.tool_calls] == [
        ("get_weather", {"city": "Paris"}, True),
        ("add", {"a": 2, "b": 3}, True),
    ]
    results = [ToolResult(c.id, c.name, "sunny" if c.index == 0 else "5") for c in done.tool_calls]
    asked = ChatMessage("assistant", done.text, tool_calls=done.tool_calls)
    follow_up = [question, asked, *(ChatMessage.tool_result(r) for r in results)]
    _, answer = await _turn(backend, follow_up)
    assert answer.reason is DoneReason.STOP and not answer.wants_tools
    assert answer.text == "The tools answered: get_weather gave sunny; add gave 5."
    return events


@pytest.mark.parametrize("style", ["default", "done_line"])
async def test_ollama_whole_calls_then_the_answer(start: Start, style: str) -> None:
    backend = OllamaBackend(await start(tool_calls_style=style))
    try:
        events = await _call_then_answer(backend)
    finally:
        await backend.aclose()
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [e.name for e in started] == ["get_weather", "add"]
    assert all(e.id.startswith("call_") and len(e.id) == 13 for e in started)


@pytest.mark.parametrize(
    ("server", "style"), [("vllm", "default"), ("vllm", "interleaved"), ("llamacpp", "default")]
)
async def test_openai_deltas_then_the_answer(start: Start, server: str, style: str) -> None:
    backend = OpenAICompatBackend(await start(server=server, tool_calls_style=style))
    try:
        events = await _call_then_answer(backend)
    finally:
        await backend.aclose()
    order = [e.index for e in events if isinstance(e, ToolCallArguments)]
    if style == "interleaved":
        assert order[:4] == [0, 1, 0, 1]
    else:
        assert order == sorted(order) and len(order) > 2  # streamed in fragments
    assert not any(isinstance(e, Token) for e in events[:-1])


async def test_the_official_openai_client_assembles_the_same_calls(start: Start) -> None:
    url = await start(tool_calls_style="interleaved")
    client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="none")
    async with client.chat.completions.stream(
        model="tachy-lab",
        messages=[{"role": "user", "content": QUESTION}],
        tools=[t.wire() for t in TOOLS],  # type: ignore[misc]
        stream_options={"include_usage": True},
    ) as stream:
        final = await stream.get_final_completion()
    await client.close()
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls or []
    named = [(c.function.name, json.loads(c.function.arguments)) for c in calls]  # type: ignore[union-attr]
    assert named == [("get_weather", {"city": "Paris"}), ("add", {"a": 2, "b": 3})]


async def test_the_official_ollama_client_reads_the_done_line_calls(start: Start) -> None:
    client = ollama.AsyncClient(host=await start(tool_calls_style="done_line"))
    messages = [{"role": "user", "content": QUESTION}]
    parts = [
        part
        async for part in await client.chat(
            model="tachy-lab", messages=messages, tools=[t.wire() for t in TOOLS], stream=True
        )
    ]
    assert parts[-1].done and parts[-1].message.tool_calls
    assert [c.function.name for c in parts[-1].message.tool_calls] == ["get_weather", "add"]
    whole = await client.chat(model="tachy-lab", messages=messages, tools=[TOOLS[0].wire()])
    assert whole.message.tool_calls and whole.message.tool_calls[0].function.arguments == {
        "a": 2,
        "b": 3,
    }


async def test_a_whole_openai_reply_holds_the_calls(start: Start) -> None:
    client = openai.AsyncOpenAI(base_url=f"{await start(server='llamacpp')}/v1", api_key="none")
    whole = await client.chat.completions.create(
        model="tachy-lab",
        messages=[{"role": "user", "content": QUESTION}],
        tools=[t.wire() for t in TOOLS],  # type: ignore[misc]
    )
    await client.close()
    choice = whole.choices[0]
    assert choice.finish_reason == "tool_calls"
    names = [c.function.name for c in choice.message.tool_calls or []]  # type: ignore[union-attr]
    assert names == ["get_weather", "add"]


def test_an_unknown_tool_calls_style_is_refused() -> None:
    with pytest.raises(ScenarioError, match="tool_calls_style"):
        scenario_from_dict({"tool_calls_style": "sideways"})
