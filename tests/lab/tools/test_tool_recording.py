"""A real vLLM's tool-call replies (tests/lab/fixtures/vllm_0_32_tools.json) replayed by
the lab, byte for byte: requests that offer tools get the recording, not the lab's own
tool model, and Tachy's backend reads each as the real server sent it."""

from __future__ import annotations

from pathlib import Path

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.core.conversation import ChatMessage, ChatRequest
from client.core.events import Done, DoneReason
from client.core.tools import ToolSpec
from client.lab import LabServer, load_scenario

FIXTURE = Path(__file__).parent.parent / "fixtures" / "vllm_0_32_tools.json"
WEATHER = ToolSpec("get_weather", "The weather in a city", {"type": "object"})


async def test_the_replayed_tool_calls_reach_tachy_as_recorded() -> None:
    server = LabServer(load_scenario(FIXTURE))
    backend = OpenAICompatBackend(await server.start())
    request = ChatRequest("smollm2", [ChatMessage("user", "Paris?")], tools=(WEATHER,))
    outcomes = []
    try:
        for _ in range(4):
            async with backend.chat(request) as stream:
                events = [event async for event in stream]
            assert isinstance(events[-1], Done), events[-1]
            outcomes.append(events[-1])
    finally:
        await backend.aclose()
        await server.stop()
    assert [o.reason for o in outcomes] == [
        DoneReason.LENGTH,
        DoneReason.TOOL_CALLS,
        DoneReason.STOP,
        DoneReason.TOOL_CALLS,
    ]
    assert [[c.name for c in o.tool_calls] for o in outcomes] == [
        ["get_weather"] * 3,
        ["get_weather"],
        [],
        ["add"],
    ]
    assert outcomes[0].wants_tools and outcomes[3].tool_calls[0].arguments == {"a": 2, "b": 3}
