"""A turn's time in tools and approvals, which the live view leaves out: the tools' and
the user's time is not a gap between tokens, nor a stall (the metrics leave it out too:
client/services/chat/tool_step.py, `_measured`).

    spans = tool_spans(timeline)              # the approval and tool stages, in ns
    model_ns = at_ns - paused_before(spans, at_ns)
"""

from __future__ import annotations

from client.core.timeline import RequestTimeline, now_ns
from client.services.chat.session_events import Stage

TOOL_STAGES = (Stage.APPROVAL.value, Stage.USING_TOOL.value)


def tool_spans(timeline: RequestTimeline) -> list[tuple[int, int]]:
    """The turn's approval and tool stages, (start, end) in ns; one still open ends now."""
    now = now_ns()
    return [
        (stage.start_ns, stage.end_ns if stage.end_ns is not None else now)
        for stage in timeline.stages
        if stage.name in TOOL_STAGES
    ]


def paused_before(spans: list[tuple[int, int]], at_ns: int) -> int:
    """The time in tools before `at_ns` (a span still open counts up to it)."""
    return sum(min(end, at_ns) - start for start, end in spans if start < at_ns)


def in_tools(timeline: RequestTimeline) -> bool:
    """The turn waits for a tool or for the user's approval now."""
    stages = timeline.stages
    return bool(stages) and stages[-1].end_ns is None and stages[-1].name in TOOL_STAGES
