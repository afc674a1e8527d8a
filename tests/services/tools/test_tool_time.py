"""Tool time as a stage, from real turns (the lab's tool model, the demo MCP server over
stdio through the official SDK): the HUD keeps the first model call's TTFT as the
turn's and gives the tool runs a row of their own; the waterfall has a row per model
call and per tool call (parallel calls each their own), stored and read back the same;
the approval's wait is never latency; the server's progress reaches the turn."""

from __future__ import annotations

import asyncio

import pytest

from client.services.chat.session import ChatSession
from client.services.events import EventBus
from client.services.hud.hud_feed import HudFeed
from client.services.hud.hud_model import TOOL_RUN, RequestBook, record_from_stored
from client.services.hud.waterfall import APPROVAL_SIDE, TOOL_SIDE, build_waterfall
from client.services.tools import loop_events as ev
from client.services.tools.approval import ApprovalChoice
from client.services.tools.call_records import ToolTime, tool_time
from client.services.tools.loop import ApprovalAsk
from client.services.tools.server_settings import demo_tool_server
from client.services.tools.tool_servers import ToolServers
from client.services.tools.turn_tools import TurnTools
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from client.store.stage_records import (
    MODEL_CALL,
    TOOL_CALL,
    TOOL_SERVERS,
    ModelCallPart,
    StageRecord,
    ToolCallPart,
)
from tests.services.tools.loop_parts import MODEL, Approver, Lab

pytestmark = pytest.mark.timeout(120)

PARALLEL = "Use add for 2 and 3 and slow_count for 0.3 and 3."  # two calls in one step
THINK_S = 0.2  # the user reads each card this long before Allow


class SlowUser(Approver):
    async def __call__(self, ask: ApprovalAsk) -> ApprovalChoice:
        await asyncio.sleep(THINK_S)
        return await super().__call__(ask)


def _session(lab: Lab, db: Database, servers: ToolServers, approver: Approver) -> ChatSession:
    session = ChatSession(lab.backend, MODEL, HistoryStore(db), MetricsStore(db), "lab")
    session.tools = TurnTools(servers, None)
    session.tools.approver = approver
    return session


@pytest.mark.parametrize("dialect", ["ollama", "vllm-interleaved"])
async def test_a_parallel_tool_turn_in_the_hud_and_its_waterfall(
    db: Database, tool_servers: ToolServers, dialect: str
) -> None:
    await tool_servers.save(demo_tool_server())
    bus = EventBus()
    feed = HudFeed(bus)
    async with Lab(dialect) as lab:
        session = _session(lab, db, tool_servers, SlowUser())
        session.events = bus
        generation = session.generate(None, PARALLEL)
        [_ async for _ in generation]
    finished, loop, record = generation.finished, generation.tool_loop, feed.last
    assert finished is not None and loop is not None and record is not None
    first, second = loop.figures.model_calls
    add, slow = loop.figures.tool_calls
    assert (add.name, slow.name, add.step, slow.step) == ("add", "slow_count", 1, 1)

    # The HUD's TTFT is the first model call's: never the approval, a tool or the
    # model's second prefill.
    assert record.ttft_ms == finished.metrics.ttft_ms
    assert record.ttft_ms is not None and first.ttft_ms is not None
    assert record.ttft_ms == pytest.approx(first.ttft_ms, abs=1.0)
    assert second.written_ns is not None and first.written_ns is not None
    assert record.ttft_ms < (second.written_ns - first.written_ns) / 1e6
    stats = RequestBook().stats([record])
    ttft = stats.summaries["ttft_ms"]
    assert ttft is not None and ttft.median == record.ttft_ms

    # The tool runs' own row: each call's run, and the share of the turn in tools.
    runs = stats.summaries[TOOL_RUN]
    assert runs is not None and runs.n == 2
    assert sorted(record.tool_runs_ms) == pytest.approx(sorted([add.run_ms, slow.run_ms]), abs=0.01)
    assert runs.median == pytest.approx((add.run_ms + slow.run_ms) / 2, abs=0.01)
    assert stats.tool_turns == 1 and stats.tools_share is not None
    assert 0 < stats.tools_share < 1
    # Parallel runs are one tool stage until the last one ends: the slow run is out of
    # the model's figures, and so is the approval.
    assert generation.tool_ns / 1e6 >= slow.run_ms + 2 * THINK_S * 1000
    spent = record.tools
    assert spent is not None and finished.metrics.e2el_ms is not None
    assert spent.tools_ms >= slow.run_ms and spent.approval_ms >= 2 * THINK_S * 1000
    assert finished.metrics.e2el_ms <= spent.whole_ms - spent.tools_ms + 1.0

    _check_waterfall_rows(record, (second.first_output_ns or 0) - (second.written_ns or 0))
    if dialect == "vllm-interleaved":  # the arguments came in fragments, the calls' mixed
        assert add.arguments_ms > 0 and slow.arguments_ms > 0
        assert add.opened_ns and slow.opened_ns and slow.opened_ns < (add.ready_ns or 0)
    # Stored with the turn's stages and read back the same (the HUD's history).
    [stored] = session.metrics_store.for_messages([finished.message_id])[finished.message_id]
    again = record_from_stored(stored)
    assert [r.text for r in build_waterfall(again).rows] == [
        r.text for r in build_waterfall(record).rows
    ]
    assert again.tool_runs_ms == pytest.approx(record.tool_runs_ms, abs=0.01)
    feed.close()
    session.close()


