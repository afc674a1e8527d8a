"""What the tool loop's tests share: the lab's tool-calling model in a dialect, the demo
MCP server through ToolServers, an approver that answers as told, and a turn run in a
task of its own (so a test can cancel it when an event arrives)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from client.backends.apis.ollama.backend import OllamaBackend
from client.backends.apis.openai.backend import OpenAICompatBackend
from client.core.conversation import ChatMessage, ChatRequest
from client.core.timeline import now_ns
from client.lab import LabServer, scenario_from_dict
from client.services.tools.approval import ApprovalChoice
from client.services.tools.loop import ApprovalAsk, LoopItem, ToolLoop
from client.services.tools.server_settings import DEMO_SERVER_NAME, demo_tool_server
from client.services.tools.tool_offer import ToolOffer
from client.services.tools.tool_servers import ToolServers

MODEL = "tachy-lab"
DIALS = {"ttft": 5, "tpot_ms": 1, "seed": 3}


@dataclass
class Approver:
    """Answers each ask with the next of `choices` (the last again when they run out);
    with `hold`, never answers (the user looks away) until cancelled."""

    choices: list[ApprovalChoice] = field(default_factory=lambda: [ApprovalChoice.ALLOW_ONCE])
    hold: bool = False
    asked: list[ApprovalAsk] = field(default_factory=list)
    taken_away: bool = False

    async def __call__(self, ask: ApprovalAsk) -> ApprovalChoice:
        self.asked.append(ask)
        if self.hold:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.taken_away = True
                raise
        return self.choices.pop(0) if len(self.choices) > 1 else self.choices[0]


class Lab:
    """The lab's tool model in one dialect: "ollama", "ollama-done-line", "vllm",
    "vllm-interleaved" or "llamacpp"."""

    def __init__(self, dialect: str, **dials: Any) -> None:
        server, _, style = dialect.partition("-")
        self.ollama = server == "ollama"
        styles = {"": "default", "done-line": "done_line", "interleaved": "interleaved"}
        scenario = {**DIALS, "tool_calls_style": styles[style], **dials}
        if not self.ollama:
            scenario["server"] = server
        self.server = LabServer(scenario_from_dict(scenario))
        self.backend: Any = None

    async def __aenter__(self) -> Lab:
        url = await self.server.start()
        self.backend = OllamaBackend(url) if self.ollama else OpenAICompatBackend(url)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.backend.aclose()
        await self.server.stop()

    def loop(self, servers: ToolServers, offer: ToolOffer, approver: Any, **kw: Any) -> ToolLoop:
        return ToolLoop(self.backend.chat, offer, servers, approver, **kw)


async def demo_offer(servers: ToolServers) -> ToolOffer:
    await servers.save(demo_tool_server())
    listing = await servers.listing([DEMO_SERVER_NAME])
    assert not listing.problems
    return ToolOffer.of(listing)


def question(text: str) -> ChatRequest:
    return ChatRequest(MODEL, [ChatMessage("user", text)])


async def whole_turn(loop: ToolLoop, request: ChatRequest) -> list[LoopItem]:
    return [item async for item in loop.run(request)]


@dataclass
class Stopped:
    """A turn cancelled when an event came: what it yielded, and the cancel's stamps."""

    items: list[LoopItem]
    cancelled_ns: int
    ended_ns: int

    @property
    def ms_to_end(self) -> float:
        return (self.ended_ns - self.cancelled_ns) / 1e6


async def stop_when(
    loop: ToolLoop, request: ChatRequest, when: Callable[[LoopItem], bool]
) -> Stopped:
    """Run the turn in a task and cancel it (as Stop does) once `when` holds for an event."""
    items: list[LoopItem] = []
    reached = asyncio.Event()

    async def consume() -> None:
        async for item in loop.run(request):
            items.append(item)
            if when(item):
                reached.set()

    task = asyncio.create_task(consume())
    waiting = asyncio.create_task(reached.wait())
    await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    assert not task.done(), f"the turn ended before the event: {items[-3:]}"
    cancelled_ns = now_ns()
    task.cancel()
    await asyncio.wait({task})
    assert task.cancelled()
    return Stopped(items, cancelled_ns, now_ns())
