"""The waterfall of one request: the client's phases beside the server's own timings,
with the difference attributed to transport + queue (the HUD's Waterfall tab).

A turn with tools adds, from its typed call records (client/store/stage_records.py), per
model call its span and, after the first, its prefill of the tools' results (its own
time to first output); per tool call, parallel calls each their own, its arguments
streamed, the wait for the user's approval (a side of its own: never latency) and its
run with the result's size. Those rows say what the turn did after its first call, in
place of the states' rows; the server's rows are the last call's, anchored on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from client.backends.kinds.registry import decode_report, kind_named
from client.core.metrics import TYPE_AHEAD_SOURCE
from client.services.cascade.route_record import RouteNote
from client.services.chat.session_events import Stage
from client.services.chat.turn_state import STATE_WORDS, TurnState, stage_state, wait_parts
from client.services.hud.hud_model import RETRIEVING_COUNTED, Figures, HudRecord, english
from client.services.images.cost import IMAGES_COUNTED, IMAGES_WITH_TOKENS
from client.store.stage_records import TOOL_SERVERS, ModelCallPart, StageRecord, ToolCallPart

# -- waterfall ----------------------------------------------------------------------


ROUTE_DECISION = "route decision"  # a cascade's: the rules' moment, or the classifier's wait


@dataclass(frozen=True, slots=True)
class WaterfallRow:
    label: str  # a fixed name, or a template whose {fields} are the figures
    start_ms: float
    end_ms: float  # == start_ms for a moment (drawn as a tick)
    side: str  # "client", "server" or "difference"
    figures: Figures = ()
    note: RouteNote | None = None  # a cascade's route, on its stage and its decision's row
    tool: str = ""  # a tool call's row: the tool's name, the label's {tool}

    @property
    def state(self) -> TurnState | None:
        """The turn's state this row stands for (None: a moment or a server's row)."""
        return stage_state(self.label)

    @property
    def text(self) -> str:
        """The row's name in English: a stage's is its state's words (STATE_WORDS)."""
        state = self.state
        if self.tool:
            counts = {name: f"{value:,}" for name, value in self.figures}
            return self.label.format(tool=self.tool, **counts)
        if state is None:
            return english(self.label, self.figures)
        if not self.figures:
            return STATE_WORDS[state]
        counts = {name: f"{value:,}" for name, value in self.figures}
        return RETRIEVING_COUNTED.format(state=STATE_WORDS[state], **counts)


@dataclass(slots=True)
class Waterfall:
    rows: list[WaterfallRow]
    server_source: str | None = None  # the kind's name ("vllm")
    server_name: str | None = None  # as users call it ("vLLM")
    server_ttft_ms: float | None = None  # the server's own time to its first token
    transport_and_queue_ms: float | None = None  # client ttft minus server ttft
    server_step: int | None = None  # a turn with tools: the model call the server's rows are of


def build_waterfall(record: HudRecord) -> Waterfall:
    """Client rows from the request's stamps; server rows anchored so the server's first
    token lands on the client's (their clocks cannot be compared, only durations)."""
    rows = _client_rows(record)
    rows.extend(_question_read(record.server_timings.get(TYPE_AHEAD_SOURCE, {})))
    fall = Waterfall(rows)
    if record.ttft_ms is None:
        return fall
    # The server's figures are its last call's (a turn with tools: anchored on that call).
    last = last_call(record.calls)
    anchor, written = record.ttft_ms, 0.0
    if last is not None and last.first_output_ms is not None and last.written_ms is not None:
        anchor, written = last.first_output_ms, last.written_ms
        fall.server_step = last.step
    for timings in decode_report(record.server_timings).values():
        server_ttft = timings.first_token_ms()
        phases = timings.phases()
        if phases and server_ttft is not None:
            fall.server_source = timings.source
            kind = kind_named(timings.source)
            fall.server_name = kind.display_name if kind is not None else timings.source
            fall.server_ttft_ms = server_ttft
            rows.extend(
                WaterfallRow(p.label, anchor + p.start_ms, anchor + p.end_ms, "server", p.figures)
                for p in phases
            )
            break
    if fall.server_ttft_ms is not None:
        fall.transport_and_queue_ms = anchor - written - fall.server_ttft_ms
        end = written + max(fall.transport_and_queue_ms, 0.0)
        rows.append(WaterfallRow("transport + queue", written, end, "difference"))
    return fall


