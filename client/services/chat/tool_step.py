"""The turn's tools: when the conversation uses MCP servers, each model call offers
their tools and, when the model asks for some, the tool loop (client/services/tools/loop.py)
asks the user, runs them and the model is called again, within the same turn.

    session.tools = TurnTools(tachy.tools, settings)   # the root attaches it (tools/turn_tools.py)
    session.tools.approver = window_approver            # the window asks the user

Stored with the answer as data: each call, its state and its result is a row of its
own (client/store/conversations/tool_calls.py) with where its card sits in the answer's
text, buffered and written by the answer's writer with the words, so it survives a
crash and a restart like them. Each change is also a `ToolCallShown` for the chat's
card. The answer's text keeps only the model's words, so the model's exact transcript
(the assistant message with its calls, the tool messages) is laid out again from the
two for Continue and every later turn (client/services/tools/tool_history.py); Retry
starts the turn afresh.

Approval and a tool's run are stages of their own (TurnState.APPROVAL, USING_TOOL): the
waterfall and the footer show them, and they never count as latency (`tool_ns`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import Any

from client.core.budget import TokenCounter, estimate_text_tokens
from client.core.conversation import ChatMessage, ChatRequest
from client.core.events import Done, Token, TokenKind
from client.core.timeline import RequestTimeline, TokenStamp, now_ns
from client.core.tools import ToolCall, ToolSpec
from client.services.chat.answer_writer import AnswerWriter, stage_records
from client.services.chat.model_call import AnswerEnded, ModelCallResult
from client.services.chat.session_events import Outcome, SlowStart, Stage, StageChanged
from client.services.chat.turn_state import StateChanged
from client.services.chat.turn_steps import Outgoing, RunSettings, TurnAsk, TurnSteps
from client.services.chat.turn_store import Turn
from client.services.knowledge.retrieval import Retrieval
from client.services.planning.continuation import ContinueMode
from client.services.planning.tokenize import PromptTokenCounter
from client.services.tools import loop_events as ev
from client.services.tools.call_records import call_records
from client.services.tools.loop import ToolLoop
from client.services.tools.tool_history import StoredToolCall
from client.services.tools.tool_offer import ToolOffer
from client.services.tools.tool_types import ToolProgress
from client.services.tools.turn_tools import TurnTools as TurnTools  # the root's
from client.store.conversations.tool_calls import DONE, READY, RUNNING, WAITING
from client.store.stage_records import StageRecord

STOPPED = "stopped"  # the problem of a call Stop left unsettled


@dataclass(frozen=True, slots=True)
class ToolCallShown:
    """A tool call's card changed (made, asked about, running, ended): its latest state,
    as stored."""

    call: StoredToolCall


@dataclass(frozen=True, slots=True)
class RunningTool:
    """A tool call running now, with its server's last progress notification (if any)."""

    call_id: str
    name: str
    progress: ToolProgress | None = None


