"""A turn with tools in the HUD: the Requests tab's tool-run column and its share of
the turns' time in tools (shown only while tools ran), and the waterfall's rows per
model call and tool call, the approval's wait hatched apart, in English and Chinese."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from client.core.events import TokenKind
from client.core.timeline import RequestTimeline, now_ns
from client.services.chat.session_events import Stage
from client.services.hud.hud_model import HudRecord
from client.services.hud.waterfall import APPROVAL_SIDE
from client.services.tools.call_records import tool_time
from client.store.stage_records import (
    MODEL_CALL,
    TOOL_CALL,
    ModelCallPart,
    StageRecord,
    ToolCallPart,
)
from client.ui.hud import LatencyHud
from client.ui.hud.tabs.requests_view import COLUMNS
from client.ui.hud.tabs.waterfall_view import row_label

TOOL_COLUMN = COLUMNS.index("tool_run_ms")


def _tool_turn(at: float = 1_800_000_000.0) -> HudRecord:
    """Two parallel calls: add (120 ms) and slow_count (300 ms), 400 ms of approval each."""
    add = ToolCallPart(1, "add", "demo", (20.0, 22.0), (25.0, 425.0), (830.0, 950.0), 3)
    slow = ToolCallPart(1, "slow_count", "demo", (21.0, 22.0), (425.0, 825.0), (831.0, 1131.0), 21)
    calls = [
        StageRecord(MODEL_CALL, -2.0, 24.0, model_call=ModelCallPart(1, 0.0, 20.0, 22.0)),
        StageRecord(MODEL_CALL, 1132.0, 1200.0,
                    model_call=ModelCallPart(2, 1133.0, 1160.0, 1199.0)),
        StageRecord(TOOL_CALL, 20.0, 950.0, tool_call=add),
        StageRecord(TOOL_CALL, 21.0, 1131.0, tool_call=slow),
    ]  # fmt: skip
    return HudRecord(
        time=at, model="m", ttft_ms=20.0, e2el_ms=100.0, outcome="complete", calls=calls,
        tools=tool_time(calls),
    )  # fmt: skip


@pytest.fixture
def hud(qtbot: Any) -> LatencyHud:
    widget = LatencyHud()
    qtbot.addWidget(widget)
    widget.resize(420, 600)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_tool_runs_get_their_own_column_beside_the_first_calls_ttft(hud: LatencyHud) -> None:
    table = hud.requests.table
    assert table.isColumnHidden(TOOL_COLUMN) and hud.requests.tools_line.isHidden()
    hud.add_reply(_tool_turn())
    assert not table.isColumnHidden(TOOL_COLUMN)
    header = table.horizontalHeaderItem(TOOL_COLUMN)
    assert header is not None and header.text() == "Tool run (ms)"
    column = [table.item(row, TOOL_COLUMN).text() for row in range(3)]
    assert column == ["2", "210.0", "210.0"]  # n, mean, P50 of the two runs
    assert table.item(0, 0).text() == "1" and table.item(2, 0).text() == "20.0"  # the TTFT's
    # 301 ms while any tool ran, of the turn's 1,202 ms less the 800 ms of approval
    assert hud.requests.tools_line.text() == "Time in tools: 75% of 1 turn with tools"
    assert not hud.requests.tools_line.isHidden()


def test_the_waterfall_has_a_row_per_model_call_and_tool_call(hud: LatencyHud) -> None:
    hud.add_reply(_tool_turn())
    rows = hud.waterfall.row_texts()
    assert "model call 1 26.0 ms" in rows and "model call 2 68.0 ms" in rows
    assert "model call 2 · reading the results 27.0 ms" in rows  # its second TTFT
    assert "add · arguments streamed 2.0 ms" in rows
    assert "slow_count · waiting for your approval (not latency) 400.0 ms" in rows
    assert "slow_count · run · result 21 characters 300.0 ms" in rows
    assert "last token @ 1,199.0 ms" in rows  # the stamp, not the model-only e2el
    caption = hud.waterfall.caption.text()
    assert "Tool runs: 2 · 301.0 ms running · approval 800.0 ms, not latency" in caption
    waterfall = hud.waterfall.waterfall
    assert waterfall is not None
    brushes = hud.waterfall.bars.opts["brushes"]
    hatched = [
        brush.style() == Qt.BrushStyle.BDiagPattern
        for brush, row in zip(brushes, waterfall.rows, strict=True)
        if row.side == APPROVAL_SIDE
    ]
    assert hatched == [True, True]


def test_the_tool_rows_in_chinese(chinese: None, hud: LatencyHud) -> None:
    hud.add_reply(_tool_turn())
    waterfall = hud.waterfall.waterfall
    assert waterfall is not None
    labels = [row_label(row) for row in waterfall.rows]
    assert "slow_count · 运行 · 结果 21 个字符" in labels
    assert "第 2 次模型调用 · 读取工具结果" in labels
    assert hud.requests.tools_line.text() == "工具用时：在 1 个调用工具的回合中占 75%"


def _followed(hud: LatencyHud, written_ns: int) -> RequestTimeline:
    timeline = RequestTimeline()
    timeline.request_written_ns = written_ns
    hud.request_started(timeline, "m", "s")
    hud.follow(timeline)
    return timeline


def test_the_live_view_leaves_the_tools_time_out_of_its_gaps(hud: LatencyHud) -> None:
    ms = 1_000_000
    t0 = now_ns() - 10_000 * ms
    timeline = _followed(hud, t0)
    timeline.mark_token(TokenKind.ANSWER, 5, t0 + 10 * ms)
    timeline.mark_token(TokenKind.ANSWER, 5, t0 + 20 * ms)
    timeline.enter_stage(Stage.APPROVAL.value, t0 + 30 * ms)  # the user reads the card 2 s
    timeline.enter_stage(Stage.USING_TOOL.value, t0 + 2030 * ms)  # the tool runs 3 s
    timeline.enter_stage(Stage.UNDERSTANDING.value, t0 + 5030 * ms)
    timeline.mark_token(TokenKind.ANSWER, 5, t0 + 5040 * ms)
    hud.flush_frame()
    assert list(hud.stream.gap_ms.view) == pytest.approx([10.0, 20.0])
    assert hud.stream.stalls == 0


@pytest.mark.parametrize("tool_runs", [True, False])
def test_a_running_tool_is_no_stall(hud: LatencyHud, tool_runs: bool) -> None:
    ms = 1_000_000
    now = now_ns()
    timeline = _followed(hud, now - 6000 * ms)
    timeline.mark_token(TokenKind.ANSWER, 5, now - 5000 * ms)
    if tool_runs:
        timeline.enter_stage(Stage.USING_TOOL.value, now - 4990 * ms)
    hud.flush_frame()  # the token
    hud.flush_frame()  # a quiet frame, 5 s after it
    assert hud.stream.stalls == (0 if tool_runs else 1)


def test_the_tool_columns_p99_waits_for_a_hundred_runs(hud: LatencyHud) -> None:
    hud.add_reply(_tool_turn())
    p99 = hud.requests.table.item(4, TOOL_COLUMN)
    assert p99.text() == "–"
    assert p99.toolTip() == "P99 needs at least 100 tool runs; these figures are of 2 tool runs."
