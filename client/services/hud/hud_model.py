"""What the latency HUD shows, computed without Qt.

- `LiveStream` (in client/services/hud/hud_live.py): the current reply's
  token stamps and the live series the plots draw.
- `RequestBook`: every request of this session plus those loaded from the metrics store,
  the TTFT series coloured by tier, and running mean / P50 / P95 / P99 per scope.
- `export_json()` / `export_csv()`: the shown requests under the names `tachy metrics
  --format json` and `tachy bench --json` use.

"Token" in the live series means a token-bearing chunk, as in DESIGN.md's itl_ms: the
count of real tokens is only known when the server reports it at the end.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, NamedTuple

import numpy as np

from client.core.metrics import NS_PER_MS, MetricFigures, RequestMetrics, figures_of
from client.core.stats import Summary, summarize
from client.core.tiers import DEFAULT_THRESHOLDS, Tier, TierThresholds
from client.core.timeline import RequestTimeline
from client.services.cascade.route_record import RouteNote
from client.services.chat.session_events import Stage
from client.services.images.cost import IMAGES_COUNTED
from client.services.tools.call_records import ToolTime, tool_time
from client.store.metrics_store import EXPORT_FIELDS, SUMMARY_FIELDS
from client.store.stage_records import StageRecord, decode_stages, stage_from_counts

P99_MIN_N = 100  # P99 of fewer requests is one outlier, so it is not shown
COLD_LOAD_MS = 100.0  # a server-reported model load this long marks the request cold

STAT_FIELDS = ("ttft_ms", "tpot_ms", "tokens_per_s")  # what the HUD's table shows
TOOL_RUN = "tool_run_ms"  # the table's tools column: each tool call's run (ScopeStats)

# A row's figures, named as the {fields} of its label: (("cached", 1400), ("computed", 93)).
# The label stays a fixed template, so the window can translate it and write the
# figures in its own locale; `english()` fills it in for the command line and tests.
Figures = tuple[tuple[str, int], ...]


def english(label: str, figures: Figures) -> str:
    """A label with its figures written in, digits grouped: "… 1,400 cached + 93 …"."""
    return label.format(**{name: f"{value:,}" for name, value in figures}) if figures else label


class StageSpan(NamedTuple):
    name: str  # a stage's name, or a label template when it has figures
    start_ms: float
    end_ms: float | None
    figures: Figures = ()
    note: RouteNote | None = None  # a cascade's route decision, made during this stage


class Scope(StrEnum):
    SESSION = "session"  # requests since the app started
    MODEL = "model"  # every stored request of the current model
    LAST_N = "last_n"  # the last N requests, whatever the model


@dataclass(slots=True, kw_only=True)
class HudRecord(MetricFigures):
    """A request as the HUD shows it: its figures, where and when it ran, and its stages.
    The tier is not kept: it follows the thresholds in force when it is shown."""

    time: float  # unix seconds
    server: str = ""
    model: str = ""
    cold: bool = False
    outcome: str = ""
    message_id: int | None = None
    from_history: bool = False
    stages: list[StageSpan] = field(default_factory=list)
    server_timings: dict[str, dict[str, float]] = field(default_factory=dict)
    # A turn with tools: its model calls and tool calls (stage_records' MODEL_CALL, TOOL_CALL)
    calls: list[StageRecord] = field(default_factory=list)
    tools: ToolTime | None = None  # its time and the part in tools (None: no tool called)

    @property
    def tool_runs_ms(self) -> list[float]:
        """Each tool call's run, in ms (calls that did not run left out)."""
        parts = (record.tool_call for record in self.calls)
        return [ms for part in parts if part is not None and (ms := part.run_ms) is not None]

    def tier(self, thresholds: TierThresholds = DEFAULT_THRESHOLDS) -> Tier | None:
        return thresholds.tier_of(self.ttft_ms) if self.ttft_ms is not None else None

    def export_row(self, thresholds: TierThresholds = DEFAULT_THRESHOLDS) -> dict[str, Any]:
        tier = self.tier(thresholds)
        row = {name: getattr(self, name) for name in EXPORT_FIELDS if name not in _DERIVED}
        row["time"] = datetime.fromtimestamp(self.time, UTC).isoformat(timespec="milliseconds")
        row["time_unix"] = self.time
        row["tier"] = tier.value if tier else None
        return {name: row[name] for name in EXPORT_FIELDS}


_DERIVED = {"time", "time_unix", "tier"}