def _client_rows(r: HudRecord) -> list[WaterfallRow]:
    rows = [WaterfallRow("request written", 0.0, 0.0, "client")]
    if r.headers_ms is not None:
        rows.append(WaterfallRow("response headers", 0.0, r.headers_ms, "client"))
    after = first_call_end(r.calls)  # a turn with tools: the calls' rows say the rest
    for name, start, end, figures, note in r.stages:
        if after is not None and start >= after:
            continue
        if name == IMAGES_COUNTED and r.prompt_tokens:  # the tokens the server counted
            name, figures = IMAGES_WITH_TOKENS, (*figures, ("tokens", r.prompt_tokens))
        stop = end if end is not None else (r.e2el_ms if r.e2el_ms is not None else start)
        if name == Stage.UNDERSTANDING.value:
            rows.extend(_understanding_rows(r, start, stop, note))
        else:
            rows.append(WaterfallRow(name, start, stop, "client", figures, note))
        if note is not None and note.decided_ms is not None and note.decided_at_ms is not None:
            decided = start + note.decided_at_ms  # the rules: a moment; the classifier: its wait
            begun = decided - note.decided_ms
            rows.append(WaterfallRow(ROUTE_DECISION, begun, decided, "client", note=note))
    rows.extend(call_rows(r.calls))
    if r.ttft_ms is not None:
        rows.append(WaterfallRow("first token", r.ttft_ms, r.ttft_ms, "client"))
    last = last_call(r.calls)  # with tools the metrics leave the tools' time out: the stamp
    ended = last.last_output_ms if last is not None else r.e2el_ms
    if ended is not None:
        rows.append(WaterfallRow("last token", ended, ended, "client"))
    if r.ttft_ms is not None and r.paint_ms is not None:
        rows.append(WaterfallRow("painted", r.ttft_ms, r.ttft_ms + r.paint_ms, "client"))
    return rows


def _understanding_rows(
    r: HudRecord, start: float, stop: float, note: RouteNote | None
) -> list[WaterfallRow]:
    """The understanding stage in the parts the stamps tell apart (turn_state.wait_parts);
    a cascade's route is noted on the last part."""
    parts = wait_parts(start, stop, r.headers_ms, r.ttft_ms)
    rows = [WaterfallRow(name, begin, end, "client") for name, begin, end in parts]
    rows[-1] = replace(rows[-1], note=note)
    return rows


def shown_states(
    record: HudRecord, said_after_ms: float = 0.0, at_once: Iterable[TurnState] = ()
) -> tuple[TurnState, ...]:
    """The states the request went through, as its waterfall says them, in order: those
    the status line said (it says a state once the wait passed `said_after_ms`, and
    those `at_once` whenever they come)."""
    rows = [row for row in _client_rows(record) if row.state is not None]
    origin = min((row.start_ms for row in rows), default=0.0)
    said = set(at_once)
    states: list[TurnState] = []
    for row in rows:
        state = row.state
        shown = state in said or row.end_ms > origin + said_after_ms
        if state is not None and shown and state not in states:
            states.append(state)
    return tuple(states)


# What type-ahead (client/services/warming/type_ahead.py) saved, by the server's counts.
QUESTION_READ = "question read while typing: {tokens} tokens, saved about {ms} ms"
QUESTION_READ_TOKENS = "question read while typing: {tokens} tokens"


