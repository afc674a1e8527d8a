"""The turn's tools: when the conversation uses MCP servers, each model call offers
their tools and, when the model asks for some, the tool loop (client/services/tools/loop.py)
asks the user, runs them and the model is called again, within the same turn.

    session.tools = TurnTools(tachy.tools, settings)   # the root attaches it (tools/turn_tools.py)
    session.tools.approver = window_approver            # the window asks the user

Stored as text in the answer: each tool call and its result is one line of the answer
(`tool_line`), written like the model's words, so it survives a crash and a restart,
Continue sends it back as the answer so far and Retry starts the turn afresh. The
model's exact transcript (the assistant message with its calls, the tool messages)
lives only while the turn runs.

Approval and a tool's run are stages of their own (TurnState.APPROVAL, USING_TOOL): the
waterfall and the footer show them, and they never count as latency (`tool_ns`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import Any

from client.core.events import Done, Token, TokenKind
from client.core.timeline import RequestTimeline, TokenStamp, now_ns
from client.core.tools import ToolResult
from client.services.chat.answer_writer import AnswerWriter
from client.services.chat.model_call import AnswerEnded, ModelCallResult
from client.services.chat.session_events import Outcome, SlowStart, Stage, StageChanged
from client.services.chat.turn_state import StateChanged
from client.services.chat.turn_steps import Outgoing, RunSettings, TurnAsk
from client.services.tools import loop_events as ev
from client.services.tools.loop import ToolLoop
from client.services.tools.turn_tools import TurnTools as TurnTools  # the root's

RESULT_CHARS = 400  # a result's text kept in the answer's line (the model gets it whole)


def tool_line(finished: ev.ToolFinished, server: str) -> str:
    """The answer's line for one call: `⚙ add {"a": 2} → 5 · 12 ms · demo`."""
    arguments = json.dumps(finished.call.arguments, ensure_ascii=False)
    result = " ".join(finished.result.content.split())
    if len(result) > RESULT_CHARS:
        result = result[:RESULT_CHARS] + "…"
    mark = "✗" if finished.is_error else "→"
    where = f" · {server}" if server else ""
    call = f"`⚙ {finished.call.name} {arguments}`"
    return f"\n\n{call} {mark} {result} · {finished.ms:.0f} ms{where}\n\n"


