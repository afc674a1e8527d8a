"""The window's turn with tools: the session's pipeline offers the conversation's MCP
tools, runs the loop inside the turn (approval -> tool -> the model again) and stores
each call and result with the answer as data (the lab's tool model, the demo server);
Continue and later turns send the model the calls and results that happened."""

from __future__ import annotations

import asyncio

from client.services.chat.session import ChatSession
from client.services.chat.session_events import Outcome, TurnState
from client.services.chat.tool_step import ToolCallShown
from client.services.chat.turn_state import StateChanged
from client.services.tools.approval import ApprovalChoice
from client.services.tools.loop import ApprovalAsk
from client.services.tools.loop_events import STOPPED_WHILE
from client.services.tools.server_settings import demo_tool_server
from client.services.tools.tool_servers import ToolServers
from client.services.tools.turn_tools import TurnTools
from client.store.conversations.tool_calls import ToolCallStore
from tests.services.tools.loop_parts import MODEL, Approver, Lab

ADD = "Use add for 2 and 3."


async def _session(lab: Lab, servers: ToolServers, approver: Approver) -> ChatSession:
    await servers.save(demo_tool_server())
    session = ChatSession(lab.backend, MODEL)
    session.tools = TurnTools(servers, None)
    session.tools.approver = approver
    return session


async def test_an_approved_call_runs_in_the_turn_and_is_stored(
    tool_servers: ToolServers,
) -> None:
    approver = Approver()
    async with Lab("ollama") as lab:
        session = await _session(lab, tool_servers, approver)
        generation = session.generate(None, ADD)
        events = [e async for e in generation]
    states = [e.state for e in events if isinstance(e, StateChanged)]
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.COMPLETE
    assert finished.text == "The tools answered: add gave 5.0."  # the model's words only
    assert TurnState.APPROVAL in states and TurnState.USING_TOOL in states
    assert generation.tool_ns > 0
    shown = [e.call.status for e in events if isinstance(e, ToolCallShown)]
    assert shown == ["ready", "waiting", "running", "done"]
    [call] = generation.tool_calls
    assert (call.name, call.arguments, call.result, call.is_error) == (
        "add",
        '{"a": 2, "b": 3}',
        "5.0",
        False,
    )
    assert call.server == "Tachy demo tools" and call.ms > 0 and call.at == 0
    answer = generation.assistant_message_id
    stored = session.history.get_message(answer)
    assert stored.content == finished.text  # survives a restart like any answer
    assert ToolCallStore(session.history.db).for_message(answer) == [call]


async def test_a_denied_call_tells_the_model(tool_servers: ToolServers) -> None:
    approver = Approver([ApprovalChoice.DENY])
    async with Lab("ollama") as lab:
        session = await _session(lab, tool_servers, approver)
        generation = session.generate(None, ADD)
        [_ async for _ in generation]
    assert generation.finished is not None
    [call] = generation.tool_calls
    assert (call.problem, call.result, call.is_error) == ("denied", "denied by the user", True)


async def test_stop_during_approval_keeps_the_words(tool_servers: ToolServers) -> None:
    approver = Approver(hold=True)
    async with Lab("ollama") as lab:
        session = await _session(lab, tool_servers, approver)
        generation = session.generate(None, ADD)
        asking = asyncio.Event()

        async def consume() -> None:
            async for event in generation:
                if isinstance(event, StateChanged) and event.state is TurnState.APPROVAL:
                    asking.set()

        task = asyncio.create_task(consume())
        await asking.wait()
        task.cancel()
        await asyncio.wait({task})
    assert approver.taken_away
    assert generation.finished is not None
    assert generation.finished.outcome is Outcome.STOPPED
    [call] = ToolCallStore(session.history.db).for_message(generation.assistant_message_id)
    assert (call.problem, call.result) == ("stopped", "stopped by the user before it ran")


