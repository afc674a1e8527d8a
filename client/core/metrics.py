"""Per-request latency metrics, exactly as shared/DESIGN.md defines them.

All client metrics come from one RequestTimeline (same-process perf_counter_ns).
Server-reported timings ride beside them, never mixed in.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from client.core.events import Usage
from client.core.qoe import timeline_qoe
from client.core.server_timings import ServerReport, ServerTimings
from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.core.timeline import RequestTimeline

NS_PER_MS = 1_000_000


def _ms(start_ns: int | None, end_ns: int | None) -> float | None:
    if start_ns is None or end_ns is None:
        return None
    return (end_ns - start_ns) / NS_PER_MS


@dataclass(slots=True, kw_only=True)
class MetricFigures:
    """One request's figures under DESIGN.md's names: what RequestMetrics measures, a
    column each in the metrics store, and what the HUD shows. The store's record and the
    HUD's record add where and when the request ran; this list is written here only."""

    ttft_ms: float | None = None
    ttfo_ms: float | None = None
    tpot_ms: float | None = None
    tokens_per_s: float | None = None
    e2el_ms: float | None = None
    headers_ms: float | None = None
    paint_ms: float | None = None
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    output_tokens_estimated: bool = False
    chunks: int = 0
    qoe: float | None = None  # Andes' QoE for the default reader (client/core/qoe.py)


# RequestMetrics.server's source for what type-ahead saved the request (its "tokens", and
# "saved_ms" at the rate the reads were computed): client/services/warming/type_ahead.py.
TYPE_AHEAD_SOURCE = "type_ahead"

# The figures' names, in their order (stored columns, export fields, HUD records).
FIGURE_FIELDS = tuple(f.name for f in fields(MetricFigures))


def figures_of(source: MetricFigures) -> dict[str, Any]:
    """The figures of a request or a record, by name, to make another record of."""
    return {name: getattr(source, name) for name in FIGURE_FIELDS}


@dataclass(slots=True, kw_only=True)
class RequestMetrics(MetricFigures):
    """The figures of one request as measured, with what is not kept as a figure: the
    gaps between chunks, the tier at the thresholds of the moment, and the server's own
    timings (typed by its kind: client/core/server_timings.py)."""

    itl_ms: list[float] = field(default_factory=list)
    tier: str | None = None
    server: ServerReport = field(default_factory=ServerReport)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "server": self.server.encode()}


def output_token_count(
    usage: Usage | None, server: ServerReport, chunks: int
) -> tuple[int | None, bool]:
    """The server's count when it gives one (the usage, else its own timings), else
    the chunk count flagged as estimated."""
    if usage is not None and usage.completion_tokens is not None:
        return usage.completion_tokens, False
    counted = server.output_tokens()
    if counted is not None:
        return counted, False
    return (chunks, True) if chunks else (None, True)


def compute_metrics(
    timeline: RequestTimeline,
    usage: Usage | None = None,
    server_timings: list[ServerTimings] | None = None,
    thresholds: TierThresholds = DEFAULT_THRESHOLDS,
) -> RequestMetrics:
    server = ServerReport(server_timings or ())
    written = timeline.request_written_ns
    stamps = [t.at_ns for t in timeline.tokens]
    output_tokens, estimated = output_token_count(usage, server, len(stamps))
    end_ns = _end_ns(timeline, estimated)
    metrics = RequestMetrics(
        ttft_ms=_ms(written, timeline.first_token_ns),
        ttfo_ms=_ms(written, timeline.first_answer_ns),
        itl_ms=[(b - a) / NS_PER_MS for a, b in itertools.pairwise(stamps)],
        e2el_ms=_ms(written, end_ns),
        headers_ms=_ms(written, timeline.headers_ns),
        paint_ms=_ms(timeline.first_token_ns, timeline.painted_ns),
        prompt_tokens=usage.prompt_tokens if usage else None,
        chunks=len(stamps),
        server=server,
    )
    if metrics.prompt_tokens is None:
        metrics.prompt_tokens = server.prompt_tokens()
    metrics.output_tokens, metrics.output_tokens_estimated = output_tokens, estimated
    _fill_decode_rate(metrics)
    metrics.qoe = timeline_qoe(timeline, None if estimated else output_tokens)
    if metrics.ttft_ms is not None:
        metrics.tier = thresholds.tier_of(metrics.ttft_ms).value
    return metrics


def _end_ns(timeline: RequestTimeline, estimated: bool) -> int | None:
    """e2el's end: the chunk carrying the last token the server counts. A count of chunks
    (estimated) ends at the last chunk with text, which is the last one it counts."""
    if not timeline.tokens:
        return timeline.done_ns
    return timeline.last_token_ns if estimated else timeline.counted_end_ns()


def _fill_decode_rate(metrics: RequestMetrics) -> None:
    count = metrics.output_tokens
    if metrics.ttft_ms is None or metrics.e2el_ms is None or not count or count < 2:
        return
    metrics.tpot_ms = (metrics.e2el_ms - metrics.ttft_ms) / (count - 1)
    if metrics.tpot_ms > 0:
        metrics.tokens_per_s = 1000.0 / metrics.tpot_ms
