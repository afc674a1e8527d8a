"""What a turn is doing now: one value, read from real signals only (STYLE 15).

Every view renders this value with one set of words (the window's
client/ui/common/turn_words.py, `tachy chat --json`'s "state" lines). A state is
entered only on a signal this process saw: the request's own stamps (written,
headers, first byte), the server's prefill progress, a token's kind, the warmer's
model state (the loading stage), the knowledge stage, and how the turn ended.

    queued -> connecting -> waiting -> reading -> (thinking) -> answering -> done
                              \\-> loading ->/          (or stopped, failed, interrupted)
"""

from __future__ import annotations

from dataclasses import dataclass

from client.core.events import Done, DoneReason, Failed, Token, TokenKind
from client.core.timeline import STALL_AFTER_MS, RequestTimeline, now_ns
from client.services.chat.session_events import Outcome, Stage, TurnState

# The one set of words for the states, in English: `tachy chat --stages` prints them, the
# waterfall's rows say them in the command line's text; the window's translatable copy
# (client/ui/common/turn_words.py) is the same text (tests/ui/common compares them).
STATE_WORDS = {
    TurnState.QUEUED: "Getting ready",
    TurnState.CONNECTING: "Connecting",
    TurnState.WAITING: "Waiting for the server",
    TurnState.LOADING: "Loading the model",
    TurnState.UNDERSTANDING: "Reading your question",  # the stage, said as its state
    TurnState.READING: "Reading your question",
    TurnState.RETRIEVING: "Searching your notes",
    TurnState.THINKING: "Thinking",
    TurnState.ANSWERING: "Answering",
    TurnState.STALLED: "No token for a while",
    TurnState.APPROVAL: "Waiting for your approval",
    TurnState.USING_TOOL: "Using a tool",
    TurnState.DONE: "Done",
    TurnState.STOPPED: "Stopped",
    TurnState.FAILED: "Failed",
    TurnState.INTERRUPTED: "Interrupted",
}

ENDED = (TurnState.DONE, TurnState.STOPPED, TurnState.FAILED, TurnState.INTERRUPTED)

# The waterfall's rows for the parts of the understanding stage before the server
# accepted the request (client/services/hud/waterfall.py splits it where the request was
# written and where its response headers came): the route decided and the turn stored,
# then the request written and nothing back yet.
QUEUED_ROW = "queued"
WAITING_ROW = "waiting"

# Where each stage of the timeline (the waterfall's rows, the stored stages) stands:
# a stage is its state, but "understanding", said as reading (the rows split it).
STAGE_STATES = {
    **{state.value: state for state in TurnState},
    Stage.UNDERSTANDING.value: TurnState.READING,
}

OUTCOME_STATES = {
    Outcome.COMPLETE: TurnState.DONE,
    Outcome.STOPPED: TurnState.STOPPED,
    Outcome.INTERRUPTED: TurnState.INTERRUPTED,
    Outcome.FAILED: TurnState.FAILED,
    Outcome.UNREACHABLE: TurnState.FAILED,
    Outcome.TIMED_OUT: TurnState.STOPPED,  # the user cancelled the wait: nothing failed
}


@dataclass(frozen=True, slots=True)
class StateChanged:
    """The turn entered `state` at `at_ns` (perf_counter_ns, this process)."""

    state: TurnState
    at_ns: int


def live_state(
    stage: str | None, timeline: RequestTimeline, sending: bool, at_ns: int | None = None
) -> TurnState:
    """The state of a turn under way: its stage (from the warmer, the knowledge stage
    and the tokens), and before the first token the request's own stamps. `sending`:
    the request has been handed to its server; `at_ns`: now (the clock is a signal too:
    tokens that stop coming mid-answer are a stall, whether or not they resume)."""
    if stage in (Stage.ANSWERING.value, Stage.THINKING.value) and timeline.tokens:
        silent_ns = (at_ns if at_ns is not None else now_ns()) - timeline.tokens[-1].at_ns
        if silent_ns > STALL_AFTER_MS * 1e6:
            return TurnState.STALLED
    if stage is not None and stage != Stage.UNDERSTANDING.value:
        return STAGE_STATES.get(stage, TurnState.READING)
    if not sending:
        return TurnState.QUEUED
    if timeline.headers_ns is not None or timeline.first_byte_ns is not None:
        return TurnState.READING
    if timeline.prefill is not None:
        return TurnState.READING
    if timeline.request_written_ns is not None:
        return TurnState.WAITING
    return TurnState.CONNECTING


def wait_parts(
    start_ms: float, stop_ms: float, headers_ms: float | None, ttft_ms: float | None
) -> list[tuple[str, float, float]]:
    """The understanding stage (start_ms..stop_ms, in ms since the request was written)
    in the parts its request's stamps tell apart, each as (row, start, end): getting
    ready (the route decided, the turn stored) until the request was written, waiting
    for the server until its response headers, then reading the question. A request
    that got nothing back waited for the server all along; one without its headers'
    time (stored before they were kept) stays one part: no signal splits it."""
    accepted = headers_ms
    if accepted is None and ttft_ms is None:
        accepted = stop_ms  # no header, no byte: the server never took it up
    whole = [(Stage.UNDERSTANDING.value, start_ms, stop_ms)]
    if accepted is None:
        return whole
    parts = [
        (QUEUED_ROW, start_ms, min(stop_ms, 0.0)),  # 0: the request written
        (WAITING_ROW, max(start_ms, 0.0), min(stop_ms, accepted)),
        (Stage.UNDERSTANDING.value, max(start_ms, accepted), stop_ms),
    ]
    return [part for part in parts if part[2] > part[1]] or whole


def stage_state(stage: str) -> TurnState | None:
    """The state a stored stage stands for (None: not a stage, e.g. "route decision")."""
    return STAGE_STATES.get(stage)


class StreamStates:
    """The states of one answer stream read without a session (`tachy chat --json`):
    the same value, from the same signals, as a Generation's."""

    def __init__(self, timeline: RequestTimeline) -> None:
        self._timeline = timeline
        self._stage: str | None = None
        self._ended: TurnState | None = None
        self._told: TurnState | None = None

    def loading(self, on: bool) -> TurnState | None:
        """The server answered 503 "Loading model" (on) or took the request (off):
        the loading state, as a generation's loading stage; the state when it changed."""
        self._stage = Stage.LOADING.value if on else None
        return self.after(None)

    def after(self, event: object | None) -> TurnState | None:
        """The state after `event` (None: time passed), when it changed."""
        if isinstance(event, Token):
            thinking = event.kind is TokenKind.THINKING
            self._stage = (Stage.THINKING if thinking else Stage.ANSWERING).value
        elif isinstance(event, Done):
            cancelled = event.reason is DoneReason.CANCELLED
            self._ended = TurnState.STOPPED if cancelled else TurnState.DONE
        elif isinstance(event, Failed):
            kept = event.partial_text or event.partial_thinking
            self._ended = TurnState.INTERRUPTED if kept else TurnState.FAILED
        state = self._ended or live_state(self._stage, self._timeline, sending=True)
        if state is self._told:
            return None
        self._told = state
        return state
