"""One turn of a chat session, as an async iterator of what the user should see.

    generation = session.generate(conversation_id, "Why is the sky blue?")
    async for event in generation:      # StageChanged / Token / SlowStart / Finished
        ...

The turn is one pipeline of typed steps, in order (client/services/chat/turn_steps.py):
decide the route -> store the question -> retrieve -> offer the tools (with any) -> plan
-> the model call (open the stream -> stream; client/services/chat/model_call.py),
repeated while the model asks for tools, up to RunSettings.max_model_calls -> record.

Stop = cancel the task iterating it. The stream is closed (the server stops), the
partial text is saved as stopped, `generation.finished` is set, and the
CancelledError goes on. Every other end yields one Finished as the last event.

Hot path: after the first token there is no timer and no task between the stream and
the consumer. A token's text is only buffered before it is yielded; AnswerWriter
writes it later on the database thread, so the store never delays a paint.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing

from client.backends.stream import StreamTimeouts
from client.core.budget import FittedPrompt
from client.core.conversation import ChatRequest
from client.core.events import (
    Done,
    DoneReason,
    Failed,
    Prefill,
    Started,
    StreamEvent,
    Token,
    TokenKind,
)
from client.core.metrics import RequestMetrics, compute_metrics
from client.core.timeline import RequestTimeline, now_ns
from client.services.cascade.fallback import FellBack
from client.services.cascade.route_record import mark_route
from client.services.chat.answer_writer import (
    AnswerWriter,
    TurnRecord,
    record_turn,
)
from client.services.chat.loading_stage import LoadingWatch
from client.services.chat.model_call import (
    AnswerEnded,
    FirstTokenWait,
    Item,
    ModelCallResult,
    ToolCallsWanted,
    aclose_events,
)
from client.services.chat.session_events import (
    Finished,
    Outcome,
    SlowStart,
    Stage,
    StageChanged,
    failure_outcome,
    next_steps,
)
from client.services.chat.stream_opener import LoadingRetryStream, StreamOpener, opener_for
from client.services.chat.tool_step import ToolTurn
from client.services.chat.turn_state import (
    OUTCOME_STATES,
    StateChanged,
    TurnState,
    live_state,
)
from client.services.chat.turn_steps import (
    AnswerFilter,
    Outgoing,
    RunSettings,
    TurnAsk,
    TurnSteps,
)
from client.services.chat.turn_store import Turn
from client.services.images.cost import note_images
from client.services.knowledge.knowledge_stage import Retrieved
from client.services.knowledge.retrieval import Retrieval
from client.services.planning.planner import RequestPlan, Route, RouteChoice
from client.store.stage_records import RetrievalPart, part_counts

log = logging.getLogger(__name__)

SessionEvent = StageChanged | StateChanged | Retrieved | Token | SlowStart | Finished


class Generation(FirstTokenWait, ToolTurn):
    def __init__(self, settings: RunSettings, ask: TurnAsk, steps: TurnSteps) -> None:
        self.kind = ask.kind  # ask | regenerate | retry | edit | continue | race
        self.ask = ask
        self.conversation_id: int | None = None
        self.user_message_id: int | None = None
        self.assistant_message_id: int | None = None
        self.timeline = RequestTimeline()  # the stream stamps into this same object
        self.finished: Finished | None = None
        self.plan: RequestPlan | None = None  # what was sent, and to whom
        self.retrieval: Retrieval | None = None  # the retrieving stage's, when it ran
        self.request: ChatRequest | None = None
        self._loading = LoadingWatch(settings.model_state_provider, settings.load_estimate)
        self.metrics_record_id: int | None = None  # for MetricsStore.set_paint_ms
        self.fell_back: FellBack | None = None  # a cascade's other model answered
        self.images_prepare_ms = ask.images_prepare_ms  # the client's, preparing images
        self.error: Exception | None = None  # what it failed with (its sentence: finished)
        self.model_calls: list[ModelCallResult] = []  # each model call's end, in order
        self._calls_wanted: ToolCallsWanted | None = None  # the call ended asking for tools
        self._settings = settings
        self._steps = steps
        self.chosen: RouteChoice | None = None  # the route decided for this message
        self._turn: Turn | None = None
        self._turn_task: asyncio.Future[Turn] | None = None
        self._opener: StreamOpener | None = None
        self._stream: LoadingRetryStream | None = None
        self._answer_filter: AnswerFilter | None = None
        self._text_parts: list[str] = []  # what was shown (after the answer filter)
        self._thinking_parts: list[str] = []
        self._writer: AnswerWriter | None = None
        self._pending: asyncio.Future[StreamEvent | None] | None = None
        self._stage: Stage | None = None
        self._waiting_since = 0.0
        self._slow_start_sent = False
        self._sending = False  # the request was handed to its server
        self._state_told: TurnState | None = None  # the last StateChanged yielded
        self._saved = False
        self._iterator: AsyncGenerator[SessionEvent, None] | None = None
        self._closing: asyncio.Future[None] | None = None

    @property
    def cold(self) -> bool:
        """The warmer said cold or loading while it waited, or the server reported a load."""
        return self._loading.cold

    @property
    def state(self) -> TurnState:
        """What the turn is doing now, from the signals seen so far."""
        if self.finished is not None:
            return OUTCOME_STATES[self.finished.outcome]
        stage = self._stage.value if self._stage is not None else None
        return live_state(stage, self.timeline, self._sending)

    @property
    def route(self) -> Route | None:
        """The server and model that answer (None until the request is planned)."""
        return self.plan.route if self.plan is not None else None

    @property
    def answered_by(self) -> tuple[str, str] | None:
        """A pool's answer: the server that gave it, and its model (None otherwise, or
        before a server of the pool answered)."""
        return self._opener.answered_by() if self._opener is not None else None

    @property
    def fitted(self) -> FittedPrompt | None:
        """The messages sent after the prompt budget, and their token count."""
        return self.plan.fitted if self.plan is not None else None

    @property
    def cut_before_message_id(self) -> int | None:
        """The first stored message sent after ones the budget dropped (the ui draws
        "earlier messages not sent" above it); None when nothing was cut."""
        return self.plan.cut.first_kept_id if self.plan is not None else None

    def __aiter__(self) -> AsyncGenerator[SessionEvent, None]:
        if self._iterator is None:
            self._iterator = self._run()
        return self._iterator

    async def aclose(self) -> None:
        """Stop it without cancelling the consuming task (e.g. after a `break`)."""
        if self._iterator is not None:
            await self._iterator.aclose()

    # ---- the run ----------------------------------------------------------------------

    async def _run(self) -> AsyncGenerator[SessionEvent, None]:
        self._watch_consumer()
        self._publish(self._steps.turn_started(self.ask, self.timeline))
        try:
            yield self._enter(self._first_stage())
            for told in self._restate():
                yield told
            turn = await self._store_turn()
            found: Retrieval | None = None
            if self._steps.retrieves(turn):
                yield self._enter(Stage.RETRIEVING)
                for told in self._restate():
                    yield told
                found = await self._retrieve(turn)
                understanding = self._enter(self._first_stage())  # retrieving ends now
                yield Retrieved(found, understanding.at_ns)
                yield understanding
                for told in self._restate():
                    yield told
            assert self.chosen is not None  # decided before the turn was stored
            outgoing = await self._steps.plan(turn, found, self.chosen, *await self._offer_tools())
            # The model call repeats while the model asks for tools (the tools' step
            # runs them between two calls; tool_step.py); else one call ends the turn.
            async with aclosing(self._model_calls(outgoing)) as events:
                async for event in events:
                    yield event
        except (asyncio.CancelledError, GeneratorExit):
            self._conclude_cancelled()
            raise
        except Exception as error:
            self._conclude_error(error)
            raise
        finally:
            await self._save()
        assert self.finished is not None
        for told in self._restate():
            yield told
        yield self.finished

    async def _model_call(self, outgoing: Outgoing) -> AsyncGenerator[SessionEvent, None]:
        """Open the stream -> stream, until the call ends; its result goes on
        `model_calls`."""
        stream = self._open(outgoing)
        assert self._writer is not None
        async with stream:
            events = aiter(stream)
            try:
                while self.finished is None and self._calls_wanted is None:
                    item: Item
                    if self._pending is None and self.timeline.first_token_ns is not None:
                        item = await anext(events, None)  # hot path: no task, no timer
                    else:
                        item = await self._wait_for_item(events)
                    self._hear_tools(item)
                    for out in self._on_item(item):
                        if isinstance(out, Token):
                            # Only buffered: the write runs later, off the loop, so
                            # the consumer paints this token before any store write.
                            self._writer.add(out.text, out.kind)
                        yield out
            finally:
                await self._cancel_pending()  # before closing: it may be running `events`
                await aclose_events(events)
        wanted, self._calls_wanted = self._calls_wanted, None
        self.model_calls.append(wanted or AnswerEnded(stream.outcome))

    async def _store_turn(self) -> Turn:
        self._turn_task = asyncio.ensure_future(self._choose_and_store())
        # Shielded: if Stop comes now, the messages are still stored and then closed.
        turn = await asyncio.shield(self._turn_task)
        self._take_turn(turn)
        return turn

    async def _choose_and_store(self) -> Turn:
        """The route is decided once (a classifier within its budget), then the turn is
        stored with it: the answer names the route its plan uses."""
        self.chosen = await self._steps.decide_route(self.ask)
        db = self._settings.history.db
        return await db.run(self._steps.store_question, self.ask, self.chosen)

    async def _retrieve(self, turn: Turn) -> Retrieval:
        found = self.retrieval = await self._steps.retrieve(turn)
        found_part = RetrievalPart(len(found.passages), found.tokens)
        self.timeline.stages[-1].counts = part_counts(found_part)
        return found

    def _open(self, outgoing: Outgoing) -> LoadingRetryStream:
        """The plan's one opener, chosen once, behind the loading retry every stream has."""
        self.plan, self.request = outgoing.plan, outgoing.request
        self._answer_filter = outgoing.answer_filter
        plan, settings = outgoing.plan, self._settings
        if plan.decision is not None:  # a cascade's route: part of this stage
            mark_route(self.timeline, plan.route, plan.decision)
        sent = [image for message in outgoing.request.messages for image in message.images]
        note_images(self.timeline, sent, self.images_prepare_ms)  # the waterfall's image row
        timeouts = StreamTimeouts(first_byte_s=None, stall_s=settings.stall_timeout_s)
        self._opener = opener_for(plan, settings.fallback_after_s, settings.first_token_timeout_s)
        # A 503 "Loading model" before the first token: the loading stage, asked again.
        stream = LoadingRetryStream(
            self._opener, outgoing.request, timeouts, settings.first_token_timeout_s
        )
        stream.timeline = self._call_timeline or self.timeline  # a later call: its own
        self._stream = stream
        self._sending = True
        self._waiting_since = asyncio.get_running_loop().time()
        return stream

    def _take_fallback(self, fell_back: FellBack) -> None:
        """A cascade's other model answers: its plan and request are the answer's."""
        self.fell_back, self.plan = fell_back, fell_back.plan
        self.request = fell_back.request
        self._waiting_since = asyncio.get_running_loop().time()  # its own Keep waiting

    def _take_turn(self, turn: Turn) -> None:
        self._turn = turn
        self.conversation_id = turn.conversation_id
        self.user_message_id = turn.user_message_id
        self.assistant_message_id = turn.assistant_message_id
        self._writer = AnswerWriter(
            self._settings.history, turn.assistant_message_id, self._settings.flush_interval_s
        )

    # ---- events -----------------------------------------------------------------------

    def _on_item(self, item: Item) -> list[SessionEvent]:
        if type(item) is Token:  # the common case first: this runs for every token
            if self._answer_filter is not None and item.kind is TokenKind.ANSWER:
                shown = self._answer_filter(item.text)
                if not shown:
                    return []
                item = item if shown == item.text else Token(shown, item.kind)
            thinking = item.kind is TokenKind.THINKING
            (self._thinking_parts if thinking else self._text_parts).append(item.text)
            stage = Stage.THINKING if thinking else Stage.ANSWERING
            if stage is self._stage:
                return [item]  # the same stage, so the same state: nothing more to do
            entered = self._enter(stage, self.timeline.tokens[-1].at_ns)
            return [*self._restate(entered.at_ns), entered, item]
        return [*self._on_other(item), *self._restate()]

    def _restate(self, at_ns: int | None = None) -> list[StateChanged]:
        """A StateChanged when the turn's state differs from the one last told."""
        state = self.state
        if state is self._state_told:
            return []
        self._state_told = state
        told = StateChanged(state, at_ns if at_ns is not None else now_ns())
        self._publish(told)
        return [told]

    def _on_other(self, item: Item) -> list[SessionEvent]:
        if isinstance(item, SlowStart | StageChanged | StateChanged):
            return [item]
        self._hear_server_loading()
        fell_back = self._opener.fell_back if self._opener is not None else None
        if fell_back is not None and fell_back is not self.fell_back:
            self._take_fallback(fell_back)
        if isinstance(item, Started) and self._stage is Stage.LOADING:
            if self._loading.stage() is not Stage.LOADING:  # it took the request: loaded
                return [self._enter(Stage.UNDERSTANDING)]
            return []
        if isinstance(item, Prefill):  # the server is reading the prompt: loaded
            self._loading.prompt_started = True
            if self._stage is Stage.LOADING:
                return [self._enter(Stage.UNDERSTANDING, self.timeline.prefill_ns)]
            return []
        if isinstance(item, Done) and item.wants_tools and self.tool_loop is not None:
            self._calls_wanted = ToolCallsWanted(item)  # the tools' step, then the model
        elif isinstance(item, Done):
            self._conclude(Outcome.COMPLETE, length_cut=item.reason is DoneReason.LENGTH)
        elif isinstance(item, Failed):
            self._conclude_failed(item.error)
        elif item is None:  # a stream always ends with Done or Failed; be safe anyway
            self._conclude(Outcome.INTERRUPTED, "The answer ended without finishing.")
        return []

    def _first_stage(self) -> Stage:
        return self._loading.stage()

    def _enter(self, stage: Stage, at_ns: int | None = None) -> StageChanged:
        at = at_ns if at_ns is not None else now_ns()
        if stage is Stage.LOADING and self._stage is Stage.UNDERSTANDING:
            at = self._loading.relabel(self.timeline.stages[-1])  # it was loading all along
        self.timeline.enter_stage(stage.value, at)
        if stage is Stage.LOADING and self._stage is not Stage.LOADING:
            self._loading.expect(self.timeline.stages[-1])
        self._stage = stage
        return StageChanged(stage, at)

    # ---- how it ended -----------------------------------------------------------------

    def _conclude_failed(self, error: Exception) -> None:
        self.error = error
        self._conclude(*failure_outcome(error, self._has_new_text()))

    def _conclude_cancelled(self) -> None:
        if self.finished is not None:
            return
        if self._slow_start_sent and not self._has_new_text():
            self._conclude(
                Outcome.TIMED_OUT,
                f"No answer arrived in {self.waited_s():.1f} s, and the request was cancelled.",
            )
        else:
            self._conclude(Outcome.STOPPED)

    def _conclude_error(self, error: Exception) -> None:
        if self.finished is None:
            log.exception("the generation failed")
            outcome, sentence = failure_outcome(error, self._has_new_text())
            self._conclude(Outcome.FAILED if outcome is Outcome.UNREACHABLE else outcome, sentence)

    def _has_new_text(self) -> bool:
        return bool(self._text_parts or self._thinking_parts)

    def _conclude(
        self, outcome: Outcome, error_message: str = "", length_cut: bool = False
    ) -> None:
        self.timeline.close_stages()
        turn = self._turn
        text = (turn.prior_text if turn else "") + "".join(self._text_parts)
        thinking = (turn.prior_thinking if turn else "") + "".join(self._thinking_parts)
        self.finished = Finished(
            outcome=outcome,
            text=text,
            thinking=thinking,
            error_message=error_message,
            next_steps=next_steps(
                outcome,
                has_text=bool(text or thinking),
                length_cut=length_cut,
                has_fallback=self.plan is not None and self.plan.fallback is not None,
                is_local=self.plan is not None and self.plan.route.is_local,
            ),
            metrics=self._metrics(),
            message_id=self.assistant_message_id,
        )

    def _metrics(self) -> RequestMetrics:
        stream = self._stream
        if stream is None:
            return RequestMetrics()
        return compute_metrics(  # a tool's and an approval's time are not latency
            self._measured(), stream.usage, stream.server_timings, self._settings.thresholds
        )

    # ---- saving -----------------------------------------------------------------------

    async def _save(self) -> None:
        """The message's end state and the request's metrics; once, shielded."""
        if self._saved or self.finished is None:
            return
        self._saved = True
        try:
            await asyncio.shield(self._save_now(self.finished))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("could not save the end of the answer")

    async def _save_now(self, finished: Finished) -> None:
        if self._writer is None and self._turn_task is not None:
            await asyncio.wait({self._turn_task})  # Stop came while the turn was stored
            if not self._turn_task.cancelled() and self._turn_task.exception() is None:
                self._take_turn(self._turn_task.result())
                self._conclude(finished.outcome, finished.error_message)  # now with its ids
                assert self.finished is not None
                finished = self.finished
        load_ms = finished.metrics.server.load_ms() or 0.0
        self._loading.server_loaded(load_ms)
        timeline, plan = self.timeline, self.plan
        record = TurnRecord(
            finished=finished,
            turn=self._turn,
            kind=self.kind.value,
            plan=plan,
            request=self.request,
            fallback=self.fell_back.plan.route if self.fell_back is not None else None,
            answered_by=self.answered_by,
            cold=self.cold,
            server_answered=timeline.headers_ns is not None or timeline.first_byte_ns is not None,
            stages=self.turn_records(self.retrieval) if self._stream and plan else None,
        )
        settings = self._settings
        # A full disk: the figures wait for room too (None until then).
        self.metrics_record_id = await record_turn(
            settings.history, settings.metrics_store, self._writer, record
        )
        self._publish(record.answer_finished(timeline, self.metrics_record_id))

    def _publish(self, event: object) -> None:
        if self._settings.bus is not None:
            self._settings.bus.publish(event)

    # ---- when the consumer goes away without closing us ---------------------------------

    def _watch_consumer(self) -> None:
        task = asyncio.current_task()
        if task is not None:
            task.add_done_callback(self._consumer_done)

    def _consumer_done(self, _: object) -> None:
        # The ui's task ended (it dropped us) while we were suspended at a yield.
        if self._conclude_abandoned():
            self._closing = asyncio.ensure_future(self.aclose())

    async def abandon(self) -> None:
        """The consumer was cancelled between two events (Stop landed while it was
        not waiting on us): finish as stopped, close the stream (the server stops) and
        save the end, all before returning."""
        if self._conclude_abandoned():
            await asyncio.shield(self.aclose())

    def _conclude_abandoned(self) -> bool:
        """Set `finished` now, if the run was left at a yield; True if it was."""
        if self.finished is not None or self._iterator is None:
            return False
        self._conclude_cancelled()
        return True
