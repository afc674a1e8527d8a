"""A cascade's route decision as the waterfall keeps it.

The decision is written on the stage that was running while it was made (the
"understanding" stage, or "loading" for a cold model), a typed RoutePart
(client/store/stage_records.py) written into the timeline's stage counts by its codec:

    {"route": "fast", "model": "SmolLM2-135M", "reason": "a short everyday question",
     "decided_ms": 0.1, "by": "rules"}                      (+ "classifier": "out_of_budget")

so the live HUD (client/services/hud/hud_model.py reads the timeline) and the stored record
(client/services/chat/answer_writer.py, redrawn when a conversation is reopened) both carry
it. A fallback's second "understanding" stage says which model took over and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from client.core.timeline import RequestTimeline, now_ns
from client.store.stage_records import OUT_OF_BUDGET as OUT_OF_BUDGET
from client.store.stage_records import RoutePart, part_counts, route_part

if TYPE_CHECKING:
    from client.services.planning.planner import Route
    from client.services.planning.router import RouteDecision

FALLBACK = "fallback"
RouteNote = RoutePart  # the decision as the waterfall shows it (the stored stage's part)


def mark_route(
    timeline: RequestTimeline, route: Route, decision: RouteDecision, at_ns: int | None = None
) -> None:
    """Put the decision, made just now (or at `at_ns`), on the stage running now."""
    at = at_ns if at_ns is not None else now_ns()
    started = timeline.stages[-1].start_ns if timeline.stages else at
    part = RoutePart(
        tier=route.tier,
        model=route.model,
        reason=decision.reason,
        decided_ms=decision.decided_ms,
        by=decision.by,
        classifier=decision.classifier or "",
        decided_at_ms=round((at - started) / 1e6, 3),
    )
    _add(timeline, part)


def mark_fallback(timeline: RequestTimeline, route: Route, failed: Route) -> None:
    """The fallback's "understanding" stage (just entered): attempt 2, and who answers."""
    reason = f"the {failed.tier} model ({failed.model}) failed"
    _add(timeline, RoutePart(route.tier, route.model, reason, by=FALLBACK, attempt=2))


def _add(timeline: RequestTimeline, part: RoutePart) -> None:
    if timeline.stages:
        stage = timeline.stages[-1]
        stage.counts = {**(stage.counts or {}), **part_counts(part)}


def route_note(counts: Mapping[str, object]) -> RouteNote | None:
    """The decision kept in a stage's counts (live or stored); None when there is none
    or it is damaged."""
    return route_part(counts)