def _check_waterfall_rows(record: object, second_ttft_ns: int) -> None:
    fall = build_waterfall(record)  # type: ignore[arg-type]
    texts = [row.text for row in fall.rows]
    for call in ("add", "slow_count"):  # each call its own rows, though they ran together
        assert f"{call} · arguments streamed" in texts
    assert "add · run · result 3 characters" in texts
    assert "slow_count · run · result 21 characters" in texts  # "counted to 3 in 0.3 s"
    asked = [row for row in fall.rows if row.side == APPROVAL_SIDE]
    assert len(asked) == 2 and all(r.end_ms - r.start_ms >= THINK_S * 1000 for r in asked)
    assert len([row for row in fall.rows if " · run · " in row.text]) == 2
    assert ["model call 1", "model call 2"] == [
        t for t in texts if t.startswith("model call") and "·" not in t
    ]
    [read] = [row for row in fall.rows if row.text == "model call 2 · reading the results"]
    # Its second TTFT: to the first token's arrival (the loop heard it a little later).
    assert 0 < read.end_ms - read.start_ms <= second_ttft_ns / 1e6 + 0.01
    # The first turn started the demo server: a wait of the tools', before the request.
    [ready] = [row for row in fall.rows if row.text == "tool servers ready"]
    assert ready.side == TOOL_SIDE and ready.start_ms < ready.end_ms <= 0
    # The calls' rows say what the turn did after its first call: no state rows for it.
    assert "Waiting for your approval" not in texts and "Using a tool" not in texts
    last = next(row for row in fall.rows if row.text == "last token")
    assert last.start_ms >= read.end_ms  # the real stamp, after the tools


async def test_the_servers_progress_reaches_the_turn(
    db: Database, tool_servers: ToolServers
) -> None:
    await tool_servers.save(demo_tool_server())
    heard: list[tuple[str, float, float | None]] = []
    async with Lab("ollama") as lab:
        session = _session(lab, db, tool_servers, Approver())
        generation = session.generate(None, "Use slow_count for 0.4 and 4.")
        async for event in generation:
            if isinstance(event, ev.ToolProgressed):
                [running] = generation.running_tools
                assert running.progress is not None
                heard.append((running.name, running.progress.progress, running.progress.total))
    assert heard == [("slow_count", step, 4) for step in (1, 2, 3, 4)]
    assert generation.running_tools == ()  # the run ended with the step
    session.close()


async def test_a_tool_stopped_while_it_ran_keeps_its_run_in_the_waterfall(
    db: Database, tool_servers: ToolServers
) -> None:
    await tool_servers.save(demo_tool_server())
    bus = EventBus()
    feed = HudFeed(bus)
    async with Lab("ollama") as lab:
        session = _session(lab, db, tool_servers, Approver())
        session.events = bus
        generation = session.generate(None, "Use slow_count for 30 and 300.")
        counting = asyncio.Event()

        async def consume() -> None:
            async for event in generation:
                if isinstance(event, ev.ToolProgressed) and event.progress.progress >= 2:
                    counting.set()

        task = asyncio.create_task(consume())
        await counting.wait()
        task.cancel()
        await asyncio.wait({task})
    record = feed.last
    assert record is not None and record.outcome == "stopped"
    rows = {row.text: row for row in build_waterfall(record).rows}
    run = rows[f"slow_count · run · error, {len(ev.STOPPED_WHILE)} characters"]
    assert run.side == TOOL_SIDE and run.end_ms > run.start_ms  # it ran until Stop
    assert record.tool_runs_ms == [run.end_ms - run.start_ms]
    feed.close()
    session.close()


def test_the_turns_time_in_tools_counts_the_servers_start_and_parallel_runs_once() -> None:
    run = ToolCallPart(1, "add", "demo", (10.0, 12.0), (12.0, 512.0), (512.0, 612.0), 3)
    beside = ToolCallPart(1, "slow_count", "demo", None, None, (520.0, 820.0), 21)
    records = [
        StageRecord("queued", -1200.0, 0.0),
        StageRecord(TOOL_SERVERS, -1000.0, -200.0),  # the demo server started: 800 ms
        StageRecord(MODEL_CALL, -1.0, 12.0, model_call=ModelCallPart(1, 0.0, 10.0, 11.0)),
        StageRecord(TOOL_CALL, 10.0, 612.0, tool_call=run),
        StageRecord(TOOL_CALL, 520.0, 820.0, tool_call=beside),
        StageRecord(MODEL_CALL, 821.0, 900.0, model_call=ModelCallPart(2, 822.0, 850.0, 899.0)),
    ]
    spent = tool_time(records)
    assert spent == ToolTime(whole_ms=1600.0, tools_ms=1108.0, approval_ms=500.0)
    assert spent.share == pytest.approx(1108 / 1600)
    assert tool_time(records[:3]) is None  # no tool was called
