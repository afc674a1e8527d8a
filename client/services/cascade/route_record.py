"""A cascade's route decision as the waterfall keeps it.

The decision is written on the stage that was running while it was made (the
"understanding" stage, or "loading" for a cold model) in the timeline's stage counts:

    {"route": "fast", "model": "SmolLM2-135M", "reason": "a short everyday question",
     "decided_ms": 0.1, "by": "rules"}                      (+ "classifier": "out_of_budget")

so the live HUD (client/services/hud/hud_model.py reads the timeline) and the stored record
(client/services/chat/answer_writer.py, redrawn when a conversation is reopened) both carry
it. A fallback's second "understanding" stage says which model took over and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from client.core.timeline import RequestTimeline, now_ns

if TYPE_CHECKING:
    from client.services.planning.planner import Route
    from client.services.planning.router import RouteDecision

OUT_OF_BUDGET = "out_of_budget"  # router.OUT_OF_BUDGET (not imported: kept light for the HUD)
FALLBACK = "fallback"


@dataclass(frozen=True, slots=True)
class RouteNote:
    tier: str  # "fast" | "strong"
    model: str
    reason: str = ""  # the router's phrase, as `tachy chat --json` prints it
    decided_ms: float | None = None
    by: str = ""  # rules | classifier | user | fallback
    classifier: str = ""  # answered | out_of_budget | failed | no_answer; "": not asked
    attempt: int = 1  # 2: the other model, after the first failed before its first token
    decided_at_ms: float | None = None  # when it was made, in ms after its stage began

    @property
    def out_of_budget(self) -> bool:
        """The classifier ran out of its budget and the rules decided."""
        return self.classifier == OUT_OF_BUDGET

    @property
    def rules_reason(self) -> str:
        """The rules' own phrase, without what the router added about the classifier."""
        return self.reason.split(" (", 1)[0]


def mark_route(
    timeline: RequestTimeline, route: Route, decision: RouteDecision, at_ns: int | None = None
) -> None:
    """Put the decision, made just now (or at `at_ns`), on the stage running now."""
    at = at_ns if at_ns is not None else now_ns()
    started = timeline.stages[-1].start_ns if timeline.stages else at
    counts: dict[str, int | float | str] = {
        "route": route.tier,
        "model": route.model,
        "reason": decision.reason,
        "decided_ms": decision.decided_ms,
        "decided_at_ms": round((at - started) / 1e6, 3),
        "by": decision.by,
    }
    if decision.classifier:
        counts["classifier"] = decision.classifier
    _add(timeline, counts)


def mark_fallback(timeline: RequestTimeline, route: Route, failed: Route) -> None:
    """The fallback's "understanding" stage (just entered): attempt 2, and who answers."""
    reason = f"the {failed.tier} model ({failed.model}) failed"
    _add(
        timeline,
        {"attempt": 2, "route": route.tier, "model": route.model, "reason": reason, "by": FALLBACK},
    )


def _add(timeline: RequestTimeline, counts: dict[str, int | float | str]) -> None:
    if timeline.stages:
        stage = timeline.stages[-1]
        stage.counts = {**(stage.counts or {}), **counts}


def route_note(counts: Mapping[str, Any]) -> RouteNote | None:
    """The decision kept in a stage's counts (live or stored); None when there is none
    or it is damaged."""
    tier, model = counts.get("route"), counts.get("model")
    if not isinstance(tier, str) or not isinstance(model, str):
        return None
    decided, at = counts.get("decided_ms"), counts.get("decided_at_ms")
    attempt = counts.get("attempt", 1)
    return RouteNote(
        tier=tier,
        model=model,
        reason=_text(counts.get("reason")),
        decided_ms=_number(decided),
        by=_text(counts.get("by")),
        classifier=_text(counts.get("classifier")),
        attempt=int(_number(attempt) or 1),
        decided_at_ms=_number(at),
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
