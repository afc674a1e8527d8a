"""The waterfall of one request: the client's phases beside the server's own timings,
with the difference attributed to transport + queue (the HUD's Waterfall tab)."""

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

    @property
    def state(self) -> TurnState | None:
        """The turn's state this row stands for (None: a moment or a server's row)."""
        return stage_state(self.label)

    @property
    def text(self) -> str:
        """The row's name in English: a stage's is its state's words (STATE_WORDS)."""
        state = self.state
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


def build_waterfall(record: HudRecord) -> Waterfall:
    """Client rows from the request's stamps; server rows anchored so the server's first
    token lands on the client's (their clocks cannot be compared, only durations)."""
    rows = _client_rows(record)
    rows.extend(_question_read(record.server_timings.get(TYPE_AHEAD_SOURCE, {})))
    fall = Waterfall(rows)
    if record.ttft_ms is None:
        return fall
    for timings in decode_report(record.server_timings).values():
        server_ttft = timings.first_token_ms()
        phases = timings.phases()
        if phases and server_ttft is not None:
            fall.server_source = timings.source
            kind = kind_named(timings.source)
            fall.server_name = kind.display_name if kind is not None else timings.source
            fall.server_ttft_ms = server_ttft
            ttft = record.ttft_ms
            rows.extend(
                WaterfallRow(p.label, ttft + p.start_ms, ttft + p.end_ms, "server", p.figures)
                for p in phases
            )
            break
    if fall.server_ttft_ms is not None:
        fall.transport_and_queue_ms = record.ttft_ms - fall.server_ttft_ms
        rows.append(
            WaterfallRow(
                "transport + queue", 0.0, max(fall.transport_and_queue_ms, 0.0), "difference"
            )
        )
    return fall


def _client_rows(r: HudRecord) -> list[WaterfallRow]:
    rows = [WaterfallRow("request written", 0.0, 0.0, "client")]
    if r.headers_ms is not None:
        rows.append(WaterfallRow("response headers", 0.0, r.headers_ms, "client"))
    for name, start, end, figures, note in r.stages:
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
    if r.ttft_ms is not None:
        rows.append(WaterfallRow("first token", r.ttft_ms, r.ttft_ms, "client"))
    if r.e2el_ms is not None:
        rows.append(WaterfallRow("last token", r.e2el_ms, r.e2el_ms, "client"))
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
