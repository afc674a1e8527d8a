"""The turn's steps before its model call, each taking and returning typed values:

    ask = TurnAsk(TurnKind.ASK, conversation_id, question="Why is the sky blue?")
    chosen = await steps.decide_route(ask)               # RouteChoice
    turn = steps.store_question(ask, chosen)             # Turn (on the database thread)
    found = await steps.retrieve(turn)                   # Retrieval | None
    outgoing = await steps.plan(turn, found, chosen, tool_tokens)  # plan + ChatRequest

(`tool_tokens`: the offered tools' definitions, client/services/chat/tool_step.py), then
client/services/chat/generation.py opens the stream and streams (the model call,
client/services/chat/model_call.py), and records. Ask, Edit and a race's column enter
with the text the user typed; Regenerate, Retry and Continue enter one step earlier,
where the stored question is recalled (`recall_question`). The session makes one
TurnSteps per action from its settings and routes as they are then; a server change
while a turn runs is for the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from client.backends.base import Backend
from client.core.budget import TokenCounter
from client.core.conversation import ChatMessage, ChatRequest
from client.core.images import Attachment, ImagePart
from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.core.timeline import RequestTimeline
from client.core.tools import ToolSpec
from client.services.cascade.cascade import backend_classifier
from client.services.chat import turn_store as turns
from client.services.chat.answer_writer import FLUSH_INTERVAL_S
from client.services.chat.loading_stage import LoadEstimate, ModelStateProvider
from client.services.chat.session_settings import MAX_MODEL_CALLS
from client.services.chat.turn_store import Turn
from client.services.events import EventBus, TurnStarted
from client.services.images.stored import stored_images
from client.services.images.vision import ModelVision
from client.services.knowledge.knowledge_stage import KnowledgeStage
from client.services.knowledge.retrieval import Retrieval, as_passages
from client.services.planning.continuation import ContinueMode, prompted_answer_filter
from client.services.planning.planner import (
    CachedPrompt,
    HistorySummary,
    Passage,
    PlanInput,
    PlanSettings,
    RequestPlan,
    Route,
    RouteChoice,
    TtftEstimate,
    choose_route,
    is_cascade,
    other_route,
    plan_request,
)
from client.services.planning.router import RouteDecision, Tier, decide
from client.services.planning.summaries import ConversationSummaries
from client.store.conversations.history import HistoryStore
from client.store.metrics_store import MetricsStore

if TYPE_CHECKING:
    from client.services.tools.turn_tools import TurnTools

AnswerFilter = Callable[[str], str]  # answer text in -> the part to show now


class TurnKind(StrEnum):
    ASK = "ask"
    REGENERATE = "regenerate"
    RETRY = "retry"
    EDIT = "edit"
    CONTINUE = "continue"
    RACE = "race"  # one column of a race: an answer to a question stored already


@dataclass(frozen=True, slots=True)
class TurnAsk:
    """What the user asked for: the pipeline's input, made once by a session action."""

    kind: TurnKind
    conversation_id: int | None = None
    question: str | None = None  # the text typed (ask, edit, race); None: the stored one
    system: str | None = None
    images: tuple[Attachment, ...] = ()
    decision: RouteDecision | None = None  # the user's ("Ask the strong model")
    answer_id: int | None = None  # regenerate, retry, continue: the answer it starts from
    user_message_id: int | None = None  # edit, race: the stored question

    @property
    def images_prepare_ms(self) -> float:
        """The client's time preparing the question's images."""
        return sum(a.prepare_ms for a in self.images)


class SlotHint(Protocol):
    """Which llama.cpp slot a request should run in (type-ahead: the slot that read the
    question's start, client/services/warming/type_ahead.py); None: the server picks."""

    def slot_for(self, backend: Backend, request: ChatRequest) -> int | None: ...


@dataclass(frozen=True, slots=True)
class Outgoing:
    """What one model call sends: its plan, the request built once from it, and how
    its answer is shaped."""

    plan: RequestPlan
    request: ChatRequest
    answer_filter: AnswerFilter | None = None  # Continue by prompt: drops a restart


@dataclass(frozen=True, slots=True)
class RunSettings:
    """What a generation needs beyond its steps: where it stores, how long it waits."""

    history: HistoryStore
    metrics_store: MetricsStore | None = None
    first_token_timeout_s: float = 60.0  # a cascade's route: its first-token limit
    slow_start_after_s: float = 15.0  # no first token by then: SlowStart (Keep waiting / Cancel)
    fallback_after_s: float = 10.0  # a cascade's route, before the other answers
    stall_timeout_s: float = 15.0
    thresholds: TierThresholds = DEFAULT_THRESHOLDS
    model_state_provider: ModelStateProvider | None = None
    load_estimate: LoadEstimate | None = None  # the model's learned load time, ms
    flush_interval_s: float = FLUSH_INTERVAL_S
    max_model_calls: int = MAX_MODEL_CALLS
    bus: EventBus | None = None  # the root's: TurnStarted, StateChanged, AnswerFinished
    tools: TurnTools | None = None  # the conversation's MCP tools (None: a plain turn)


