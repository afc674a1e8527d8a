"""What the tool loop (loop.py) tells its views, each with a perf_counter_ns stamp, and
how a turn with tools ended.

A turn is model calls (step 1, 2, ...) with tool calls between them:

    ModelCallStarting(step) -> the stream's own events (Started, Token, ToolCallStarted,
    ToolCallArguments, ToolCallsRequested, Done | Failed) -> ModelCallEnded
    -> per call: ToolCallReady -> ApprovalWaiting? -> ApprovalGiven -> ToolRunning
       -> ToolProgressed* -> ToolFinished
    -> ModelCallStarting(step + 1) ... -> LoopEnded(outcome)

The approval wait is the user's time, never latency: `LoopFigures` keeps it apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.core.events import Done, Failed
from client.core.tools import ToolCall, ToolResult
from client.services.tools.approval import ApprovalChoice
from client.services.tools.tool_types import ToolProgress

STEP_LIMIT = 8  # model calls in one turn (a setting: loop.step_limit)
STOPPED_BEFORE = "stopped by the user before it ran"
STOPPED_WHILE = "stopped by the user while it ran"
NOT_RUN_LIMIT = "not run: the turn reached its limit of {limit} model calls"
NO_SUCH_TOOL = "there is no tool called {name}"
INVALID_CALL = "the call was not run: {error}"
STEP_LIMIT_SENTENCE = "The model still called tools after {limit} model calls, so Tachy stopped."


@dataclass(frozen=True, slots=True)
class ModelCallStarting:
    """The model is called (again): step 1 is the question, each later one reads results."""

    step: int
    at_ns: int


@dataclass(frozen=True, slots=True)
class ModelCallEnded:
    step: int
    outcome: Done | Failed | None  # None: the stream ended without saying how
    at_ns: int


@dataclass(frozen=True, slots=True)
class ToolCallReady:
    """A call's arguments are complete: it may be approved now (never before)."""

    step: int
    call: ToolCall
    server: str  # "" when no offered tool has its name
    at_ns: int


@dataclass(frozen=True, slots=True)
class ApprovalWaiting:
    step: int
    call: ToolCall
    server: str
    at_ns: int


@dataclass(frozen=True, slots=True)
class ApprovalGiven:
    """`choice` None: nobody was asked (the tool is always allowed)."""

    step: int
    call: ToolCall
    choice: ApprovalChoice | None
    at_ns: int


@dataclass(frozen=True, slots=True)
class ToolRunning:
    step: int
    call: ToolCall
    server: str
    at_ns: int


@dataclass(frozen=True, slots=True)
class ToolProgressed:
    step: int
    call: ToolCall
    progress: ToolProgress
    at_ns: int


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """A call's result, as the model gets it. ms: the tool's run (0 when nothing ran:
    denied, invalid, unknown, past the limit); problem: None, "denied", "invalid",
    "unknown", "limit", "timeout", "server", "tool"."""

    step: int
    call: ToolCall
    result: ToolResult
    ms: float
    at_ns: int
    problem: str | None = None

    @property
    def is_error(self) -> bool:
        return self.result.is_error

    @property
    def size(self) -> int:
        """The result's size in characters (what the model's next prefill reads)."""
        return len(self.result.content)


@dataclass(frozen=True, slots=True)
class Answered:
    """The model answered without asking for more tools."""

    done: Done


@dataclass(frozen=True, slots=True)
class StepLimitReached:
    """The last model call allowed still asked for tools; they were not run."""

    limit: int

    @property
    def sentence(self) -> str:
        return STEP_LIMIT_SENTENCE.format(limit=self.limit)


@dataclass(frozen=True, slots=True)
class ModelFailed:
    failed: Failed


@dataclass(frozen=True, slots=True)
class ModelStopped:
    """The model's stream ended cancelled or without an outcome (not by our Stop)."""

    done: Done | None


LoopOutcome = Answered | StepLimitReached | ModelFailed | ModelStopped


@dataclass(frozen=True, slots=True)
class LoopEnded:
    outcome: LoopOutcome
    at_ns: int


LoopEvent = (
    ModelCallStarting | ModelCallEnded | ToolCallReady | ApprovalWaiting | ApprovalGiven
    | ToolRunning | ToolProgressed | ToolFinished | LoopEnded
)  # fmt: skip


@dataclass(slots=True)
class ModelCallTiming:
    """One model call's stamps: written (its Started), first output (a token or a call's
    name: after step 1 this wait is the model's prefill of the results, its second TTFT)."""

    step: int
    started_ns: int
    written_ns: int | None = None
    first_output_ns: int | None = None
    ended_ns: int | None = None

    @property
    def ttft_ms(self) -> float | None:
        if self.first_output_ns is None:
            return None
        return (self.first_output_ns - (self.written_ns or self.started_ns)) / 1e6

    @property
    def ms(self) -> float:
        return _ms(self.started_ns, self.ended_ns)


@dataclass(slots=True)
class ToolCallTiming:
    """One tool call's stamps: arguments streamed (opened -> ready), the approval wait
    (not latency), the run, and the result's size."""

    step: int
    call_id: str
    name: str
    server: str = ""
    opened_ns: int | None = None  # its name arrived
    ready_ns: int | None = None  # its arguments were complete
    asked_ns: int | None = None
    answered_ns: int | None = None
    run_started_ns: int | None = None
    run_ended_ns: int | None = None
    result_chars: int = 0
    is_error: bool = False
    choice: ApprovalChoice | None = None

    @property
    def arguments_ms(self) -> float:
        return _ms(self.opened_ns, self.ready_ns)

    @property
    def approval_ms(self) -> float:
        return _ms(self.asked_ns, self.answered_ns)

    @property
    def run_ms(self) -> float:
        return _ms(self.run_started_ns, self.run_ended_ns)


@dataclass(slots=True)
class LoopFigures:
    """The turn's time split: model calls, tool runs, and the user's approval (apart)."""

    model_calls: list[ModelCallTiming] = field(default_factory=list)
    tool_calls: list[ToolCallTiming] = field(default_factory=list)

    @property
    def model_ms(self) -> float:
        return sum(call.ms for call in self.model_calls)

    @property
    def tools_ms(self) -> float:
        """The time while any tool ran (parallel calls overlap: not their sum)."""
        runs = sorted(
            (call.run_started_ns, call.run_ended_ns)
            for call in self.tool_calls
            if call.run_started_ns is not None and call.run_ended_ns is not None
        )
        total, reached = 0, 0
        for start, end in runs:
            total += max(0, end - max(start, reached))
            reached = max(reached, end)
        return total / 1e6

    @property
    def approval_ms(self) -> float:
        return sum(call.approval_ms for call in self.tool_calls)

    @property
    def tools_share(self) -> float:
        """The tools' share of the turn's working time (approval left out)."""
        total = self.model_ms + self.tools_ms
        return self.tools_ms / total if total > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "model_calls": len(self.model_calls),
            "tool_calls": len(self.tool_calls),
            "model_ms": round(self.model_ms, 3),
            "tools_ms": round(self.tools_ms, 3),
            "approval_ms": round(self.approval_ms, 3),
            "tools_share": round(self.tools_share, 4),
            "result_ttft_ms": [  # each later call's prefill of the results
                round(ms, 3) for call in self.model_calls[1:] if (ms := call.ttft_ms) is not None
            ],
        }


def _ms(start_ns: int | None, end_ns: int | None) -> float:
    if start_ns is None or end_ns is None:
        return 0.0
    return max(0, end_ns - start_ns) / 1e6