def _question_read(v: dict[str, float]) -> list[WaterfallRow]:
    if "tokens" not in v:
        return []
    tokens = ("tokens", int(v["tokens"]))
    if "saved_ms" not in v:
        return [WaterfallRow(QUESTION_READ_TOKENS, 0.0, 0.0, "client", (tokens,))]
    figures = (tokens, ("ms", int(v["saved_ms"])))
    return [WaterfallRow(QUESTION_READ, 0.0, 0.0, "client", figures)]


# -- a turn with tools ------------------------------------------------------------------

# The rows' names (templates: {step}, {tool} and the figures; the window translates them).
TOOL_SERVERS_ROW = "tool servers ready"  # the wait for their tools (a start, the first time)
MODEL_CALL_ROW = "model call {step}"
RESULTS_READ_ROW = "model call {step} · reading the results"
ARGUMENTS_ROW = "{tool} · arguments streamed"
APPROVAL_ROW = "{tool} · waiting for your approval (not latency)"
RUN_ROW = "{tool} · run · result {chars} characters"
RUN_ERROR_ROW = "{tool} · run · error, {chars} characters"
NOT_RUN_ROW = "{tool} · not run · {chars} characters"
TOOL_SIDE, APPROVAL_SIDE = "tool", "approval"  # beside "client", "server", "difference"


def call_rows(calls: Iterable[StageRecord]) -> list[WaterfallRow]:
    """Each call's rows, the calls in the order they began (a model call before the
    tool calls it made)."""
    rows: list[WaterfallRow] = []
    for record in sorted(calls, key=lambda r: (r.start_ms, r.model_call is None)):
        if record.stage == TOOL_SERVERS and record.end_ms is not None:
            rows.append(WaterfallRow(TOOL_SERVERS_ROW, record.start_ms, record.end_ms, TOOL_SIDE))
        elif record.model_call is not None:
            rows.extend(_model_rows(record, record.model_call))
        elif record.tool_call is not None:
            rows.extend(_tool_rows(record, record.tool_call))
    return rows


def _model_rows(record: StageRecord, part: ModelCallPart) -> list[WaterfallRow]:
    step = (("step", part.step),)
    end = record.end_ms if record.end_ms is not None else record.start_ms
    rows = [WaterfallRow(MODEL_CALL_ROW, record.start_ms, end, "client", step)]
    if part.step > 1 and part.written_ms is not None and part.first_output_ms is not None:
        read = WaterfallRow(RESULTS_READ_ROW, part.written_ms, part.first_output_ms, "client", step)
        rows.append(read)
    return rows


def _tool_rows(record: StageRecord, part: ToolCallPart) -> list[WaterfallRow]:
    tool, chars = part.tool, (("chars", part.result_chars),)
    rows: list[WaterfallRow] = []
    if part.arguments is not None:
        rows.append(WaterfallRow(ARGUMENTS_ROW, *part.arguments, "client", tool=tool))
    if part.approval is not None:
        rows.append(WaterfallRow(APPROVAL_ROW, *part.approval, APPROVAL_SIDE, tool=tool))
    if part.run is not None:
        label = RUN_ERROR_ROW if part.is_error else RUN_ROW
        rows.append(WaterfallRow(label, *part.run, TOOL_SIDE, chars, tool=tool))
    else:  # denied, invalid or past the limit: its result at once
        at = record.end_ms if record.end_ms is not None else record.start_ms
        rows.append(WaterfallRow(NOT_RUN_ROW, at, at, TOOL_SIDE, chars, tool=tool))
    return rows


def last_call(calls: Iterable[StageRecord]) -> ModelCallPart | None:
    """The turn's last model call (whose stream gave the server's timings) when it made
    more than one (None: one call, whose figures are the request's)."""
    parts = [r.model_call for r in calls if r.model_call is not None]
    last = max(parts, key=lambda part: part.step) if parts else None
    return last if last is not None and last.step > 1 else None


def first_call_end(calls: Iterable[StageRecord]) -> float | None:
    """When the turn's first model call ended (None: a turn without tools)."""
    ends = [r.end_ms for r in calls if r.model_call is not None and r.model_call.step == 1]
    return ends[0] if ends else None