@dataclass(frozen=True, slots=True)
class Planning:
    """What every plan of a session is made with (the warmer's next prefix too)."""

    settings: PlanSettings
    routes: tuple[Route, ...]
    count: TokenCounter
    ttft: TtftEstimate | None = None
    cached: Callable[[], CachedPrompt | None] | None = None  # the prompt cache's content
    vision: ModelVision | None = None

    def plan(
        self,
        history: Sequence[ChatMessage],
        text: str,
        history_ids: Sequence[int | None] = (),
        *,
        text_id: int | None = None,
        continuing: str = "",
        continued_steps: Sequence[ChatMessage] = (),
        tool_tokens: int = 0,
        tools: tuple[ToolSpec, ...] = (),
        passages: Sequence[Passage] = (),
        chosen: RouteChoice | None = None,
        summary: HistorySummary | None = None,
        images: tuple[ImagePart, ...] = (),
    ) -> RequestPlan:
        return plan_request(
            PlanInput(
                history=history,
                text=text,
                settings=self.settings,
                routes=self.routes,
                history_ids=history_ids,
                text_id=text_id,
                continuing=continuing,
                continued_steps=continued_steps,
                tool_tokens=tool_tokens,
                tools=tools,
                passages=passages,
                count=self.count,
                ttft=self.ttft,
                cached=self.cached() if self.cached is not None else None,
                chosen=chosen,
                summary=summary,
                images=images,
                sees=self.vision.may_see if self.vision is not None else None,
            )
        )


@dataclass(frozen=True, slots=True)
class Classifying:
    """A cascade's classifier, when the user turned it on."""

    on: bool = False
    budget_ms: float = 0.0


