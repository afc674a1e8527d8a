"""The offered tools' definitions in the window's turn: the pipeline lists the
conversation's tools before planning, so the plan's prompt estimate and predicted wait
hold the schemas' tokens (the demo server's tools), and a plain turn plans as before."""

from __future__ import annotations

from client.core.budget import estimate_tokens
from client.core.conversation import ChatMessage
from client.services.chat.session import ChatSession
from client.services.tools.server_settings import demo_tool_server
from client.services.tools.tool_servers import ToolServers
from client.services.tools.turn_tools import TurnTools
from tests.services.tools.loop_parts import MODEL, Approver, Lab

ASK = "Use add for 2 and 3."
ROOM = 20  # tokens of the budget left beside the chat: fewer than the tools take


def ttft(tokens: int) -> float:
    return 10.0 + tokens


async def test_the_tools_schemas_count_in_the_prompt_and_the_predicted_wait(
    tool_servers: ToolServers,
) -> None:
    async with Lab("ollama") as lab:
        plain = ChatSession(lab.backend, MODEL)
        plain.ttft_estimate = ttft
        without = plain.generate(None, ASK)
        [_ async for _ in without]
        await tool_servers.save(demo_tool_server())
        tooled = ChatSession(lab.backend, MODEL)
        tooled.ttft_estimate = ttft
        tooled.tools = TurnTools(tool_servers, None)
        tooled.tools.approver = Approver()
        with_tools = tooled.generate(None, ASK)
        [_ async for _ in with_tools]
    assert with_tools.tool_loop is not None and without.tool_loop is None
    schemas = with_tools.tool_loop.offer.schema_tokens()
    assert schemas > 0
    assert with_tools.plan is not None and without.plan is not None
    assert with_tools.plan.prompt_tokens == without.plan.prompt_tokens + schemas
    assert with_tools.plan.predicted_ttft_ms == without.plan.predicted_ttft_ms + schemas  # type: ignore[operator]


async def test_the_budget_cuts_the_history_with_the_tools_counted(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(demo_tool_server())
    async with Lab("ollama") as lab:
        session = ChatSession(lab.backend, MODEL)
        first = session.generate(None, "Hello there, how are you today?")
        [_ async for _ in first]
        assert first.plan is not None and first.finished is not None
        chat = [*first.plan.messages, ChatMessage("assistant", first.finished.text)]
        chat_tokens = sum(estimate_tokens(m) for m in [*chat, ChatMessage("user", ASK)])
        session.tools = TurnTools(tool_servers, None)
        session.tools.approver = Approver()
        session.tools.use_tools(first.conversation_id, True)
        session.configure(prompt_budget=chat_tokens + ROOM)  # the chat fits, not the tools
        later = session.generate(first.conversation_id, ASK)
        [_ async for _ in later]
    assert later.plan is not None and later.tool_loop is not None
    schemas = later.tool_loop.offer.schema_tokens()
    assert schemas > ROOM
    assert later.plan.cut.dropped == tuple(chat)  # the first turn made room for them
    assert later.plan.prompt_tokens == schemas + estimate_tokens(ChatMessage("user", ASK))