def record_from_request(
    metrics: RequestMetrics,
    timeline: RequestTimeline | None,
    *,
    at: float,
    model: str,
    server: str,
    cold: bool,
    outcome: str,
    message_id: int | None = None,
    calls: Iterable[StageRecord] = (),
) -> HudRecord:
    load = metrics.server.load_ms() or 0.0
    records, calls = timeline_records(timeline) if timeline else [], list(calls)
    return HudRecord(
        time=at,
        server=server,
        model=model,
        **figures_of(metrics),
        cold=cold or load >= COLD_LOAD_MS,
        outcome=outcome,
        message_id=message_id,
        stages=spans_of(records),
        server_timings=metrics.server.encode(),
        calls=calls,
        tools=tool_time([*records, *calls]),
    )


def stages_from_timeline(timeline: RequestTimeline) -> list[StageSpan]:
    return spans_of(timeline_records(timeline))


def timeline_records(timeline: RequestTimeline) -> list[StageRecord]:
    """A live request's stages, typed (none before its request was written)."""
    origin = timeline.request_written_ns
    if origin is None:
        return []
    return [
        stage_from_counts(
            s.name,
            (s.start_ns - origin) / NS_PER_MS,
            None if s.end_ns is None else (s.end_ns - origin) / NS_PER_MS,
            s.counts or {},
        )
        for s in timeline.stages
    ]


def spans_of(records: Iterable[StageRecord]) -> list[StageSpan]:
    """The waterfall's rows of typed stages (live or stored): the images first; a turn's
    model and tool calls are not stages (calls_of)."""
    listed = [r for r in records if not r.is_call]
    return [*image_spans(listed), *(stage_span(record) for record in listed)]


def calls_of(records: Iterable[StageRecord]) -> list[StageRecord]:
    """A turn's model-call, tool-call and tool-servers records (empty without tools)."""
    return [r for r in records if r.is_call]


def image_spans(records: Iterable[StageRecord]) -> list[StageSpan]:
    """The images' row: their preparation, a bar ending when the request was written."""
    for record in records:
        images = record.images
        if images is not None:
            kilobytes = max(1, round(images.image_bytes / 1024))
            figures = (
                ("images", images.images),
                ("kilobytes", kilobytes),
                ("pixels", images.image_pixels),
            )
            return [StageSpan(IMAGES_COUNTED, -images.prepare_ms, 0.0, figures)]
    return []


# The retrieving row with what it added: its state's words, then its figures.
RETRIEVING_COUNTED = "{state} · {passages} passages, {tokens} tokens"


def stage_span(record: StageRecord) -> StageSpan:
    """A stage's row in the waterfall: the retrieving stage says what it added; a
    cascade's understanding stage, its route."""
    name, start, end = record.stage, record.start_ms, record.end_ms
    found = record.retrieval
    if name == Stage.RETRIEVING.value and found is not None:
        return StageSpan(name, start, end, (("passages", found.passages), ("tokens", found.tokens)))
    return StageSpan(name, start, end, note=record.route)


def record_from_stored(stored: object) -> HudRecord:
    """A row from the MetricsStore (a mapping or an object with the column names)."""

    def get(name: str, default: object = None) -> object:
        if isinstance(stored, Mapping):
            return stored.get(name, default)
        return getattr(stored, name, default)

    when = get("time", 0.0)
    stored_records = decode_stages(_json(get("stages")))  # read by the one codec
    if isinstance(when, datetime):
        when = when.timestamp()
    return HudRecord(
        time=_num(when) or 0.0,
        server=str(get("server") or ""),
        model=str(get("model") or ""),
        **{name: read(get(name)) for name, read in _FIGURE_READERS},
        cold=bool(get("cold", False)),
        outcome=str(get("outcome") or ""),
        message_id=_int(get("message_id")),
        from_history=True,
        stages=spans_of(stored_records),
        server_timings=_stored_timings(get("server_timings")),
        calls=calls_of(stored_records),
        tools=tool_time(stored_records),
    )


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if math.isnan(value) else float(value)


def _int(value: object) -> int | None:
    number = _num(value)
    return int(number) if number is not None else None


# How a stored value becomes a figure, by the figure's type: a number of that type or
# None (a damaged or hand-written row may hold anything).
_READ_AS: dict[str, Callable[[Any], Any]] = {
    "float | None": _num,
    "int | None": _int,
    "bool": bool,
    "int": lambda value: _int(value) or 0,
}
_FIGURE_READERS = tuple((f.name, _READ_AS[str(f.type)]) for f in fields(MetricFigures))


def _json(value: object) -> object:
    if isinstance(value, str | bytes):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _stored_timings(value: object) -> dict[str, dict[str, float]]:
    value = _json(value)
    if not isinstance(value, Mapping):
        return {}
    return {
        str(source): {str(k): float(v) for k, v in values.items() if _num(v) is not None}
        for source, values in value.items()
        if isinstance(values, Mapping)
    }


