"""A Continue that makes new tool calls: the partial answer and the model's new words
and calls are one assistant message (content + tool_calls), then the tools' results, as
each wire expects, on the later model call of the turn and on every later turn alike
(client/services/tools/tool_history.py lays the stored answer out the same way)."""

from __future__ import annotations

from typing import Any

import pytest

from client.backends.kinds.ollama.body import chat_body as ollama_body
from client.backends.kinds.openai.body import chat_body as openai_body
from client.core.conversation import ChatRequest
from client.services.chat.session import ChatSession
from client.services.tools.server_settings import demo_tool_server
from client.services.tools.tool_servers import ToolServers
from client.services.tools.turn_tools import TurnTools
from tests.services.tools.loop_parts import MODEL, Approver, Lab

ADD = "Use add for 2 and 3."

WIRES = [  # dialect, the session's continue_final_message, its body
    ("ollama", None, ollama_body),  # Ollama continues a trailing assistant message
    ("vllm", True, openai_body),  # vLLM's continue_final_message
    ("vllm", None, openai_body),  # another OpenAI server: a prompt asks it to go on
]


@pytest.mark.parametrize(("dialect", "flag", "body_of"), WIRES)
async def test_a_continue_that_calls_tools_sends_one_assistant_message(
    tool_servers: ToolServers, dialect: str, flag: bool | None, body_of: Any
) -> None:
    await tool_servers.save(demo_tool_server())
    async with Lab(dialect) as lab:
        sent: list[ChatRequest] = []
        chat = lab.backend.chat

        def heard(request: ChatRequest, *more: Any) -> Any:
            sent.append(request)  # each model call's request, as the backend gets it
            return chat(request, *more)

        lab.backend.chat = heard
        session = ChatSession(lab.backend, MODEL)
        session.configure(continue_final_message=flag)
        first = session.generate(None, ADD)  # no tools yet: words only
        [_ async for _ in first]
        assert first.finished is not None and first.assistant_message_id is not None
        partial = first.finished.text
        session.tools = TurnTools(tool_servers, None)
        session.tools.approver = Approver()
        session.tools.use_tools(first.conversation_id, True)
        going_on = session.continue_message(first.assistant_message_id)
        [_ async for _ in going_on]
        continued = sent[-1]  # its model call after the tools
        later = session.generate(first.conversation_id, "Thanks!")
        [_ async for _ in later]
    [call] = going_on.tool_calls
    assert going_on.finished is not None
    assert later.plan is not None
    for request in (continued, later.plan.request()):  # the Continue's later call; the next turn
        body = body_of(request)
        assert "continue_final_message" not in body
        roles = [m["role"] for m in body["messages"]]
        assert ["assistant", "assistant"] not in [roles[i : i + 2] for i in range(len(roles))]
        [asked] = [m for m in body["messages"] if m.get("tool_calls")]
        assert asked["role"] == "assistant" and asked["content"].startswith(partial)
        assert asked["tool_calls"][0]["function"]["name"] == "add"
        told = body["messages"][body["messages"].index(asked) + 1]
        assert told["role"] == "tool" and told["content"] == call.result
