"""A request's stages, typed, and the one codec between them and what is stored.

    records = decode_stages(row_value)      # a stored row's stages, old rows too
    encode_stages(records)                  # the JSON the metrics store keeps

One StageRecord per stage (its name, and its start and end in ms since the request was
written; the part before it is negative), with the typed parts the stage carried:
a cascade's route decision (RoutePart), the retrieving stage's passages (RetrievalPart),
the images sent and their preparation (ImagesPart), the loading stage's expected time
(LoadingPart). A turn with tools adds a record per model call (MODEL_CALL:
ModelCallPart, its first output after step 1 being the model's prefill of the results)
and per tool call (TOOL_CALL: ToolCallPart, its arguments streamed, the approval wait,
its run and the result's size), in the same ms. On a live timeline the parts travel
as the stage's counts (client/core/timeline.py: StageStamp.counts); this module is
the one place that knows their keys: `part_counts` writes them, `stage_from_counts`
reads them.

Rows written before this module (stage name -> [start, end], or name -> ms) still read.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# A stored stage: JSON, as the metrics store keeps it.
StoredStage = dict[str, object]
Counts = dict[str, int | float | str]  # a live stage's counts (core's StageStamp.counts)
StoredStages = list[StoredStage] | dict[str, object]

# The keys of the parts, in a stage's counts and its stored row.
ROUTE, MODEL, REASON, DECIDED_MS, DECIDED_AT_MS, BY, CLASSIFIER, ATTEMPT = (
    "route",
    "model",
    "reason",
    "decided_ms",
    "decided_at_ms",
    "by",
    "classifier",
    "attempt",
)
PASSAGES, TOKENS, SOURCES = "passages", "tokens", "sources"
IMAGES, IMAGE_BYTES, IMAGE_PIXELS, IMAGE_PREPARE_MS = (
    "images",
    "image_bytes",
    "image_pixels",
    "image_prepare_ms",
)
EXPECTED_MS = "expected_ms"
MODEL_CALL, TOOL_CALL = "model call", "tool call"  # the records of a turn with tools
TOOL_SERVERS = "tool servers"  # the wait for the conversation's tool servers to list
CALL_RECORDS = (MODEL_CALL, TOOL_CALL, TOOL_SERVERS)  # not stages: a turn's calls
STEP, WRITTEN_MS, FIRST_OUTPUT_MS, LAST_OUTPUT_MS = (
    "step",
    "written_ms",
    "first_output_ms",
    "last_output_ms",
)
TOOL, TOOL_SERVER, RESULT_CHARS, IS_ERROR = "tool", "tool_server", "result_chars", "is_error"
TOOL_SPANS = ("arguments", "approval", "run")  # each stored as <name>_start_ms, <name>_end_ms
OUT_OF_BUDGET = "out_of_budget"  # the classifier ran out of its budget


@dataclass(frozen=True, slots=True)
class RoutePart:
    """A cascade's route decision, made during this stage (or a fallback's, attempt 2)."""

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


@dataclass(frozen=True, slots=True)
class SourcePlace:
    """Where a passage sent came from (not its text)."""

    path: str
    line_start: int
    line_end: int | None = None
    unit: str = ""


@dataclass(frozen=True, slots=True)
class RetrievalPart:
    passages: int
    tokens: int
    sources: tuple[SourcePlace, ...] = ()


@dataclass(frozen=True, slots=True)
class ImagesPart:
    images: int
    image_bytes: int
    image_pixels: int
    prepare_ms: float = 0.0  # the client's time preparing the new ones


@dataclass(frozen=True, slots=True)
class LoadingPart:
    expected_ms: float  # how long a load of this model took before


Span = tuple[float, float]  # (start_ms, end_ms)


@dataclass(frozen=True, slots=True)
class ModelCallPart:
    """One model call of a turn with tools (its record spans the call)."""

    step: int  # 1: the question; later ones read the tools' results
    written_ms: float | None = None
    first_output_ms: float | None = None  # a token or a call's name
    last_output_ms: float | None = None

    @property
    def ttft_ms(self) -> float | None:
        """Its own time to first output: after step 1, its prefill of the results."""
        if self.first_output_ms is None or self.written_ms is None:
            return None
        return self.first_output_ms - self.written_ms


@dataclass(frozen=True, slots=True)
class ToolCallPart:
    """One tool call: its arguments streamed, the user's approval (never latency), its
    run and its result's size; a span is None when that part did not happen."""

    step: int
    tool: str
    server: str = ""
    arguments: Span | None = None
    approval: Span | None = None
    run: Span | None = None
    result_chars: int = 0
    is_error: bool = False

    @property
    def run_ms(self) -> float | None:
        return None if self.run is None else self.run[1] - self.run[0]