class ToolTurn:
    """The Generation's part that repeats the model call while the model asks for tools."""

    _settings: RunSettings
    ask: TurnAsk
    model_calls: list[ModelCallResult]
    conversation_id: int | None
    timeline: RequestTimeline
    _text_parts: list[str]
    _writer: AnswerWriter | None

    tool_loop: ToolLoop | None = None
    tool_name = ""  # the tool running now ("Using add… 1.2 s")
    tool_since_ns = 0  # when the current tool stage began
    tool_ns = 0  # the turn's time in tools and approvals so far
    _tool_stage_is_run = False  # the stage under way runs a tool (else: asks about one)
    _runs: tuple[tuple[str, str], ...] = ()  # the calls running now: (id, tool)
    tool_spans: tuple[tuple[int, int], ...] = ()  # each approval's and tool run's (start, end)
    # A later model call's own request stamps (written, headers, first byte), its tokens
    # and stages in the turn's: the turn's TTFT stays the first call's.
    _call_timeline: RequestTimeline | None = None

    def _model_call(self, outgoing: Outgoing) -> AsyncGenerator[Any, None]:
        raise NotImplementedError

    def _enter(self, stage: Stage, at_ns: int | None = None) -> StageChanged:
        raise NotImplementedError

    def _restate(self, at_ns: int | None = None) -> list[StateChanged]:
        raise NotImplementedError

    def _conclude(
        self, outcome: Outcome, error_message: str = "", length_cut: bool = False
    ) -> None:
        raise NotImplementedError

    async def _model_calls(self, outgoing: Outgoing) -> AsyncGenerator[Any, None]:
        """The model call, again after each tool step, up to the turn's limit."""
        tools = self._settings.tools
        most = self._settings.max_model_calls
        new = self.ask.conversation_id is None
        loop = await tools.loop_for(self.conversation_id, most, new) if tools else None
        self.tool_loop = loop
        for _ in range(most):
            sent = outgoing
            if loop is not None:
                asked, _starting = loop.start_call(outgoing.request)
                sent = replace(outgoing, request=asked)
            async for event in self._model_call(sent):
                yield event
            self._call_ended()
            ended = self.model_calls[-1]
            if isinstance(ended, AnswerEnded) or loop is None:
                return
            async for event in self._tool_step(loop, ended.done):
                yield event
            if loop.outcome is not None:  # the step limit: said, and the turn ends
                assert isinstance(loop.outcome, ev.StepLimitReached)
                yield self._say(f"\n\n{loop.outcome.sentence}\n")
                self._conclude(Outcome.COMPLETE)
                return
            timeline = self.timeline
            self._call_timeline = RequestTimeline(tokens=timeline.tokens, stages=timeline.stages)
            yield self._enter(Stage.UNDERSTANDING)  # the model reads the results
            for told in self._restate():
                yield told

    def _call_ended(self) -> None:
        """A later call's end is the turn's (its metrics' end of the answer)."""
        call, turn = self._call_timeline, self.timeline
        if call is not None:
            turn.done_ns, turn.finished_ns = call.done_ns, call.finished_ns
            turn.finish_reason = call.finish_reason

    def _first_output(self, loop: ToolLoop, done: Done) -> None:
        """A first call that wrote only tool calls: the calls are its output, stamped
        when the first one began (so the TTFT never holds a tool's or an approval's time)."""
        if self.timeline.tokens:
            return
        at = loop.figures.model_calls[-1].first_output_ns
        chars = sum(len(call.arguments_json()) + len(call.name) for call in done.tool_calls)
        self.timeline.mark_token(TokenKind.ANSWER, max(1, chars), at)

    async def _tool_step(self, loop: ToolLoop, done: Done) -> AsyncGenerator[Any, None]:
        self._first_output(loop, done)
        servers: dict[str, str] = {}
        settled: set[str] = set()
        try:
            async for item in loop.end_call(done):
                if isinstance(item, ev.ToolCallReady):
                    servers[item.call.id] = item.server
                stage = self._tool_stage(item)
                if stage is not None:
                    yield self._enter(stage)
                    for told in self._restate():
                        yield told
                yield item
                if isinstance(item, ev.ToolFinished):
                    settled.add(item.call.id)
                    yield self._say(tool_line(item, servers.get(item.call.id, "")))
        except asyncio.CancelledError:  # Stop: each call not settled is said as stopped
            running = self.tool_since_ns and self._tool_stage_is_run
            for call in done.tool_calls:
                if call.id not in settled:
                    words = ev.STOPPED_WHILE if running else ev.STOPPED_BEFORE
                    stopped = ToolResult(call.id, call.name, words, True)
                    finished = ev.ToolFinished(loop.step, call, stopped, 0.0, now_ns())
                    self._say(tool_line(finished, servers.get(call.id, "")))
            raise
        finally:
            self._tool_stage_ends()

    def _hear_tools(self, item: object) -> None:
        """The model call's stream events, for the loop (its words, calls and stamps)."""
        if self.tool_loop is None or item is None:
            return
        if not isinstance(item, SlowStart | StageChanged | StateChanged):
            self.tool_loop.hear(item)  # type: ignore[arg-type]

    def _tool_stage(self, item: object) -> Stage | None:
        if isinstance(item, ev.ApprovalWaiting):
            self._tool_stage_ends()
            self.tool_name, self.tool_since_ns = item.call.name, now_ns()
            self._tool_stage_is_run = False
            return Stage.APPROVAL
        if isinstance(item, ev.ToolRunning):
            self._tool_stage_ends()
            self.tool_name, self.tool_since_ns = item.call.name, now_ns()
            self._tool_stage_is_run = True
            self._runs = (*self._runs, (item.call.id, item.call.name))
            return Stage.USING_TOOL
        if isinstance(item, ev.ToolFinished):
            self._runs = tuple(run for run in self._runs if run[0] != item.call.id)
            if self._runs and self._tool_stage_is_run:  # parallel calls: one still runs
                self.tool_name = self._runs[-1][1]
                return None
        if isinstance(item, ev.ToolFinished | ev.ApprovalGiven):
            self._tool_stage_ends()
        return None

    def _tool_stage_ends(self) -> None:
        if self.tool_since_ns:
            now = now_ns()
            self.tool_ns += now - self.tool_since_ns
            self.tool_spans = (*self.tool_spans, (self.tool_since_ns, now))
            self.tool_since_ns = 0

    def _measured(self) -> RequestTimeline:
        """The turn's stamps with its approvals' and tools' time taken out: what its
        metrics read (TTFT, tokens/s and the whole answer's time are the model's)."""
        spans, turn = self.tool_spans, self.timeline
        if not spans:
            return turn

        def less(at: int | None) -> int | None:
            return None if at is None else at - sum(e - s for s, e in spans if e <= at)

        tokens = [TokenStamp(less(t.at_ns) or t.at_ns, t.kind, t.chars) for t in turn.tokens]
        return replace(
            turn, tokens=tokens, done_ns=less(turn.done_ns),
            finished_ns=less(turn.finished_ns), painted_ns=less(turn.painted_ns),
        )  # fmt: skip

    def _say(self, text: str) -> Token:
        """A line of the answer that the model did not write (a tool call, the limit)."""
        self._text_parts.append(text)
        if self._writer is not None:
            self._writer.add(text, Token(text).kind)
        return Token(text)
