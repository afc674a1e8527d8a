"""What a chat session tells its listeners (the ui adapts these to Qt signals).

A generation yields: StageChanged* / Token* / SlowStart? ... then exactly one Finished.
Every Finished keeps the text that arrived and lists the next steps the user can take.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from client.backends.errors import BackendUnreachable, TachyError
from client.backends.reasons import without_errno
from client.core.metrics import RequestMetrics


class TurnState(StrEnum):
    """What a turn is doing: the one enum of its states (client/services/chat/turn_state.py
    reads them from real signals and holds their words). The timeline's stages are
    states too (Stage: LOADING, UNDERSTANDING, RETRIEVING, THINKING, ANSWERING), stored
    by their values."""

    QUEUED = "queued"  # no server yet: the route is decided, the turn stored
    CONNECTING = "connecting"  # the request is being sent
    WAITING = "waiting"  # the request was written; nothing came back yet
    LOADING = "loading"  # a signal says the server is loading the model
    # The timeline's stage from the start to the first token (routing, then the server
    # reading the prompt); said as READING, split by the waterfall at its stamps.
    UNDERSTANDING = "understanding"
    READING = "reading"  # the server accepted it (headers or a byte): reading the question
    RETRIEVING = "retrieving"  # the knowledge stage (only when knowledge is on)
    THINKING = "thinking"  # a reasoning model streams its reasoning
    ANSWERING = "answering"  # answer tokens flowing
    STALLED = "stalled"  # tokens had come, and none for STALL_AFTER_MS: read on a timer
    APPROVAL = "approval"  # a tool call waits for the user's yes (never counted as latency)
    USING_TOOL = "using_tool"  # a tool the model asked for runs (its own time, not latency)
    DONE = "done"
    STOPPED = "stopped"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


Stage = TurnState  # a timeline stage is one of the turn's states (the same enum)


class Outcome(StrEnum):
    COMPLETE = "complete"
    STOPPED = "stopped"  # the user pressed Stop / Esc
    INTERRUPTED = "interrupted"  # reset, stall or error line after text began
    FAILED = "failed"  # server error before any text
    UNREACHABLE = "unreachable"  # could not connect
    TIMED_OUT = "timed_out"  # no first token in time and the user cancelled


class NextStep(StrEnum):
    CONTINUE = "continue"
    CONTINUE_OTHER = "continue_other"  # a cascade: go on with the other model
    RETRY = "retry"
    EDIT_QUESTION = "edit_question"
    CHOOSE_SERVER = "choose_server"
    USE_LOCAL = "use_local"
    KEEP_WAITING = "keep_waiting"
    CANCEL = "cancel"


NEXT_STEPS: dict[Outcome, tuple[NextStep, ...]] = {
    Outcome.COMPLETE: (),
    Outcome.STOPPED: (NextStep.CONTINUE, NextStep.RETRY),
    Outcome.INTERRUPTED: (NextStep.CONTINUE, NextStep.RETRY),
    Outcome.FAILED: (NextStep.RETRY, NextStep.EDIT_QUESTION),
    Outcome.UNREACHABLE: (NextStep.RETRY, NextStep.CHOOSE_SERVER, NextStep.USE_LOCAL),
    Outcome.TIMED_OUT: (NextStep.RETRY, NextStep.EDIT_QUESTION),
}


def next_steps(
    outcome: Outcome, *, has_text: bool, length_cut: bool, has_fallback: bool, is_local: bool
) -> tuple[NextStep, ...]:
    """What the user is offered after an answer ended so: NEXT_STEPS, adjusted for the
    text kept, a cascade's other model and a route that is already local."""
    if outcome is Outcome.COMPLETE:
        return (NextStep.CONTINUE,) if length_cut else ()
    steps = list(NEXT_STEPS[outcome])
    if has_text and outcome in (Outcome.FAILED, Outcome.UNREACHABLE, Outcome.TIMED_OUT):
        steps.insert(0, NextStep.CONTINUE)  # a Continue that failed: the old text is kept
    if not has_text and NextStep.CONTINUE in steps:
        steps = [NextStep.RETRY, NextStep.EDIT_QUESTION]  # nothing to continue
    if NextStep.CONTINUE in steps and has_fallback:
        steps.insert(steps.index(NextStep.CONTINUE) + 1, NextStep.CONTINUE_OTHER)
    if is_local and NextStep.USE_LOCAL in steps:
        steps.remove(NextStep.USE_LOCAL)
    return tuple(steps)


def failure_outcome(error: Exception, has_text: bool) -> tuple[Outcome, str]:
    """How an answer that failed with `error` ended, and its sentence for the user."""
    if isinstance(error, BackendUnreachable):
        outcome = Outcome.UNREACHABLE
    else:
        outcome = Outcome.INTERRUPTED if has_text else Outcome.FAILED
    return outcome, failure_sentence(error)


def failure_sentence(error: Exception) -> str:
    """What the user reads of an error: its own sentence, else a plain one."""
    if isinstance(error, TachyError):
        return error.user_message
    return f"Something went wrong: {without_errno(str(error) or type(error).__name__)}"


@dataclass(frozen=True, slots=True)
class StageChanged:
    stage: Stage
    at_ns: int


@dataclass(frozen=True, slots=True)
class SlowStart:
    """No first token within the first-token timeout. The request keeps running:
    the ui offers Keep waiting (do nothing) or Cancel (stop the generation)."""

    waited_s: float
    next_steps: tuple[NextStep, ...] = (NextStep.KEEP_WAITING, NextStep.CANCEL)


@dataclass(frozen=True, slots=True)
class Finished:
    outcome: Outcome
    text: str
    thinking: str = ""
    error_message: str = ""  # a sentence for the user; empty when complete/stopped
    next_steps: tuple[NextStep, ...] = ()
    metrics: RequestMetrics = field(default_factory=RequestMetrics)
    message_id: int | None = None  # the stored assistant message
