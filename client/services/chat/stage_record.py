"""A request's stages as the metrics store keeps them (the waterfall redraws them)."""

from __future__ import annotations

from typing import Any

from client.core.timeline import RequestTimeline
from client.services.chat.session_events import Stage
from client.services.knowledge.knowledge_stage import sources_record
from client.services.knowledge.retrieval import Retrieval


def stage_record(timeline: RequestTimeline, retrieval: Retrieval | None) -> list[dict[str, Any]]:
    """Stages in ms since the request was written (the part before is negative), with
    their counts (retrieving: passages and tokens; a cascade's fallback: attempt 2)."""
    origin = timeline.request_written_ns
    if origin is None and timeline.stages:
        origin = timeline.stages[0].start_ns
    record: list[dict[str, Any]] = [
        {
            "stage": s.name,
            "start_ms": (s.start_ns - (origin or 0)) / 1e6,
            "end_ms": None if s.end_ns is None else (s.end_ns - (origin or 0)) / 1e6,
            **(s.counts or {}),
        }
        for s in timeline.stages
    ]
    if retrieval is not None:  # the answer's sources, for when it is reopened
        for stage in record:
            if stage["stage"] == Stage.RETRIEVING.value:
                stage["sources"] = sources_record(retrieval)
    return record