async def test_stop_between_two_events_of_a_running_tool_keeps_it_stopped(
    tool_servers: ToolServers,
) -> None:
    """Stop lands while the consumer paints the running card, not while it waits on the
    turn: the tool step is closed with the turn, and its call kept as stopped."""
    async with Lab("ollama") as lab:
        session = await _session(lab, tool_servers, Approver())
        generation = session.generate(None, "Use slow_count for 30 and 300.")
        running = asyncio.Event()

        async def consume() -> None:  # as the window's runner consumes a turn
            try:
                async for event in generation:
                    if isinstance(event, ToolCallShown) and event.call.status == "running":
                        running.set()
                        await asyncio.Event().wait()  # (busy with it when Stop comes)
            except asyncio.CancelledError:
                await generation.abandon()
                raise

        task = asyncio.create_task(consume())
        await running.wait()
        task.cancel()
        await asyncio.wait({task})
    assert generation.finished is not None
    assert generation.finished.outcome is Outcome.STOPPED
    [call] = generation.tool_calls
    assert (call.problem, call.result) == ("stopped", STOPPED_WHILE)
    [stored] = ToolCallStore(session.history.db).for_message(generation.assistant_message_id)
    assert (stored.problem, stored.result) == ("stopped", STOPPED_WHILE)
    assert generation.running_tools == ()
    assert generation.tool_loop is not None  # its waterfall: the run ended at Stop
    [timing] = generation.tool_loop.figures.tool_calls
    assert timing.run_ended_ns is not None


async def test_without_tools_the_turn_is_plain(tool_servers: ToolServers) -> None:
    async with Lab("ollama") as lab:
        session = ChatSession(lab.backend, MODEL)
        session.tools = TurnTools(tool_servers, None)  # no server saved
        generation = session.generate(None, ADD)
        [_ async for _ in generation]
    assert generation.finished is not None
    assert generation.tool_calls == ()
    assert generation.tool_loop is None


async def test_retry_and_continue_work_on_a_turn_with_tools(tool_servers: ToolServers) -> None:
    approver = Approver()
    async with Lab("ollama") as lab:
        session = await _session(lab, tool_servers, approver)
        first = session.generate(None, ADD)
        [_ async for _ in first]
        assert first.assistant_message_id is not None
        again = session.retry(first.assistant_message_id)
        [_ async for _ in again]
        going_on = session.continue_message(first.assistant_message_id)
        [_ async for _ in going_on]
    assert again.finished is not None and again.finished.outcome is Outcome.COMPLETE
    assert [c.name for c in again.tool_calls] == ["add"]
    assert again.plan is not None  # afresh: the old answer's calls are not sent
    assert all(m.role != "tool" for m in again.plan.messages)
    assert going_on.finished is not None
    assert going_on.finished.outcome in (Outcome.COMPLETE, Outcome.STOPPED)
    assert going_on.finished.text.startswith(first.finished.text if first.finished else "")


class SlowUser(Approver):
    """Says yes after `think_s` (a person reading the card)."""

    think_s = 0.4

    async def __call__(self, ask: ApprovalAsk) -> ApprovalChoice:
        await asyncio.sleep(self.think_s)
        return await super().__call__(ask)


async def test_the_ttft_is_the_first_calls_never_the_approval(tool_servers: ToolServers) -> None:
    approver = SlowUser()
    async with Lab("ollama") as lab:
        session = await _session(lab, tool_servers, approver)
        generation = session.generate(None, ADD)
        [_ async for _ in generation]
    finished = generation.finished
    assert finished is not None and finished.metrics.ttft_ms is not None
    assert 0 < finished.metrics.ttft_ms < SlowUser.think_s * 1000
    assert finished.metrics.e2el_ms is not None  # the model's time: no approval in it
    assert finished.metrics.e2el_ms < SlowUser.think_s * 1000
    assert generation.tool_ns >= SlowUser.think_s * 1e9
    loop = generation.tool_loop
    assert loop is not None
    first_call = loop.figures.model_calls[0]
    assert generation.timeline.request_written_ns == first_call.written_ns