@dataclass(frozen=True, slots=True)
class StageRecord:
    stage: str
    start_ms: float
    end_ms: float | None = None
    route: RoutePart | None = None
    retrieval: RetrievalPart | None = None
    images: ImagesPart | None = None
    loading: LoadingPart | None = None
    model_call: ModelCallPart | None = None
    tool_call: ToolCallPart | None = None

    @property
    def is_call(self) -> bool:
        """A turn with tools' record of a model call, a tool call or the tool servers'
        start, not one of its stages."""
        return self.stage in CALL_RECORDS

    @property
    def ms(self) -> float | None:
        return None if self.end_ms is None else self.end_ms - self.start_ms


# ---- writing ---------------------------------------------------------------------------


Part = RoutePart | RetrievalPart | ImagesPart | LoadingPart | ModelCallPart | ToolCallPart


def part_counts(part: Part) -> Counts:
    """A part as a stage's counts (the live timeline) and its stored keys (a retrieval's
    sources are stored only: encode_stage)."""
    if isinstance(part, ModelCallPart | ToolCallPart):
        return _call_counts(part)
    if isinstance(part, RoutePart):
        counts: Counts = {ROUTE: part.tier, MODEL: part.model, REASON: part.reason}
        optional = {
            DECIDED_MS: part.decided_ms,
            DECIDED_AT_MS: part.decided_at_ms,
            BY: part.by,
            CLASSIFIER: part.classifier,
        }
        counts.update({k: v for k, v in optional.items() if v is not None and v != ""})
        if part.attempt != 1:
            counts[ATTEMPT] = part.attempt
        return counts
    if isinstance(part, RetrievalPart):
        return {PASSAGES: part.passages, TOKENS: part.tokens}
    if isinstance(part, ImagesPart):
        return {
            IMAGES: part.images,
            IMAGE_BYTES: part.image_bytes,
            IMAGE_PIXELS: part.image_pixels,
            IMAGE_PREPARE_MS: round(part.prepare_ms, 3),
        }
    return {EXPECTED_MS: round(part.expected_ms, 1)}


def _call_counts(part: ModelCallPart | ToolCallPart) -> Counts:
    if isinstance(part, ModelCallPart):
        stamps = {
            WRITTEN_MS: part.written_ms,
            FIRST_OUTPUT_MS: part.first_output_ms,
            LAST_OUTPUT_MS: part.last_output_ms,
        }
        counts: Counts = {STEP: part.step}
        counts.update({k: round(v, 3) for k, v in stamps.items() if v is not None})
        return counts
    counts = {STEP: part.step, TOOL: part.tool, TOOL_SERVER: part.server}
    counts.update({RESULT_CHARS: part.result_chars, IS_ERROR: int(part.is_error)})
    for name, span in zip(TOOL_SPANS, (part.arguments, part.approval, part.run), strict=True):
        if span is not None:
            counts[f"{name}_start_ms"], counts[f"{name}_end_ms"] = (
                round(span[0], 3),
                round(span[1], 3),
            )
    return counts


def encode_stages(records: Iterable[StageRecord]) -> list[StoredStage]:
    """The stages as the metrics store keeps them (one JSON object per stage)."""
    return [encode_stage(record) for record in records]


def encode_stage(record: StageRecord) -> StoredStage:
    row: StoredStage = {"stage": record.stage, "start_ms": record.start_ms, "end_ms": record.end_ms}
    parts = (record.loading, record.route, record.images, record.retrieval)
    for part in (*parts, record.model_call, record.tool_call):
        if part is not None:
            row.update(part_counts(part))
    if record.retrieval is not None and record.retrieval.sources:
        row[SOURCES] = [_source_row(source) for source in record.retrieval.sources]
    return row


def _source_row(source: SourcePlace) -> dict[str, object]:
    return {
        "path": source.path,
        "unit": source.unit,
        "line_start": source.line_start,
        "line_end": source.line_end,
    }


# ---- reading ---------------------------------------------------------------------------


def stage_from_counts(
    name: str, start_ms: float, end_ms: float | None, counts: Mapping[str, object]
) -> StageRecord:
    """A stage with the parts its counts (live or stored) carry; damaged ones are left out."""
    return StageRecord(
        stage=name,
        start_ms=start_ms,
        end_ms=end_ms,
        route=route_part(counts),
        retrieval=_retrieval(counts),
        images=_images(counts),
        loading=_loading(counts),
        model_call=_model_call(counts) if name == MODEL_CALL else None,
        tool_call=_tool_call(counts) if name == TOOL_CALL else None,
    )


