"""Type-ahead and the prefix warm-up with the conversation's tools: once its servers were
started and listed, the next plan (WarmingPolicy.next_plan) carries the tools the turn's
first model call sends and counts their schemas, so a type-ahead read is the start of
the question sent on Enter (its slot pinned), and the warm-up's prompt starts as the
question's does. Before that (no server started), they plan without tools, as before.
A server that failed to start gives none, ahead as in the turn, until it is due to be
started again."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from client.core.conversation import ChatRequest
from client.services.chat.session import ChatSession
from client.services.events import EventBus
from client.services.servers.model_status import ServerPolicy
from client.services.tools import tool_servers as tool_servers_module
from client.services.tools.server_settings import DEMO_SERVER_NAME, StdioServer, demo_tool_server
from client.services.tools.tool_servers import ToolServers
from client.services.tools.turn_tools import TurnTools
from client.services.warming.type_ahead import READ_SLOT, SentRead, TypeAhead
from client.services.warming.warming_policy import WarmingPolicy
from tests.services.tools.loop_parts import MODEL, Approver, Lab

ASK = "Use add for 2 and 3."
DRAFT = "Use add for 2"


def recorded(backend: Any) -> list[ChatRequest]:
    """The requests the backend is asked to send, in order."""
    sent: list[ChatRequest] = []
    chat = backend.chat

    def recording(request: ChatRequest, *args: Any, **kwargs: Any) -> Any:
        sent.append(request)
        return chat(request, *args, **kwargs)

    backend.chat = recording
    return sent


def tooled(lab: Lab, servers: ToolServers) -> ChatSession:
    session = ChatSession(lab.backend, MODEL)
    session.tools = TurnTools(servers, None)
    session.tools.approver = Approver()
    return session


async def test_the_read_carries_the_known_tools_and_pins_the_turns_first_call(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(demo_tool_server())
    policy = WarmingPolicy()
    async with Lab("llamacpp") as lab:
        session = tooled(lab, tool_servers)
        assert session.tools is not None
        assert session.tools.offer_known_now(None) is None  # not started: not asked
        unknown = policy.next_plan(session, None, DRAFT)
        assert unknown.tools == ()
        listing = await tool_servers.listing([DEMO_SERVER_NAME])  # started, listed
        assert session.tools.offer_known_now(None) is not None
        plan = policy.next_plan(session, None, DRAFT)
        read = plan.request()
        ahead = TypeAhead()
        ahead._sent = SentRead(lab.backend.base_url, MODEL, READ_SLOT, read)  # as `read` notes
        session.slot_hint = ahead
        sent = recorded(lab.backend)
        turn = session.generate(None, ASK)
        [_ async for _ in turn]
    assert turn.tool_loop is not None and turn.plan is not None
    first = sent[0]
    assert read.tools and read.tools == first.tools == turn.tool_loop.offer.specs
    assert [tool.name for tool in read.tools] == [tool.name for tool in listing.tools]
    assert first.slot == READ_SLOT  # SentRead.starts matched: the read's slot
    schemas = turn.tool_loop.offer.schema_tokens()
    assert plan.prompt_tokens == unknown.prompt_tokens + schemas
    asked = policy.next_plan(session, None, ASK)  # the question as sent, planned ahead
    assert asked.prompt_tokens == turn.plan.prompt_tokens


async def test_the_warm_up_sends_the_known_tools_with_the_prefix(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(demo_tool_server())
    await tool_servers.listing([DEMO_SERVER_NAME])
    policy = WarmingPolicy()
    async with Lab("llamacpp") as lab:
        session = tooled(lab, tool_servers)
        policy.prefix_provider(lambda: (session, None, ""))
        sent = recorded(lab.backend)
        warming = policy.warmer.set_target(lab.backend, MODEL, policy=ServerPolicy.ONE_TOKEN)
        assert warming is not None
        await warming
        await policy.aclose()
    plan = policy.next_plan(session, None, "")
    assert plan.tools and sent and sent[0].tools == plan.tools
    assert sent[0].messages[:-1] == list(plan.prefix)


async def test_the_warmer_knows_the_tools_the_turns_prompt_was_cached_with(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(demo_tool_server())
    await tool_servers.listing([DEMO_SERVER_NAME])
    policy = WarmingPolicy()
    bus = EventBus()
    policy.subscribe(bus)
    async with Lab("llamacpp") as lab:
        session = tooled(lab, tool_servers)
        session.events = bus
        turn = session.generate(None, ASK)
        [_ async for _ in turn]
        await policy.aclose()
    cached = policy.warmer.cached_prompt()
    assert turn.plan is not None and turn.plan.tools
    assert cached is not None and cached.tools == turn.plan.tools
    assert cached.holds(turn.plan.messages, turn.plan.tools)
    assert not cached.holds(turn.plan.messages)  # the tools switched off: another start


async def test_a_reopened_conversations_last_question_is_planned_with_its_tools(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(demo_tool_server())
    await tool_servers.listing([DEMO_SERVER_NAME])
    async with Lab("llamacpp") as lab:
        session = tooled(lab, tool_servers)
        sent = recorded(lab.backend)
        turn = session.generate(None, ASK)
        [_ async for _ in turn]
        assert turn.conversation_id is not None and turn.plan is not None
        again = session.plan_of_last_question(turn.conversation_id)
    assert again is not None and again.tools == sent[0].tools != ()
    assert again.prompt_tokens == turn.plan.prompt_tokens  # its budget marker, as sent


def exits_at_once(name: str = "broken") -> StdioServer:
    """A stdio command that ends before it answers: it fails to start."""
    return StdioServer(name, sys.executable, ("-c", "raise SystemExit(3)"))


async def test_a_server_that_failed_to_start_leaves_the_others_tools_known(
    tool_servers: ToolServers,
) -> None:
    await tool_servers.save(demo_tool_server())
    await tool_servers.save(exits_at_once())
    listed = await tool_servers.listing([DEMO_SERVER_NAME, "broken"])
    assert set(listed.problems) == {"broken"} and listed.tools
    policy = WarmingPolicy()
    async with Lab("llamacpp") as lab:
        session = tooled(lab, tool_servers)
        assert session.tools is not None
        known = tool_servers.known_listing([DEMO_SERVER_NAME, "broken"])
        assert known is not None and known.tools == listed.tools
        assert known.problems == listed.problems  # the same sentence, read from its state
        read = policy.next_plan(session, None, DRAFT).request()
        sent = recorded(lab.backend)
        turn = session.generate(None, ASK)
        [_ async for _ in turn]
    assert turn.tool_loop is not None and tool_servers.state("broken").phase == "failed"
    assert read.tools and read.tools == sent[0].tools == turn.tool_loop.offer.specs


async def test_a_failed_server_due_to_be_started_again_is_not_known_yet(
    tool_servers: ToolServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool_servers_module, "RETRY_AFTER_S", 0.0)  # the next turn retries it
    await tool_servers.save(demo_tool_server())
    await tool_servers.save(exits_at_once())
    await tool_servers.listing([DEMO_SERVER_NAME, "broken"])
    assert tool_servers.state("broken").phase == "failed"
    assert tool_servers.known_listing([DEMO_SERVER_NAME, "broken"]) is None
    assert tool_servers.known_listing([DEMO_SERVER_NAME]) is not None