async def test_the_step_limit_is_said_plainly(tool_servers: ToolServers) -> None:
    approver = Approver()
    async with Lab("ollama") as lab:
        session = await _session(lab, tool_servers, approver)
        session.configure(max_model_calls=1)
        generation = session.generate(None, ADD)
        [_ async for _ in generation]
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.COMPLETE
    [call] = generation.tool_calls
    assert call.result == "not run: the turn reached its limit of 1 model calls"
    assert finished.text.rstrip().endswith("after 1 model calls, so Tachy stopped.")
    assert approver.asked == []  # nothing is asked that will not run


async def test_a_later_turn_sends_the_calls_and_results_that_happened(
    tool_servers: ToolServers,
) -> None:
    approver = Approver()
    async with Lab("vllm") as lab:
        session = await _session(lab, tool_servers, approver)
        first = session.generate(None, ADD)
        [_ async for _ in first]
        later = session.generate(first.conversation_id, "Thanks! And now?")
        [_ async for _ in later]
    [call] = first.tool_calls
    assert later.plan is not None  # its first model call's messages
    sent = later.plan.messages
    roles = [m.role for m in sent if m.role != "system"]
    assert roles[:4] == ["user", "assistant", "tool", "assistant"]
    asked = next(m for m in sent if m.tool_calls)
    assert asked.tool_calls[0].id == call.call_id and asked.tool_calls[0].name == "add"
    result = next(m for m in sent if m.role == "tool")
    assert (result.tool_call_id, result.content) == (call.call_id, "5.0")


async def test_continue_after_a_stop_sends_the_stopped_call(tool_servers: ToolServers) -> None:
    approver = Approver(hold=True)
    async with Lab("ollama") as lab:
        session = await _session(lab, tool_servers, approver)
        generation = session.generate(None, ADD)
        asking = asyncio.Event()

        async def consume() -> None:
            async for event in generation:
                if isinstance(event, StateChanged) and event.state is TurnState.APPROVAL:
                    asking.set()

        task = asyncio.create_task(consume())
        await asking.wait()
        task.cancel()
        await asyncio.wait({task})
        assert generation.assistant_message_id is not None
        approver.hold = False
        going_on = session.continue_message(generation.assistant_message_id)
        [_ async for _ in going_on]
    assert going_on.plan is not None
    *_, asked, told = going_on.plan.messages
    assert asked.role == "assistant" and asked.tool_calls[0].name == "add"
    assert told.role == "tool" and told.content == "stopped by the user before it ran"
    assert going_on.finished is not None and going_on.finished.outcome is Outcome.COMPLETE
    assert going_on.finished.text.startswith("The tools answered: add gave stopped")


async def test_a_lent_server_is_offered_everywhere_saved_nowhere_and_taken_back(
    tool_servers: ToolServers,
) -> None:
    """The Demo menu's demo tools: no server saved, yet the turn offers the lent one's
    tools, run without asking while `for_now` says so; taking it back stops it."""
    approver = Approver()
    tools = TurnTools(tool_servers, None)
    tools.approver = approver
    demo = demo_tool_server()
    tools.lend(demo)
    tool_servers.approval.for_now(demo.name, False)
    async with Lab("ollama") as lab:
        session = ChatSession(lab.backend, MODEL)
        session.tools = tools
        generation = session.generate(None, ADD)
        [e async for e in generation]
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.COMPLETE
    [call] = generation.tool_calls
    assert (call.name, call.result) == ("add", "5.0") and approver.asked == []
    assert tool_servers.saved.servers() == [] and tools.lent == [demo.name]
    assert tool_servers.state(demo.name).phase == "ready"
    tool_servers.approval.for_now(demo.name, True)
    assert tool_servers.approval.needs_asking(demo.name, "add")
    tool_servers.approval.always_allow(demo.name, "add")
    assert tool_servers.approval.needs_asking(demo.name, "add")  # asked, whatever is saved
    tool_servers.approval.for_now(demo.name, None)
    assert not tool_servers.approval.needs_asking(demo.name, "add")  # as saved again
    await tools.take_back(demo.name)
    assert tools.lent == [] and tool_servers.state(demo.name).phase == "idle"
    assert await tools.loop_for(None, 8) is None  # nothing offered any more