def decode_stages(value: object) -> list[StageRecord]:
    """A stored row's stages: [{"stage" or "name", "start_ms", "end_ms", parts...}],
    or an old row's {name: [start, end]}; JSON text or decoded (or StageRecords, kept).
    Damaged: left out."""
    if isinstance(value, str | bytes):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    items: Iterable[object] = ()
    if isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, list):
        items = value
    records: list[StageRecord] = []
    for item in items:
        record = _decoded(item)
        if record is not None:
            records.append(record)
    return records


def _decoded(item: object) -> StageRecord | None:
    counts: Mapping[str, object] = {}
    if isinstance(item, StageRecord):  # typed already (a live request's)
        return item
    if isinstance(item, Mapping):
        name, counts = item.get("stage", item.get("name")), item
        start, end = item.get("start_ms"), item.get("end_ms")
    elif isinstance(item, tuple | list) and len(item) == 2 and isinstance(item[1], list):
        name, (start, end) = item[0], [*item[1], None, None][:2]
    else:
        return None
    begin = _number(start)
    if not isinstance(name, str) or begin is None:
        return None
    return stage_from_counts(name, begin, _number(end), counts)


def route_part(counts: Mapping[str, object]) -> RoutePart | None:
    tier, model = counts.get(ROUTE), counts.get(MODEL)
    if not isinstance(tier, str) or not isinstance(model, str):
        return None
    return RoutePart(
        tier=tier,
        model=model,
        reason=_text(counts.get(REASON)),
        decided_ms=_number(counts.get(DECIDED_MS)),
        by=_text(counts.get(BY)),
        classifier=_text(counts.get(CLASSIFIER)),
        attempt=int(_number(counts.get(ATTEMPT, 1)) or 1),
        decided_at_ms=_number(counts.get(DECIDED_AT_MS)),
    )


def _retrieval(counts: Mapping[str, object]) -> RetrievalPart | None:
    if PASSAGES not in counts:
        return None
    sources = counts.get(SOURCES)
    places = [_source(s) for s in sources] if isinstance(sources, list) else []
    return RetrievalPart(
        _whole(counts.get(PASSAGES)),
        _whole(counts.get(TOKENS)),
        tuple(p for p in places if p is not None),
    )


def _source(item: object) -> SourcePlace | None:
    if not isinstance(item, Mapping):
        return None
    path, start, end = item.get("path"), item.get("line_start"), item.get("line_end")
    if not isinstance(path, str) or not isinstance(start, int) or isinstance(start, bool):
        return None
    return SourcePlace(path, start, end if isinstance(end, int) else None, _text(item.get("unit")))


def _images(counts: Mapping[str, object]) -> ImagesPart | None:
    images = _whole(counts.get(IMAGES))
    if not images:
        return None
    return ImagesPart(
        images,
        _whole(counts.get(IMAGE_BYTES)),
        _whole(counts.get(IMAGE_PIXELS)),
        _number(counts.get(IMAGE_PREPARE_MS)) or 0.0,
    )


def _loading(counts: Mapping[str, object]) -> LoadingPart | None:
    expected = _number(counts.get(EXPECTED_MS))
    return LoadingPart(expected) if expected is not None and expected > 0 else None


def _model_call(counts: Mapping[str, object]) -> ModelCallPart | None:
    step = _whole(counts.get(STEP))
    if step < 1:
        return None
    return ModelCallPart(
        step,
        _number(counts.get(WRITTEN_MS)),
        _number(counts.get(FIRST_OUTPUT_MS)),
        _number(counts.get(LAST_OUTPUT_MS)),
    )


def _tool_call(counts: Mapping[str, object]) -> ToolCallPart | None:
    step, tool = _whole(counts.get(STEP)), counts.get(TOOL)
    if step < 1 or not isinstance(tool, str):
        return None
    return ToolCallPart(
        step,
        tool,
        _text(counts.get(TOOL_SERVER)),
        arguments=_span(counts, "arguments"),
        approval=_span(counts, "approval"),
        run=_span(counts, "run"),
        result_chars=_whole(counts.get(RESULT_CHARS)),
        is_error=bool(_whole(counts.get(IS_ERROR))),
    )


def _span(counts: Mapping[str, object], name: str) -> Span | None:
    start, end = _number(counts.get(f"{name}_start_ms")), _number(counts.get(f"{name}_end_ms"))
    return None if start is None or end is None else (start, end)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if math.isnan(value) else float(value)


def _whole(value: object) -> int:
    number = _number(value)
    return int(number) if number is not None else 0


def stored_form(stages: Iterable[StageRecord | StoredStage] | StoredStages | None) -> StoredStages:
    """What the store writes for `stages`: typed records encoded; an old caller's JSON
    as given."""
    if stages is None:
        return {}
    if isinstance(stages, dict):
        return stages
    return [encode_stage(s) if isinstance(s, StageRecord) else s for s in stages]