@dataclass(slots=True)
class TurnSteps:
    """The steps of one turn up to its request, with what they need of the session."""

    history: HistoryStore
    planning: Planning
    summaries: ConversationSummaries
    compressing: bool = True
    classifying: Classifying = field(default_factory=Classifying)
    knowledge: KnowledgeStage | None = None
    prompt_budget: int | None = None  # passages get a share of it (knowledge_stage)
    slot_hint: SlotHint | None = None  # the slot already holding the question's start

    @property
    def routes(self) -> tuple[Route, ...]:
        return self.planning.routes

    def turn_started(self, ask: TurnAsk, timeline: RequestTimeline) -> TurnStarted:
        """The root's event for a turn beginning, with the route in use then."""
        route = self.routes[0]
        question = ask.question or ""
        return TurnStarted(ask.kind.value, question, route.model, route.server_name, timeline)

    # ---- recall the question (Regenerate, Retry, Continue) ------------------------------
    async def recall_question(self, ask: TurnAsk) -> str:
        """The text the route is decided on: typed, else the stored question's."""
        if ask.question is not None:
            return ask.question
        assert ask.answer_id is not None
        return await self.history.db.run(_question_of, self.history, ask.answer_id)

    # ---- decide the route ---------------------------------------------------------------
    async def decide_route(self, ask: TurnAsk) -> RouteChoice:
        """The message's one route decision, made before its turn is stored: the
        user's, else a cascade's classifier within its budget (when on), else the
        router's rules; without a cascade, the chosen server and model. A message with
        images goes to a model of the cascade that can see."""
        routes = list(self.routes)
        if ask.decision is not None or not is_cascade(routes):
            choice = choose_route(routes, ask.question or "", ask.decision)
        else:
            text = await self.recall_question(ask)
            # A Continue goes on by the rules, as its answer was routed; no classifier.
            continuing = ask.kind is TurnKind.CONTINUE
            classified = None if continuing else await self._classified(text)
            choice = choose_route(routes, text, classified)
        vision = self.planning.vision
        if vision is None or not is_cascade(routes):
            return choice
        if ask.images or await self._asked_with_images(ask):
            return await vision.route_for_images(choice, routes)
        return choice

    async def _classified(self, question: str) -> RouteDecision | None:
        fast = next((r for r in self.routes if r.tier == Tier.FAST.value), None)
        if not self.classifying.on or fast is None:
            return None
        classify = backend_classifier(fast.backend, fast.model)
        return await decide(question, classify, self.classifying.budget_ms)

    async def _asked_with_images(self, ask: TurnAsk) -> bool:
        """Whether the question an answer answers carries images (Regenerate, Retry)."""
        if ask.answer_id is None:
            return False
        answer = await self.history.db.run(self.history.get_message, ask.answer_id)
        if answer is None or answer.parent_id is None:
            return False
        return bool(await stored_images(self.history, [answer.parent_id]))

    # ---- store the question (on the database thread) -------------------------------------
    def store_question(self, ask: TurnAsk, chosen: RouteChoice) -> Turn:
        """The turn's messages stored with the route decided (the answer names it)."""
        turn = _stored(self.history, ask, turns.origin_of(chosen.route))
        self.summaries.recall(turn.conversation_id)  # read here too: off the loop
        return turn

    # ---- retrieve -------------------------------------------------------------------------
    def retrieves(self, turn: Turn) -> bool:
        knowledge = self.knowledge
        on = knowledge is not None and knowledge.enabled(turn.conversation_id)
        return bool(turn.question) and on

    async def retrieve(self, turn: Turn) -> Retrieval:
        """The retrieving stage: bounded by its budget; past it, no passages."""
        assert self.knowledge is not None
        return await self.knowledge.retrieve(turn.question, self.prompt_budget)

    # ---- plan -----------------------------------------------------------------------------
    async def plan(
        self,
        turn: Turn,
        found: Retrieval | None,
        chosen: RouteChoice,
        tool_tokens: int = 0,
        tools: tuple[ToolSpec, ...] = (),
    ) -> Outgoing:
        """The request, planned once: what it sends, to whom, and the ChatRequest
        (`tools`: the offered tools' definitions, sent with it; `tool_tokens`: theirs,
        counted in its budget and wait)."""
        await self._ask_vision(turn, chosen)
        stored = self.summaries.recall(turn.conversation_id) if self.compressing else None
        ids = turn.history_ids
        summary = stored.summary if stored and stored.holds_for(turn.history, ids) else None
        plan = self.planning.plan(
            turn.history,
            turn.question,
            ids,
            text_id=turn.user_message_id,
            continuing=turn.continuing,
            continued_steps=turn.prior_steps,
            tool_tokens=tool_tokens,
            tools=tools,  # (a type-ahead read's slot is matched with them)
            passages=tuple(as_passages(found.passages)) if found is not None else (),
            chosen=chosen,
            summary=summary,
            images=turn.question_images,
        )
        # Asked by a prompt, small models often start the answer over.
        prompted = turn.continuing and plan.continue_mode is ContinueMode.PROMPT
        answer_filter = prompted_answer_filter(turn.continuing) if prompted else None
        return Outgoing(plan, self._in_slot(plan), answer_filter)

    def _in_slot(self, plan: RequestPlan) -> ChatRequest:
        """The plan's request, sent to the slot that read its start when there is one
        (llama.cpp's id_slot; the other kinds' bodies leave it out)."""
        request = plan.request()
        hint = self.slot_hint
        slot = hint.slot_for(plan.route.backend, request) if hint is not None else None
        return replace(request, slot=slot) if slot is not None else request

    async def _ask_vision(self, turn: Turn, chosen: RouteChoice) -> None:
        """With images in the turn, whether the route (and a cascade's fallback) can
        see them is asked before planning: a text model gets notes for the history's."""
        vision = self.planning.vision
        if vision is None or not (turn.question_images or any(m.images for m in turn.history)):
            return
        fallback = other_route(self.routes, chosen.route)
        await vision.ask_all([chosen.route, *([fallback] if fallback else [])])


def _stored(history: HistoryStore, ask: TurnAsk, origin: turns.Origin) -> Turn:
    kind = ask.kind
    if kind is TurnKind.ASK:
        assert ask.question is not None
        question = ask.question
        return turns.ask(history, ask.conversation_id, question, ask.system, origin, ask.images)
    if kind is TurnKind.EDIT:
        assert ask.user_message_id is not None and ask.question is not None
        return turns.edit_question(history, ask.user_message_id, ask.question, origin)
    if kind is TurnKind.RACE:
        assert ask.user_message_id is not None
        return turns.answer_to(history, ask.user_message_id, origin)
    assert ask.answer_id is not None
    if kind is TurnKind.CONTINUE:
        return turns.resume(history, ask.answer_id)
    return turns.answer_again(history, ask.answer_id, origin)  # regenerate, retry


def _question_of(history: HistoryStore, assistant_message_id: int) -> str:
    answer = history.get_message(assistant_message_id)
    parent = answer.parent_id if answer is not None else None
    question = history.get_message(parent) if parent is not None else None
    return question.content if question is not None else ""
