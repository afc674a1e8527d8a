"""The tool loop: call the model; when it asks for tools, ask the user, run them, give it
their results, and call it again, until it answers or the turn's step limit is reached.

    loop = ToolLoop(model_call, offer, servers, approver, step_limit=8)
    async for event in loop.run(request):   # the streams' events and loop_events.py's
        ...
    loop.transcript   # the messages this turn added (assistant, tool, ...), also after Stop
    loop.outcome      # Answered | StepLimitReached | ModelFailed | ModelStopped; None: stopped
    loop.figures      # each model call's and tool call's stamps (the waterfall, bench)

`model_call(request)` opens one model call: any async iterable of core stream events
(`backend.chat(request, timeouts)` fits; one with `aclose` is closed after). A call is
never put to the user before its arguments are complete (the model's message ended), and
a call the model makes after reading a result is asked about like any other: a result is
data for the model, never an instruction to Tachy. A tool's error, a denial and a call
that cannot run all go back to the model as results marked as errors.

Cancelling the task that iterates `run` (Stop, Esc, Ctrl-C) cancels at once whatever is
under way: the approval the user is asked for, the running tools (MCP's cancellation)
and the model's request (its response closed). Everything that arrived is kept: the
model's words so far, and a result for every call it made (those not finished say that
the user stopped them), so the transcript is one the model can be sent again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass, replace
from typing import Any, Protocol

from client.core.conversation import ChatMessage, ChatRequest
from client.core.events import (
    Done,
    DoneReason,
    Failed,
    Started,
    StreamEvent,
    Token,
    TokenKind,
    ToolCallsRequested,
    ToolCallStarted,
)
from client.core.timeline import now_ns
from client.core.tools import ToolCall, ToolResult
from client.services.tools import loop_events as ev
from client.services.tools.approval import DENIED_BY_USER, ApprovalChoice
from client.services.tools.connection import ProgressListener
from client.services.tools.tool_offer import OfferedTool, ToolOffer
from client.services.tools.tool_servers import CALL_TIMEOUT_S
from client.services.tools.tool_types import ToolProgress
from client.services.tools.tool_types import ToolResult as ServerResult
from client.store.settings import Settings

log = logging.getLogger(__name__)
STEP_LIMIT_KEY = "tool_step_limit"
STEP_LIMIT_MOST = 64
LoopItem = StreamEvent | ev.LoopEvent


class ModelCall(Protocol):
    """Opens one model call for a request: its stream of core events."""

    def __call__(self, request: ChatRequest) -> AsyncIterable[StreamEvent]: ...


@dataclass(frozen=True, slots=True)
class ApprovalAsk:
    """What the user is asked about: a complete call, its server and what the tool does."""

    call: ToolCall
    server: str
    description: str
    step: int


class Approver(Protocol):
    """Asks the user; cancelling the await takes the question away."""

    async def __call__(self, ask: ApprovalAsk) -> ApprovalChoice: ...


class ApprovalPolicy(Protocol):
    """ToolApproval fits: whether to ask, and the answer recorded ("always" is kept)."""

    def needs_asking(self, server: str, tool: str) -> bool: ...
    def decide(self, server: str, tool: str, choice: ApprovalChoice) -> bool: ...


class ToolRunner(Protocol):
    """ToolServers fits."""

    @property
    def approval(self) -> ApprovalPolicy: ...

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, timeout_s: float = ...,
        on_progress: ProgressListener | None = None,
    ) -> ServerResult: ...  # fmt: skip


def step_limit(settings: Settings | None) -> int:
    """The turn's most model calls, from the settings (default 8)."""
    value = settings.get(STEP_LIMIT_KEY) if settings is not None else None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return min(value, STEP_LIMIT_MOST)
    return ev.STEP_LIMIT


