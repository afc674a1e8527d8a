"""A turn's model calls and tool calls as typed stage records (client/store/stage_records.py),
in ms since the turn's request was written: the waterfall's rows, stored with its stages.

    records = call_records(loop.figures, timeline.request_written_ns, timeline.tokens)
    spent = tool_time([*turn_stages, *records])  # the footer's and the HUD's share in tools

The wait for the tool servers (TOOL_SERVERS: starting them, the first time), one
MODEL_CALL record per model call (its first output: after step 1 the model's prefill
of the results, its second TTFT) and one TOOL_CALL record per tool call, parallel calls
each their own (its arguments streamed, the approval wait, its run, the result's size).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from client.core.timeline import TokenStamp
from client.services.tools.loop_events import LoopFigures, ModelCallTiming, ToolCallTiming
from client.store.stage_records import (
    MODEL_CALL,
    TOOL_CALL,
    TOOL_SERVERS,
    ModelCallPart,
    Span,
    StageRecord,
    ToolCallPart,
)


def call_records(
    figures: LoopFigures,
    origin_ns: int,
    tokens: Sequence[TokenStamp] = (),
    servers_ns: tuple[int, int] | None = None,
) -> list[StageRecord]:
    """The tool servers' wait (`servers_ns`: from asking for their tools to having them),
    the model calls' records, then the tool calls', each in order."""
    models = [_model_record(call, origin_ns, tokens) for call in figures.model_calls]
    tools = [_tool_record(call, origin_ns) for call in figures.tool_calls]
    ready = []
    if servers_ns is not None:
        start, end = servers_ns
        ready = [StageRecord(TOOL_SERVERS, (start - origin_ns) / 1e6, (end - origin_ns) / 1e6)]
    return [*ready, *models, *(record for record in tools if record is not None)]


def _ms(at_ns: int | None, origin_ns: int) -> float | None:
    return None if at_ns is None else (at_ns - origin_ns) / 1e6


def _model_record(
    call: ModelCallTiming, origin_ns: int, tokens: Sequence[TokenStamp]
) -> StageRecord:
    ended = call.ended_ns
    own = [
        t.at_ns
        for t in tokens
        if t.at_ns >= call.started_ns and (ended is None or t.at_ns <= ended)
    ]
    # A token's stamp is when its bytes arrived (the TTFT's clock); the loop's, when it
    # heard the event: the earlier of the two, as a call of only tool calls has no token.
    first = min([*own[:1], *([call.first_output_ns] if call.first_output_ns else [])], default=None)
    last = own[-1] if own else call.first_output_ns
    part = ModelCallPart(
        call.step,
        _ms(call.written_ns, origin_ns),
        _ms(first, origin_ns),
        _ms(last, origin_ns),
    )
    start = _ms(call.started_ns, origin_ns) or 0.0
    end = _ms(ended if ended is not None else last, origin_ns)  # stopped: its last output
    return StageRecord(MODEL_CALL, start, end, model_call=part)


def _span(start_ns: int | None, end_ns: int | None, origin_ns: int) -> Span | None:
    if start_ns is None or end_ns is None:
        return None
    return ((start_ns - origin_ns) / 1e6, (max(start_ns, end_ns) - origin_ns) / 1e6)


def _tool_record(call: ToolCallTiming, origin_ns: int) -> StageRecord | None:
    arguments = _span(call.opened_ns, call.ready_ns, origin_ns)
    approval = _span(call.asked_ns, call.answered_ns, origin_ns)
    run = _span(call.run_started_ns, call.run_ended_ns, origin_ns)
    stamps = [
        at
        for at in (call.opened_ns, call.ready_ns, call.asked_ns, call.answered_ns,
                   call.run_started_ns, call.run_ended_ns)
        if at is not None
    ]  # fmt: skip
    if not stamps:
        return None
    part = ToolCallPart(
        call.step, call.name, call.server, arguments, approval, run,
        call.result_chars, call.is_error,
    )  # fmt: skip
    start, end = _ms(min(stamps), origin_ns), _ms(max(stamps), origin_ns)
    assert start is not None
    return StageRecord(TOOL_CALL, start, end, tool_call=part)


@dataclass(frozen=True, slots=True)
class ToolTime:
    """A turn's time and the part of it in tools (its tool servers' start and the runs,
    parallel runs counted once); the wait for the user's approval is in neither."""

    whole_ms: float
    tools_ms: float
    approval_ms: float

    @property
    def share(self) -> float:
        return self.tools_ms / self.whole_ms if self.whole_ms > 0 else 0.0


def tool_time(records: Iterable[StageRecord]) -> ToolTime | None:
    """From a turn's stages and call records (live or stored); None for a turn that
    called no tool."""
    listed = list(records)
    calls = [r.tool_call for r in listed if r.tool_call is not None]
    if not calls:
        return None
    start = min(r.start_ms for r in listed)
    end = max((r.end_ms for r in listed if r.end_ms is not None), default=start)
    busy = [call.run for call in calls if call.run is not None]
    busy += [(r.start_ms, r.end_ms) for r in listed if r.stage == TOOL_SERVERS and r.end_ms]
    approval_ms = sum(end - start for start, end in (c.approval for c in calls if c.approval))
    tools_ms = _union_ms(busy)
    return ToolTime(max(end - start - approval_ms, tools_ms), tools_ms, approval_ms)


def _union_ms(spans: list[Span]) -> float:
    """The time while any of the spans lasted (overlaps counted once)."""
    total, reached = 0.0, float("-inf")
    for start, end in sorted(spans):
        total += max(0.0, end - max(start, reached))
        reached = max(reached, end)
    return total