class ToolTurn:
    """The Generation's part that repeats the model call while the model asks for tools."""

    _settings: RunSettings
    _steps: TurnSteps
    ask: TurnAsk
    model_calls: list[ModelCallResult]
    conversation_id: int | None
    timeline: RequestTimeline
    _text_parts: list[str]
    _writer: AnswerWriter | None
    _turn: Turn | None
    assistant_message_id: int | None

    tool_loop: ToolLoop | None = None
    tool_name = ""  # the tool asked about, or those running now ("Using add… 1.2 s")
    tool_since_ns = 0  # when the current tool stage began
    tool_ns = 0  # the turn's time in tools and approvals so far
    _tool_stage_is_run = False  # the stage under way runs tools (else: asks about one)
    # The calls running now, in the order they began (parallel calls run side by side:
    # the stage lasts until the last of them ends), each with its server's last progress.
    running_tools: tuple[RunningTool, ...] = ()
    tool_calls: tuple[StoredToolCall, ...] = ()  # this turn's calls, each in its latest state
    tool_spans: tuple[tuple[int, int], ...] = ()  # each approval's and tool run's (start, end)
    tools_starting_since_ns = 0  # the conversation's tool servers are asked for their tools
    tool_servers_ns: tuple[int, int] | None = None  # how long that took (start, end)
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

    async def _offer_tools(self) -> tuple[int, tuple[ToolSpec, ...]]:
        """The turn's tool loop, listed before planning (a plain turn: nothing to do): its
        definitions' prompt tokens, which the plan counts in its budget and wait, and the
        definitions, which its request carries (type-ahead's read of it carried them too)."""
        tools = self._settings.tools
        if tools is None:
            return 0, ()
        most, new = self._settings.max_model_calls, self.ask.conversation_id is None
        loop = self.tool_loop = await self._tools_listed(tools, most, new)
        if loop is None:
            return 0, ()
        return schema_tokens(loop.offer, self._steps.planning.count), loop.offer.specs

    async def _model_calls(self, outgoing: Outgoing) -> AsyncGenerator[Any, None]:
        """The model call, again after each tool step, up to the turn's limit (the
        tools were offered before planning: `_offer_tools`)."""
        loop, most = self.tool_loop, self._settings.max_model_calls
        request = outgoing.request
        continuing = self._turn.continuing if self._turn is not None else ""
        if loop is not None:
            loop.continues = continuing
        for _ in range(most):
            sent = outgoing
            if loop is not None:
                asked, _starting = loop.start_call(request)
                sent = replace(outgoing, request=asked)
                request = later_request(outgoing, continuing)  # what the next call adds to
            async with aclosing(self._model_call(sent)) as events:
                async for event in events:
                    yield event
                    if loop is not None:  # the last call's end (a tool step stamps the others')
                        loop.figures.model_calls[-1].ended_ns = now_ns()
            self._call_ended()
            ended = self.model_calls[-1]
            if isinstance(ended, AnswerEnded) or loop is None:
                return
            # Closed with this one (aclosing): a Stop that lands between two events closes
            # the turn at its yield, and the step keeps its calls as stopped then.
            async with aclosing(self._tool_step(loop, ended.done)) as steps:
                async for event in steps:
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

    async def _tools_listed(self, tools: TurnTools, most: int, new: bool) -> ToolLoop | None:
        """The conversation's tools (their servers started the first time): a wait of
        the tools', said on the status line and drawn in the waterfall."""
        self.tools_starting_since_ns = now_ns()
        try:
            loop = await tools.loop_for(self.conversation_id, most, new)
        finally:
            started, self.tools_starting_since_ns = self.tools_starting_since_ns, 0
        self.tool_servers_ns = (started, now_ns()) if loop is not None else None
        return loop

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
        cards = {
            call.id: self._new_card(loop.step, n, call) for n, call in enumerate(done.tool_calls)
        }
        try:
            async for item in loop.end_call(done):
                stage = self._tool_stage(item)
                if stage is not None:
                    yield self._enter(stage)
                    for told in self._restate():
                        yield told
                yield item
                shown = self._card_changed(item, cards)
                if shown is not None:
                    yield shown
        except (
            asyncio.CancelledError,
            GeneratorExit,
        ):  # Stop: each call not settled is kept as stopped
            running = bool(self.tool_since_ns and self._tool_stage_is_run)
            words = ev.STOPPED_WHILE if running else ev.STOPPED_BEFORE
            for card in cards.values():
                if card.status != DONE:
                    self._keep_card(replace(card, status=DONE, result=words, is_error=True,
                                            problem=STOPPED))  # fmt: skip
            loop.stop()  # its figures too: the approval and the runs end now (the waterfall)
            raise
        finally:
            self._tool_stage_ends()

    def _new_card(self, step: int, position: int, call: ToolCall) -> StoredToolCall:
        """A call's card, where it sits in the answer's text (not shown nor kept yet)."""
        turn = self._turn
        at = len(turn.prior_text if turn else "") + sum(len(part) for part in self._text_parts)
        rounds = turn.prior_rounds if turn else 0
        return StoredToolCall(
            self.assistant_message_id or 0, rounds + step, position, at, call.id, call.name,
            call.arguments_text or call.arguments_json(), status=READY,
        )  # fmt: skip

    def _card_changed(self, item: object, cards: dict[str, StoredToolCall]) -> ToolCallShown | None:
        """The card of the call a loop event is about, in its new state (kept, shown)."""
        call = getattr(item, "call", None)
        card = cards.get(call.id) if isinstance(call, ToolCall) else None
        if card is None:
            return None
        if isinstance(item, ev.ToolCallReady):
            card = replace(card, server=item.server)
        elif isinstance(item, ev.ApprovalWaiting):
            card = replace(card, status=WAITING, server=item.server)
        elif isinstance(item, ev.ToolRunning):
            card = replace(card, status=RUNNING, server=item.server)
        elif isinstance(item, ev.ToolFinished):
            result = item.result
            card = replace(card, status=DONE, result=result.content, is_error=result.is_error,
                           problem=item.problem, ms=item.ms)  # fmt: skip
        else:
            return None
        cards[card.call_id] = card
        return self._keep_card(card)

    def _keep_card(self, card: StoredToolCall) -> ToolCallShown:
        """The turn's latest state of the call, and the writer's (saved with the words)."""
        place = (card.round, card.position)
        kept = [c for c in self.tool_calls if (c.round, c.position) != place]
        self.tool_calls = tuple(sorted([*kept, card], key=lambda c: (c.round, c.position)))
        if self._writer is not None:
            self._writer.tool_call(card)
        return ToolCallShown(card)

    def _hear_tools(self, item: object) -> None:
        """The model call's stream events, for the loop (its words, calls and stamps)."""
        if self.tool_loop is None or item is None:
            return
        if not isinstance(item, SlowStart | StageChanged | StateChanged):
            self.tool_loop.hear(item)  # type: ignore[arg-type]

    def _tool_stage(self, item: object) -> Stage | None:
        """The stage a loop event begins (None: none): an approval is a span of its own;
        a step's runs are one span, from the first call's start to the last one's end."""
        if isinstance(item, ev.ApprovalWaiting):
            self._tool_stage_ends()
            self.tool_name, self.tool_since_ns = item.call.name, now_ns()
            self._tool_stage_is_run = False
            return Stage.APPROVAL
        if isinstance(item, ev.ApprovalGiven):
            self._tool_stage_ends()
        elif isinstance(item, ev.ToolRunning):
            if not self._tool_stage_is_run:
                self._tool_stage_ends()
                self.tool_since_ns, self._tool_stage_is_run = item.at_ns, True
            self._set_running((*self.running_tools, RunningTool(item.call.id, item.call.name)))
            return Stage.USING_TOOL
        elif isinstance(item, ev.ToolProgressed):
            self._set_running(
                tuple(
                    replace(t, progress=item.progress) if t.call_id == item.call.id else t
                    for t in self.running_tools
                )
            )
        elif isinstance(item, ev.ToolFinished):
            self._set_running(tuple(t for t in self.running_tools if t.call_id != item.call.id))
            if not self.running_tools:
                self._tool_stage_ends()
        return None

    def _set_running(self, running: tuple[RunningTool, ...]) -> None:
        self.running_tools = running
        if running:
            self.tool_name = ", ".join(dict.fromkeys(t.name for t in running))

    def _tool_stage_ends(self) -> None:
        if self.tool_since_ns:
            now = now_ns()
            self.tool_ns += now - self.tool_since_ns
            self.tool_spans = (*self.tool_spans, (self.tool_since_ns, now))
            self.tool_since_ns = 0
        self._tool_stage_is_run = False
        self.running_tools = ()

    def turn_records(self, retrieval: Retrieval | None) -> list[StageRecord]:
        """The turn's stages, then its calls' records (what the record step stores)."""
        return [*stage_records(self.timeline, retrieval), *self.call_records()]

    def call_records(self) -> list[StageRecord]:
        """The turn's model calls and tool calls as typed records (the waterfall's rows,
        stored with the stages); none for a turn without tools."""
        loop, origin = self.tool_loop, self.timeline.request_written_ns
        if loop is None or origin is None:
            return []
        return call_records(loop.figures, origin, self.timeline.tokens, self.tool_servers_ns)

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
        """A line of the answer that the model did not write (the step limit's)."""
        self._text_parts.append(text)
        if self._writer is not None:
            self._writer.add(text, Token(text).kind)
        return Token(text)


def schema_tokens(offer: ToolOffer, count: TokenCounter) -> int:
    """The offered definitions' prompt tokens, by the server's tokenizer where the plan
    counts with it (also the warmer's and type-ahead's plans: warming_policy.py)."""
    count_text = count.count_text if isinstance(count, PromptTokenCounter) else None
    return offer.schema_tokens(count_text or estimate_text_tokens)


def later_request(outgoing: Outgoing, continuing: str) -> ChatRequest:
    """The conversation a Continue's later model calls start from: the partial answer
    (and the prompt asking to go on, where one was sent) is no longer a message of its
    own but the start of the first round's assistant message, with its calls
    (ToolLoop.continues), so each wire gets one assistant message, then the results."""
    request = outgoing.request
    if not continuing:
        return request
    messages = list(request.messages)
    if outgoing.plan.continue_mode is ContinueMode.PROMPT and messages[-1].role == "user":
        messages.pop()  # the prompt to go on
    if messages and messages[-1] == ChatMessage("assistant", continuing):
        messages.pop()
    return replace(request, messages=messages, continue_final_message=False)
