"""The tool loop against real parts: the lab's tool-calling models (Ollama's whole calls,
also on the done line; vLLM's interleaved parallel deltas; llama-server's) and the demo
MCP server over stdio, through ToolServers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from client.core.conversation import ChatRequest
from client.core.events import Done, Token, ToolCallsRequested
from client.services.tools import loop_events as ev
from client.services.tools.approval import DENIED_BY_USER, ApprovalChoice
from client.services.tools.loop import STEP_LIMIT_KEY, ToolLoop, step_limit
from client.services.tools.server_settings import DEMO_SERVER_NAME, demo_tool_server
from client.services.tools.tool_offer import ToolOffer, conversation_offer
from client.services.tools.tool_servers import ToolServers
from client.services.tools.tool_types import ToolInfo
from client.store.db import Database
from client.store.settings import Settings
from tests.services.tools.conftest import http_test_server
from tests.services.tools.loop_parts import (
    Approver,
    Lab,
    demo_offer,
    question,
    stop_when,
    whole_turn,
)

ADD = "Use add for 2 and 3."


@pytest.mark.parametrize("dialect", ["ollama", "ollama-done-line", "llamacpp"])
async def test_an_approved_call_runs_and_the_model_reads_its_result(
    tool_servers: ToolServers, dialect: str
) -> None:
    offer = await demo_offer(tool_servers)
    approver = Approver()
    async with Lab(dialect) as lab:
        loop = lab.loop(tool_servers, offer, approver)
        items = await whole_turn(loop, question(ADD))
    assert isinstance(loop.outcome, ev.Answered)
    assert loop.outcome.done.text == "The tools answered: add gave 5.0."
    called, result, answer = loop.transcript
    assert [(c.name, c.arguments) for c in called.tool_calls] == [("add", {"a": 2, "b": 3})]
    assert (result.role, result.content, result.tool_call_id) == (
        "tool", "5.0", called.tool_calls[0].id,
    )  # fmt: skip
    assert answer.content == loop.outcome.done.text
    # Asked only once the model's message ended with the call complete.
    kinds = [type(item) for item in items]
    assert kinds.index(ToolCallsRequested) < kinds.index(ev.ApprovalWaiting)
    assert [(a.server, a.call.name) for a in approver.asked] == [(DEMO_SERVER_NAME, "add")]
    finished = next(i for i in items if isinstance(i, ev.ToolFinished))
    assert (finished.is_error, finished.size, finished.ms > 0) == (False, 3, True)
    starts = [i.step for i in items if isinstance(i, ev.ModelCallStarting)]
    assert starts == [1, 2] and isinstance(items[-1], ev.LoopEnded)
    figures = loop.figures
    assert figures.model_calls[1].ttft_ms is not None  # the model's prefill of the result
    assert figures.tool_calls[0].run_ms > 0 and figures.tool_calls[0].approval_ms >= 0
    assert figures.as_dict()["tool_calls"] == 1


@pytest.mark.parametrize("dialect", ["vllm-interleaved", "ollama-done-line"])
async def test_parallel_calls_each_get_their_result_in_order(
    tool_servers: ToolServers, dialect: str
) -> None:
    offer = await demo_offer(tool_servers)
    async with Lab(dialect) as lab:
        loop = lab.loop(tool_servers, offer, Approver())
        text = "Use add for 2 and 3, then slow_count for 0.1 seconds in 2 steps."
        items = await whole_turn(loop, question(text))
    called = loop.transcript[0]
    assert [c.name for c in called.tool_calls] == ["add", "slow_count"]
    results = [m.content for m in loop.transcript[1:3]]
    assert results == ["5.0", "counted to 2 in 0.1 s"]
    assert [m.tool_call_id for m in loop.transcript[1:3]] == [c.id for c in called.tool_calls]
    progress = [i.progress.message for i in items if isinstance(i, ev.ToolProgressed)]
    assert progress[-1] == "step 2 of 2"
    assert isinstance(loop.outcome, ev.Answered)


async def test_a_denied_call_tells_the_model_and_nothing_runs(tool_servers: ToolServers) -> None:
    offer = await demo_offer(tool_servers)
    async with Lab("ollama") as lab:
        loop = lab.loop(tool_servers, offer, Approver([ApprovalChoice.DENY]))
        items = await whole_turn(loop, question(ADD))
    result = loop.transcript[1]
    assert (result.role, result.content) == ("tool", DENIED_BY_USER)
    assert not any(isinstance(i, ev.ToolRunning) for i in items)
    finished = next(i for i in items if isinstance(i, ev.ToolFinished))
    assert (finished.is_error, finished.problem, finished.ms) == (True, "denied", 0.0)
    assert isinstance(loop.outcome, ev.Answered)
    assert loop.outcome.done.text == f"The tools answered: add gave {DENIED_BY_USER}."


async def test_always_allow_is_not_asked_again(tool_servers: ToolServers) -> None:
    offer = await demo_offer(tool_servers)
    approver = Approver([ApprovalChoice.ALWAYS_ALLOW])
    async with Lab("vllm") as lab:
        await whole_turn(lab.loop(tool_servers, offer, approver), question(ADD))
        second = lab.loop(tool_servers, offer, approver)
        items = await whole_turn(second, question(ADD))
    assert len(approver.asked) == 1
    given = next(i for i in items if isinstance(i, ev.ApprovalGiven))
    assert given.choice is None  # nobody was asked
    assert second.transcript[1].content == "5.0"
    assert not tool_servers.approval.needs_asking(DEMO_SERVER_NAME, "add")
    assert tool_servers.approval.needs_asking(DEMO_SERVER_NAME, "fail")
    assert not second.will_ask("add") and second.will_ask("fail")  # the card follows these
    assert not second.will_ask("no_such_tool")  # answered with an error, never asked


async def test_a_tools_error_goes_back_to_the_model_marked(tool_servers: ToolServers) -> None:
    offer = await demo_offer(tool_servers)
    async with Lab("ollama") as lab:
        loop = lab.loop(tool_servers, offer, Approver())
        items = await whole_turn(loop, question("Use fail because of Rain."))
    finished = next(i for i in items if isinstance(i, ev.ToolFinished))
    assert finished.is_error and finished.result.content.endswith("Rain")
    assert loop.transcript[1].content == finished.result.content
    assert isinstance(loop.outcome, ev.Answered)  # the turn goes on


async def test_a_call_to_a_server_that_is_gone_is_an_error_result(
    tool_servers: ToolServers,
) -> None:
    gone = ToolOffer([ToolInfo("gone", "add", "Add two numbers.", {"type": "object"})])
    async with Lab("ollama") as lab:
        loop = lab.loop(tool_servers, gone, Approver())
        items = await whole_turn(loop, question(ADD))
    finished = next(i for i in items if isinstance(i, ev.ToolFinished))
    assert finished.is_error and finished.problem == "server"
    assert finished.result.content == "There is no tool server called gone."
    assert isinstance(loop.outcome, ev.Answered)


async def test_the_step_limit_ends_the_turn_plainly(tool_servers: ToolServers) -> None:
    offer = await demo_offer(tool_servers)
    approver = Approver()
    async with Lab("ollama-done-line") as lab:
        loop = lab.loop(tool_servers, offer, approver, step_limit=1)
        items = await whole_turn(loop, question(ADD))
    assert loop.outcome == ev.StepLimitReached(1)
    assert loop.outcome.sentence.startswith("The model still called tools after 1 model calls")
    assert not approver.asked
    called, result = loop.transcript
    assert called.tool_calls and result.content.startswith("not run: the turn reached its limit")
    assert isinstance(items[-1], ev.LoopEnded) and items[-1].outcome == loop.outcome
    assert len([i for i in items if isinstance(i, Done)]) == 1
    assert not any(isinstance(i, Token) for i in items)


# --- Stop: the task cancelled at each point ------------------------------------------


async def test_stop_during_the_approval_takes_the_question_away(tool_servers: ToolServers) -> None:
    offer = await demo_offer(tool_servers)
    approver = Approver(hold=True)
    async with Lab("vllm-interleaved") as lab:
        loop = lab.loop(tool_servers, offer, approver)
        text = "Use add for 2 and 3, then slow_count for 0.1 seconds in 2 steps."
        stopped = await stop_when(loop, question(text), _is(ev.ApprovalWaiting))
    assert approver.taken_away and len(approver.asked) == 1
    assert loop.stopped and loop.outcome is None
    called, *results = loop.transcript
    assert [c.name for c in called.tool_calls] == ["add", "slow_count"]
    assert [r.content for r in results] == [ev.STOPPED_BEFORE, ev.STOPPED_BEFORE]
    assert loop.figures.tool_calls[0].approval_ms > 0  # the wait, kept apart from latency
    assert not any(isinstance(i, ev.ToolRunning) for i in stopped.items)


async def test_stop_during_a_slow_tool_cancels_it(tool_servers: ToolServers) -> None:
    offer = await demo_offer(tool_servers)
    async with Lab("ollama") as lab:
        loop = lab.loop(tool_servers, offer, Approver())
        text = "Use slow_count for 60 seconds in 600 steps."
        stopped = await stop_when(loop, question(text), _is(ev.ToolProgressed))
    assert [m.content for m in loop.transcript[1:]] == [ev.STOPPED_WHILE]
    assert loop.figures.tool_calls[0].run_ms > 0
    assert not any(isinstance(i, ev.ToolFinished) for i in stopped.items)
    # The server heard the cancel and goes on: the next call answers.
    again = await tool_servers.call(DEMO_SERVER_NAME, "add", {"a": 1, "b": 1})
    assert again.text == "2.0"


async def test_stop_during_the_second_model_call_keeps_its_words(
    tool_servers: ToolServers,
) -> None:
    offer = await demo_offer(tool_servers)
    async with Lab("vllm", tpot_ms=200) as lab:
        loop = lab.loop(tool_servers, offer, Approver())
        stopped = await stop_when(loop, question(ADD), _is(Token))
    assert [s.step for s in stopped.items if isinstance(s, ev.ModelCallStarting)] == [1, 2]
    called, result, partial = loop.transcript
    assert called.tool_calls and result.content == "5.0"
    assert partial.role == "assistant" and "The tools answered: add gave 5.0.".startswith(
        partial.content
    )
    assert partial.content  # the words that arrived
    assert loop.figures.model_calls[1].ended_ns is not None


def _is(kind: type) -> Callable[[object], bool]:
    return lambda item: isinstance(item, kind)


def test_tool_time_counts_parallel_runs_once() -> None:
    figures = ev.LoopFigures()
    for start, end in ((0, 10_000_000), (2_000_000, 6_000_000), (12_000_000, 13_000_000)):
        timing = ev.ToolCallTiming(1, f"call_{start}", "add")
        timing.run_started_ns, timing.run_ended_ns = start, end
        figures.tool_calls.append(timing)
    assert figures.tools_ms == 11.0


async def test_a_streamable_http_servers_tool_through_the_loop(
    tool_servers: ToolServers, http_url: str
) -> None:
    await tool_servers.save(http_test_server(http_url))
    offer = ToolOffer.of(await tool_servers.listing(["remote"]))
    approver = Approver()
    async with Lab("ollama-done-line") as lab:
        loop = lab.loop(tool_servers, offer, approver)
        await whole_turn(loop, question(ADD))
    assert [a.server for a in approver.asked] == ["remote"]
    assert loop.transcript[1].content == "5.0"
    assert isinstance(loop.outcome, ev.Answered)


def test_the_step_limit_is_a_setting(db: Database) -> None:
    settings = Settings(db)
    assert step_limit(settings) == ev.STEP_LIMIT == 8
    settings.set(STEP_LIMIT_KEY, 3)
    assert step_limit(settings) == 3
    settings.set(STEP_LIMIT_KEY, 0)
    assert step_limit(settings) == 8


async def test_a_call_made_after_a_result_is_asked_about_again(tool_servers: ToolServers) -> None:
    """A result is data, never a permission: the model's next call needs its own yes.
    (The model is shown only the question each time, so it calls add again.)"""
    offer = await demo_offer(tool_servers)
    approver = Approver()
    async with Lab("ollama") as lab:

        def forgetful(request: ChatRequest) -> Any:
            return lab.backend.chat(replace(request, messages=request.messages[:1]))

        loop = ToolLoop(forgetful, offer, tool_servers, approver, step_limit=3)
        await whole_turn(loop, question(ADD))
    assert [a.step for a in approver.asked] == [1, 2]
    assert loop.outcome == ev.StepLimitReached(3)
    assert [m.role for m in loop.transcript] == ["assistant", "tool"] * 3


async def test_the_offer_is_the_conversations_enabled_servers(tool_servers: ToolServers) -> None:
    await tool_servers.save(demo_tool_server())
    offer, problems = await conversation_offer(tool_servers, None)
    assert not problems
    assert [spec.name for spec in offer.specs] == ["add", "slow_count", "fail", "hang", "die"]
    found = offer.find("add")
    assert found is not None and (found.server, found.tool) == (DEMO_SERVER_NAME, "add")


async def test_a_pipeline_can_make_the_model_calls_itself(tool_servers: ToolServers) -> None:
    """The step API: start_call -> the caller's own stream, each event heard -> end_call."""
    offer = await demo_offer(tool_servers)
    async with Lab("vllm") as lab:
        loop = ToolLoop(None, offer, tool_servers, Approver())
        ended: list[object] = []
        while loop.outcome is None:
            asked, _ = loop.start_call(question(ADD))
            async with lab.backend.chat(asked) as stream:
                async for event in stream:
                    loop.hear(event)
            ended += [item async for item in loop.end_call(stream.outcome)]
    assert isinstance(loop.outcome, ev.Answered) and loop.step == 2
    assert [m.content for m in loop.transcript[1:]] == ["5.0", loop.outcome.done.text]
    assert isinstance(ended[-1], ev.LoopEnded)
    assert loop.figures.model_calls[1].ttft_ms is not None