@dataclass(frozen=True, slots=True)
class ScopeStats:
    n: int  # requests in scope (after excluding cold ones, if asked)
    summaries: dict[str, Summary | None]  # by metric name; p99 is NaN below P99_MIN_N
    tool_turns: int = 0  # the turns in scope that called tools
    tools_share: float | None = None  # their time in tools over their time (approvals out)

    def shown_p99(self, name: str) -> float | None:
        summary = self.summaries.get(name)
        return summary.p99 if summary and summary.n >= P99_MIN_N else None


class RequestBook:
    """Every request the HUD knows about, oldest first."""

    def __init__(self, thresholds: TierThresholds = DEFAULT_THRESHOLDS) -> None:
        self.records: list[HudRecord] = []
        self.thresholds = thresholds

    def add(self, record: HudRecord) -> None:
        self.records.append(record)

    def load_history(self, records: Iterable[HudRecord]) -> None:
        """Past requests go before this session's, in time order."""
        self.records = sorted([*records, *self.records], key=lambda r: r.time)

    def in_scope(
        self, scope: Scope, *, model: str = "", last_n: int = 50, exclude_cold: bool = False
    ) -> list[HudRecord]:
        if scope is Scope.SESSION:
            chosen = [r for r in self.records if not r.from_history]
        elif scope is Scope.MODEL:
            chosen = [r for r in self.records if r.model == model]
        else:
            chosen = self.records[-last_n:] if last_n > 0 else []
        return [r for r in chosen if not (exclude_cold and r.cold)]

    def stats(self, records: list[HudRecord]) -> ScopeStats:
        summaries = {name: summarize(getattr(r, name) for r in records) for name in SUMMARY_FIELDS}
        # The tools' row: each tool call's run (a turn may run several), not per request.
        summaries[TOOL_RUN] = summarize(ms for r in records for ms in r.tool_runs_ms)
        turns = [r.tools for r in records if r.tools is not None]
        whole_ms = sum(t.whole_ms for t in turns)
        share = sum(t.tools_ms for t in turns) / whole_ms if whole_ms > 0 else None
        return ScopeStats(len(records), summaries, tool_turns=len(turns), tools_share=share)

    def ttft_series(
        self, records: list[HudRecord]
    ) -> tuple[np.ndarray, np.ndarray, list[Tier], list[bool]]:
        """x = request number (1-based in the list), y = ttft_ms, tier, cold; no-ttft skipped."""
        shown = [(i + 1, r) for i, r in enumerate(records) if r.ttft_ms is not None]
        x = np.array([i for i, _ in shown], dtype=np.float64)
        y = np.array([r.ttft_ms for _, r in shown], dtype=np.float64)
        tiers = [self.thresholds.tier_of(r.ttft_ms) for _, r in shown]  # type: ignore[arg-type]
        return x, y, tiers, [r.cold for _, r in shown]

    def find_message(self, message_id: int) -> HudRecord | None:
        return next((r for r in reversed(self.records) if r.message_id == message_id), None)


# -- tier view ----------------------------------------------------------------------

TIER_BEHAVIOUR = {
    Tier.INSTANT: "nothing: the reply feels instant",
    Tier.FAST: "nothing: the reply came before the typing indicator",
    Tier.TYPING: "typing indicator",
    Tier.SLOW: "stages ({stages})",  # the window's words for the states it showed
}


# -- export -------------------------------------------------------------------------


def export_json(records: list[HudRecord], thresholds: TierThresholds = DEFAULT_THRESHOLDS) -> str:
    """As `tachy metrics --format json`: {"n", "requests": [...oldest first],
    "ttft_ms": {"n", "mean", "median", "p90", "p95", "p99"}, "ttfo_ms", "tpot_ms",
    "tokens_per_s", "e2el_ms"}; a summary is null when no request has that value."""
    out: dict[str, Any] = {"n": len(records)}
    out["requests"] = [r.export_row(thresholds) for r in records]
    for name in SUMMARY_FIELDS:
        summary = summarize(getattr(r, name) for r in records)
        out[name] = None if summary is None else summary.as_dict()
    return json.dumps(out, indent=2)


def export_csv(records: list[HudRecord], thresholds: TierThresholds = DEFAULT_THRESHOLDS) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EXPORT_FIELDS, lineterminator="\n")
    writer.writeheader()
    for record in records:
        row = record.export_row(thresholds)
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return buffer.getvalue()