class ToolLoop:
    def __init__(
        self,
        model_call: ModelCall | None,  # None: the caller makes the calls (start_call ...)
        offer: ToolOffer,
        runner: ToolRunner,
        approver: Approver,
        *,
        step_limit: int = ev.STEP_LIMIT,
        call_timeout_s: float = CALL_TIMEOUT_S,
    ) -> None:
        self._model_call = model_call
        self.offer = offer
        self._runner = runner
        self._approver = approver
        self.step_limit = max(1, step_limit)
        self.call_timeout_s = call_timeout_s
        self.transcript: list[ChatMessage] = []
        # A Continue: the partial answer the first call goes on from. The first round's
        # assistant message starts with it (one message: its words and its calls), and
        # the caller sends the later calls without it (see ToolTurn's later_request).
        self.continues = ""
        self.outcome: ev.LoopOutcome | None = None
        self.figures = ev.LoopFigures()
        self.step = 0
        self._words: list[str] = []  # the model call's answer so far
        self._calls: tuple[ToolCall, ...] = ()  # the step's calls awaiting results
        self._results: dict[str, ToolResult] = {}
        self._running: set[str] = set()

    @property
    def stopped(self) -> bool:
        """The turn was cancelled before it ended."""
        return self.outcome is None and self.step > 0

    def will_ask(self, name: str) -> bool:
        """Whether a call to the tool `name` will wait for the user's yes (an unknown
        tool is never asked about: its call is answered with an error)."""
        offered = self.offer.find(name)
        return offered is not None and self._runner.approval.needs_asking(
            offered.server, offered.tool)  # fmt: skip

    async def run(self, request: ChatRequest) -> AsyncIterator[LoopItem]:
        """The turn's events; the request's messages are the conversation so far."""
        try:
            while self.outcome is None:
                asked, starting = self.start_call(request)
                yield starting
                outcome: Done | Failed | None = None
                async for event in self._stream(asked):
                    yield event
                    if isinstance(event, Done | Failed):
                        outcome = event
                async for item in self.end_call(outcome):
                    yield item
        except BaseException:  # cancelled (or a bug): keep what arrived, results included
            self.stop()
            raise

    # --- one model call at a time (a pipeline that makes the model calls itself) ---------
    def start_call(self, request: ChatRequest) -> tuple[ChatRequest, ev.ModelCallStarting]:
        """The next model call's request: the conversation (`request`'s messages), what
        this turn added, the offered tools. Hand each of its stream's events to `hear`."""
        self.step += 1
        self._words = []
        timing = ev.ModelCallTiming(self.step, now_ns())
        self.figures.model_calls.append(timing)
        messages = [*request.messages, *self.transcript]
        asked = replace(request, messages=messages, tools=self.offer.specs)
        return asked, ev.ModelCallStarting(self.step, timing.started_ns)

    def hear(self, event: StreamEvent) -> None:
        """One event of the current model call's stream (stamps, words, calls)."""
        self._note(event, self.figures.model_calls[-1])

    async def end_call(self, outcome: Done | Failed | None) -> AsyncIterator[ev.LoopEvent]:
        """After the model call ended: its tools asked about and run (then `outcome` is
        still None: call `start_call` again), or the turn's end (`LoopEnded`)."""
        timing = self.figures.model_calls[-1]
        timing.ended_ns = now_ns()
        yield ev.ModelCallEnded(self.step, outcome, timing.ended_ns)
        if isinstance(outcome, Done) and outcome.wants_tools:
            async for item in self._tool_step(outcome):
                yield item
        else:
            self._end(outcome)
        if self.outcome is not None:
            yield ev.LoopEnded(self.outcome, now_ns())

    def stop(self) -> None:
        """The turn was cancelled: keep the words that arrived and a result for every
        call (call it from the cancelled task's cleanup; `run` does)."""
        self._keep_partial()

    async def _stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        if self._model_call is None:
            raise TypeError("run() needs a model_call (else use start_call, hear, end_call)")
        stream = self._model_call(request)
        events = aiter(stream)
        try:
            async for event in events:
                self.hear(event)
                yield event
                if isinstance(event, Done | Failed):
                    return
        finally:  # the response is closed: cancelled, the server stops at once
            for closing in {getattr(events, "aclose", None), getattr(stream, "aclose", None)}:
                if closing is not None:
                    await closing()

    def _note(self, event: StreamEvent, timing: ev.ModelCallTiming) -> None:
        at = now_ns()
        if isinstance(event, Started):
            timing.written_ns = event.at_ns
        elif isinstance(event, Token) and event.kind is TokenKind.ANSWER:
            self._words.append(event.text)
        if isinstance(event, Token | ToolCallStarted) and timing.first_output_ns is None:
            timing.first_output_ns = at
        if isinstance(event, ToolCallStarted):
            self.figures.tool_calls.append(
                ev.ToolCallTiming(self.step, event.id, event.name, opened_ns=at)
            )
        elif isinstance(event, ToolCallsRequested):
            for call in event.calls:
                self._timing(call).ready_ns = at

    def _end(self, outcome: Done | Failed | None) -> None:
        if isinstance(outcome, Failed):
            self._keep_words(outcome.partial_text)
            self.outcome = ev.ModelFailed(outcome)
        elif outcome is None or outcome.reason is DoneReason.CANCELLED:
            self._keep_words(outcome.text if outcome is not None else "".join(self._words))
            self.outcome = ev.ModelStopped(outcome)
        else:
            self.transcript.append(ChatMessage("assistant", outcome.text))
            self.outcome = ev.Answered(outcome)

    # --- the tools of one step ----------------------------------------------------------
    async def _tool_step(self, done: Done) -> AsyncIterator[ev.LoopEvent]:
        words = self.continues + done.text if self.step == 1 else done.text
        self.transcript.append(ChatMessage("assistant", words, tool_calls=done.tool_calls))
        self._words = []
        self._calls, self._results = done.tool_calls, {}
        if self.step >= self.step_limit:
            for call in done.tool_calls:
                words = ev.NOT_RUN_LIMIT.format(limit=self.step_limit)
                yield self._settle(call, words, problem="limit")
            self.outcome = ev.StepLimitReached(self.step_limit)
        else:
            approved: list[tuple[ToolCall, OfferedTool]] = []
            for call in done.tool_calls:
                async for item in self._approve(call, approved):
                    yield item
            async for item in self._run_all(approved):
                yield item
        self._give_results()

    async def _approve(
        self, call: ToolCall, approved: list[tuple[ToolCall, OfferedTool]]
    ) -> AsyncIterator[ev.LoopEvent]:
        step, offered = self.step, self.offer.find(call.name)
        timing = self._timing(call)
        timing.server = offered.server if offered is not None else ""
        yield ev.ToolCallReady(step, call, timing.server, now_ns())
        if not call.valid:
            yield self._settle(call, ev.INVALID_CALL.format(error=call.error), problem="invalid")
            return
        if offered is None:
            yield self._settle(call, ev.NO_SUCH_TOOL.format(name=call.name), problem="unknown")
            return
        policy, choice = self._runner.approval, None
        if policy.needs_asking(offered.server, offered.tool):
            timing.asked_ns = now_ns()
            yield ev.ApprovalWaiting(step, call, offered.server, timing.asked_ns)
            ask = ApprovalAsk(call, offered.server, offered.description, step)
            choice = await self._approver(ask)
            timing.answered_ns, timing.choice = now_ns(), choice
            allowed = policy.decide(offered.server, offered.tool, choice)
        else:
            allowed = True
        yield ev.ApprovalGiven(step, call, choice, now_ns())
        if allowed:
            approved.append((call, offered))
        else:
            yield self._settle(call, DENIED_BY_USER, problem="denied")

    async def _run_all(
        self, approved: list[tuple[ToolCall, OfferedTool]]
    ) -> AsyncIterator[ev.LoopEvent]:
        """Run the approved calls side by side; their events as they happen."""
        if not approved:
            return
        heard: asyncio.Queue[ev.LoopEvent | None] = asyncio.Queue()
        tasks = [asyncio.create_task(self._run_one(c, o, heard)) for c, o in approved]
        try:
            left = len(tasks)
            while left:
                item = await heard.get()
                if item is None:
                    left -= 1
                else:
                    yield item
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _run_one(
        self, call: ToolCall, offered: OfferedTool, heard: asyncio.Queue[ev.LoopEvent | None]
    ) -> None:
        step, timing = self.step, self._timing(call)

        def progressed(progress: ToolProgress) -> None:
            if call.id in self._running:
                heard.put_nowait(ev.ToolProgressed(step, call, progress, now_ns()))

        try:
            timing.run_started_ns = now_ns()
            self._running.add(call.id)
            heard.put_nowait(ev.ToolRunning(step, call, offered.server, timing.run_started_ns))
            found = await self._server_result(call, offered, progressed)
            timing.run_ended_ns = now_ns()
            self._running.discard(call.id)
            heard.put_nowait(self._settle(call, found.text, found.is_error, found.elapsed_ms,
                                          found.problem))  # fmt: skip
        finally:
            heard.put_nowait(None)

    async def _server_result(
        self, call: ToolCall, offered: OfferedTool, progressed: ProgressListener
    ) -> ServerResult:
        try:
            return await self._runner.call(
                offered.server, offered.tool, call.arguments,
                timeout_s=self.call_timeout_s, on_progress=progressed,
            )  # fmt: skip
        except Exception as error:  # a bug below: the model hears of it, the turn goes on
            log.exception("tool %s of %s failed", offered.tool, offered.server)
            return ServerResult(f"the tool failed: {error}", True, 0.0, problem="tool")

    def _settle(
        self, call: ToolCall, text: str, is_error: bool = True, ms: float = 0.0,
        problem: str | None = None,
    ) -> ev.ToolFinished:  # fmt: skip
        result = ToolResult(call.id, call.name, text, is_error)
        self._results[call.id] = result
        timing = self._timing(call)
        timing.result_chars, timing.is_error = len(text), is_error
        return ev.ToolFinished(self.step, call, result, ms, now_ns(), problem)

    def _give_results(self) -> None:
        """One tool message per call, in the calls' order (what the model expects)."""
        calls, self._calls = self._calls, ()
        for call in calls:
            self.transcript.append(ChatMessage.tool_result(self._results[call.id]))
        self._results, self._running = {}, set()

    def _timing(self, call: ToolCall) -> ev.ToolCallTiming:
        for timing in reversed(self.figures.tool_calls):
            if timing.step == self.step and timing.call_id == call.id:
                return timing
        timing = ev.ToolCallTiming(self.step, call.id, call.name)
        self.figures.tool_calls.append(timing)
        return timing

    # --- stopped ------------------------------------------------------------------------
    def _keep_partial(self) -> None:
        """What a stopped turn keeps: the words so far, a result for every call."""
        now = now_ns()
        for timing in self.figures.model_calls:
            timing.ended_ns = timing.ended_ns or now
        for asked in self.figures.tool_calls:
            if asked.asked_ns is not None and asked.answered_ns is None:
                asked.answered_ns = now  # the question was taken away
        for call in self._calls:
            if call.id not in self._results:
                running = call.id in self._running
                if running:
                    self._timing(call).run_ended_ns = now
                words = ev.STOPPED_WHILE if running else ev.STOPPED_BEFORE
                self._results[call.id] = ToolResult(call.id, call.name, words, True)
                self._timing(call).result_chars, self._timing(call).is_error = len(words), True
        if self._calls:
            self._give_results()
        self._keep_words("".join(self._words))

    def _keep_words(self, text: str) -> None:
        self._words = []
        if text:
            self.transcript.append(ChatMessage("assistant", text))
