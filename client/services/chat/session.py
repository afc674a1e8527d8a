"""The chat session: what happens between Send and the last word (Qt-free).

    session = ChatSession(backend, "llama3.2", history, metrics_store, server_name="Ollama")
    generation = session.generate(None, "Why is the sky blue?")
    async for event in generation:  # StageChanged / StateChanged / Token / SlowStart / Finished
        ...

The session holds the user's settings and the candidate routes (servers and models
that may answer); each request is planned by client.services.planning.planner, which picks its
route, and a Generation (client/services/chat/generation.py) runs the plan. Every action
stores its messages before sending, so no question and no word of an answer is ever
lost, and the ui only paints. docs/architecture.md follows a message end to end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from client.backends.base import Backend
from client.core.budget import TokenCounter, estimate_tokens
from client.core.conversation import ChatMessage
from client.core.images import Attachment, ImagePart
from client.services.cascade.cascade import backend_classifier
from client.services.chat import turn_store as turns
from client.services.chat.generation import (
    Chooser,
    Generation,
    Outgoing,
    RunSettings,
    SessionEvent,
)
from client.services.chat.loading_stage import LoadEstimate
from client.services.chat.loading_stage import ModelStateProvider as ModelStateProvider
from client.services.chat.session_settings import SessionSettings
from client.services.images.stored import stored_images
from client.services.images.vision import ModelVision
from client.services.knowledge.knowledge_stage import KnowledgeStage
from client.services.planning.compression import StoredSummary
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
from client.store.db import Database
from client.store.history import HistoryStore
from client.store.metrics_store import MetricsStore
from client.store.summaries import SummaryStore

__all__ = ["ChatSession", "Generation", "ModelStateProvider", "SessionEvent", "SessionSettings"]


class ChatSession:
    # A misspelt or retired setting fails loudly instead of being ignored.
    __slots__ = (
        "_owned_db",
        "history",
        "knowledge",
        "load_estimate",
        "metrics_store",
        "model_state_provider",
        "prompt_cache",
        "routes",
        "settings",
        "summaries",
        "token_counter",
        "ttft_estimate",
        "vision",
    )

    def __init__(
        self,
        backend: Backend,
        model: str,
        history: HistoryStore | None = None,
        metrics_store: MetricsStore | None = None,
        server_name: str = "",
        *,
        settings: SessionSettings | None = None,
        is_local: bool = False,
    ) -> None:
        # The candidates the planner chooses from, preferred first; a server or model
        # change replaces them, and the next request goes to the new one.
        self.routes: tuple[Route, ...] = (Route(backend, model, server_name, is_local),)
        self.settings = settings or SessionSettings()
        self._owned_db: Database | None = None
        if history is None:
            # Without a history the session still needs message ids (Continue,
            # Regenerate): keep the conversation in an in-memory database.
            self._owned_db = Database(":memory:")
            history = HistoryStore(self._owned_db, recover=False)
        self.history = history
        self.metrics_store = metrics_store
        # What the session asks of the other parts (the composition root attaches them:
        # client/services/tachy.py). None: the session does without.
        self.model_state_provider: ModelStateProvider | None = None  # the warmer's
        self.load_estimate: LoadEstimate | None = None  # the model's learned load time, ms
        self.token_counter: TokenCounter = estimate_tokens  # or a PromptTokenCounter
        self.ttft_estimate: TtftEstimate | None = None  # the warming policy's predictor
        self.knowledge: KnowledgeStage | None = None  # the retrieving stage
        self.vision: ModelVision | None = None  # which models can see (images' routes)
        # What the server's prompt cache is known to hold (the warmer's knowledge).
        self.prompt_cache: Callable[[], CachedPrompt | None] | None = None
        # Kept in the store: a reopened conversation sends its summary again.
        self.summaries = ConversationSummaries(SummaryStore(history.db))

    def configure(self, **changes: Any) -> SessionSettings:
        """Replace the settings with these changes; the next request uses them."""
        self.settings = replace(self.settings, **changes)
        return self.settings

    # ---- the routes (the server and model chosen, or a cascade) ----------------------

    def use_routes(self, routes: Sequence[Route]) -> None:
        """The candidates from now on (one still on its way keeps its own)."""
        if not routes:
            raise ValueError("a session needs a server and model to send to")
        self.routes = tuple(routes)

    def use_route(self, route: Route) -> None:
        """The preferred route: the server and model chosen in the window."""
        self.use_routes([route, *self.routes[1:]])

    def use_model(self, model: str) -> None:
        self.use_route(replace(self.route, model=model))

    @property
    def route(self) -> Route:
        return self.routes[0]

    @property
    def backend(self) -> Backend:
        return self.route.backend

    @property
    def model(self) -> str:
        return self.route.model

    @property
    def server_name(self) -> str:
        return self.route.server_name

    @property
    def is_local(self) -> bool:
        return self.route.is_local

    # ---- actions (each returns a Generation; nothing runs until it is iterated) -------

    def generate(
        self,
        conversation_id: int | None,
        question: str,
        *,
        system: str | None = None,
        decision: RouteDecision | None = None,
        images: Sequence[Attachment] = (),
    ) -> Generation:
        """Ask a new question at the end of the conversation (None: a new one), with
        the images attached (prepared by client.services.images). With a cascade,
        `decision` overrides the router ("Ask the strong model")."""
        settings = self.plan_settings(system)
        attached = tuple(images)

        def prepare(chosen: RouteChoice) -> turns.Turn:
            origin = turns.origin_of(chosen.route)
            system_prompt = settings.system_prompt
            return turns.ask(
                self.history, conversation_id, question, system_prompt, origin, attached
            )

        chooser = self._chooser(decision, question, with_images=bool(attached))
        generation = self._generation("ask", prepare, settings, chooser)
        generation.images_prepare_ms = sum(a.prepare_ms for a in attached)
        return generation

    def regenerate(
        self, assistant_message_id: int, decision: RouteDecision | None = None
    ) -> Generation:
        """A new answer to the same question; the old one stays as a sibling (with a
        cascade, `decision` re-asks it with the other model)."""
        return self._answer_again("regenerate", assistant_message_id, decision)

    def retry(self, assistant_message_id: int) -> Generation:
        """Ask the question again after a failed or interrupted answer (kept beside it)."""
        return self._answer_again("retry", assistant_message_id)

    def answer_question(self, user_message_id: int, question: str) -> Generation:
        """One more answer to the stored question `user_message_id` (its text:
        `question`), as a version beside its others: each column of a race
        (client/services/race/race.py)."""

        def prepare(chosen: RouteChoice) -> turns.Turn:  # on the database thread
            return turns.answer_to(self.history, user_message_id, turns.origin_of(chosen.route))

        chooser = self._chooser(None, question)
        return self._generation("race", prepare, self.plan_settings(), chooser)

    def edit_and_resend(self, user_message_id: int, new_text: str) -> Generation:
        """Branch: the edited question beside the old one, and a new answer to it."""

        def prepare(chosen: RouteChoice) -> turns.Turn:
            origin = turns.origin_of(chosen.route)
            return turns.edit_question(self.history, user_message_id, new_text, origin)

        chooser = self._chooser(None, new_text)
        return self._generation("edit", prepare, self.plan_settings(), chooser)

    def continue_message(
        self, assistant_message_id: int, decision: RouteDecision | None = None
    ) -> Generation:
        """Ask the model to go on from where the answer stopped; the new text is
        appended to the same message and measured as a request of its own. With a
        cascade, `decision` continues with the other model."""

        def prepare(_chosen: RouteChoice) -> turns.Turn:
            return turns.resume(self.history, assistant_message_id)

        chooser = self._chooser(decision, answer_id=assistant_message_id, continuing=True)
        return self._generation("continue", prepare, self.plan_settings(), chooser)

    def close(self) -> None:
        """Close the in-memory history, if the session made one."""
        if self._owned_db is not None:
            self._owned_db.close()
            self._owned_db = None

    # ---- planning ---------------------------------------------------------------------

    def plan_settings(self, system: str | None = None) -> PlanSettings:
        """The settings every request of this session is planned with, as they are now."""
        own = self.settings
        return PlanSettings(
            system_prompt=system if system is not None else own.system_prompt,
            options=own.options,
            budget=own.prompt_budget,
            keep_alive=own.keep_alive,
            think=own.think,
            continue_final_message=own.continue_final_message,
        )

    def plan(
        self,
        turn: turns.Turn,
        settings: PlanSettings | None = None,
        routes: Sequence[Route] | None = None,
        passages: Sequence[Passage] = (),
        chosen: RouteChoice | None = None,
    ) -> RequestPlan:
        """The plan for a stored turn: what the request sends, and to whom."""
        history, question = turn.history_and_question()
        stored = self.summaries.recall(turn.conversation_id) if self._compressing else None
        ids = turn.context_ids[: len(history)]
        summary = stored.summary if stored and stored.holds_for(history, ids) else None
        return self.plan_question(
            history,
            question,
            turn.context_ids[: len(history)],
            text_id=turn.user_message_id,
            continuing=turn.prior_text,
            settings=settings,
            routes=routes,
            passages=passages,
            chosen=chosen,
            summary=summary,
            images=turn.question_images,
        )

    def plan_question(
        self,
        history: Sequence[ChatMessage],
        text: str,
        history_ids: Sequence[int | None] = (),
        *,
        text_id: int | None = None,
        continuing: str = "",
        settings: PlanSettings | None = None,
        routes: Sequence[Route] | None = None,
        passages: Sequence[Passage] = (),
        chosen: RouteChoice | None = None,
        summary: HistorySummary | None = None,
        images: tuple[ImagePart, ...] = (),
    ) -> RequestPlan:
        """The plan `text` gets after `history`: the session's requests and the
        warmer's next prefix (a draft not sent yet) both come from here."""
        cached = self.prompt_cache() if self.prompt_cache is not None else None
        return plan_request(
            PlanInput(
                history=history,
                text=text,
                settings=settings or self.plan_settings(),
                routes=routes if routes is not None else self.routes,
                history_ids=history_ids,
                text_id=text_id,
                continuing=continuing,
                passages=passages,
                count=self.token_counter,
                ttft=self.ttft_estimate,
                cached=cached,
                chosen=chosen,
                summary=summary,
                images=images,
                sees=self.vision.may_see if self.vision is not None else None,
            )
        )

    def plan_of_last_question(self, conversation_id: int) -> RequestPlan | None:
        """The plan the conversation's last question gets with today's settings (a
        reopened conversation redraws its budget marker from it); None without one."""
        messages, ids = self.stored_context(conversation_id)
        if messages and messages[-1].role == "assistant":
            messages, ids = messages[:-1], ids[:-1]  # its request ended with the question
        if not messages or messages[-1].role != "user":
            return None
        question = messages[-1]
        return self.plan_question(
            messages[:-1], question.content, ids[:-1], text_id=ids[-1], images=question.images
        )

    def summary_in_use(self, conversation_id: int) -> StoredSummary | None:
        """The summary the conversation's next request sends, if any (the window marks
        where the turns it stands for end)."""
        stored = self.summaries.recall(conversation_id) if self._compressing else None
        if stored is None:
            return None
        history, ids = self.stored_context(conversation_id)
        return stored if stored.holds_for(history, ids) else None

    def stored_context(
        self, conversation_id: int | None
    ) -> tuple[list[ChatMessage], list[int | None]]:
        """A stored conversation's active path as the model sees it, with its ids."""
        if conversation_id is None:
            return [], []
        return turns.read_context(self.history, self.history.active_path(conversation_id))

    # ---- requests ---------------------------------------------------------------------

    @property
    def _compressing(self) -> bool:
        return self.settings.compress_history

    def _generation(
        self,
        kind: str,
        prepare: Callable[[RouteChoice], turns.Turn],
        settings: PlanSettings,
        choose: Chooser,
    ) -> Generation:
        routes = list(self.routes)  # a server change while it runs is for the next request

        async def build(
            turn: turns.Turn, passages: tuple[Passage, ...], chosen: RouteChoice
        ) -> Outgoing:
            await self._ask_vision(turn, routes, chosen)
            plan = self.plan(turn, settings, routes, passages, chosen)
            # Asked by a prompt, small models often start the answer over.
            prompted = turn.prior_text and plan.continue_mode is ContinueMode.PROMPT
            return Outgoing(plan, prompted_answer_filter(turn.prior_text) if prompted else None)

        def prepare_turn(chosen: RouteChoice) -> turns.Turn:  # on the database thread
            turn = prepare(chosen)
            self.summaries.recall(turn.conversation_id)  # so is the summary's read
            return turn

        return Generation(self._run_settings(), kind, choose, prepare_turn, build)

    async def _ask_vision(
        self, turn: turns.Turn, routes: Sequence[Route], chosen: RouteChoice
    ) -> None:
        """With images in the turn, whether the route (and a cascade's fallback) can
        see them is asked before planning: a text model gets notes for the history's."""
        if self.vision is None or not any(m.images for m in turn.context):
            return
        fallback = other_route(routes, chosen.route)
        await self.vision.ask_all([chosen.route, *([fallback] if fallback else [])])

    def _chooser(
        self,
        decision: RouteDecision | None,
        question: str | None = None,
        *,
        answer_id: int | None = None,
        continuing: bool = False,
        with_images: bool = False,
    ) -> Chooser:
        """The message's one route decision, made before its turn is stored: the
        user's `decision`, else a cascade's classifier within its budget (when on),
        else the router's rules; without a cascade, the chosen server and model. A
        message with images goes to a model of the cascade that can see."""
        routes = list(self.routes)
        decide_route = self._decider(decision, question, routes, answer_id, continuing)
        vision = self.vision

        async def choose() -> RouteChoice:
            choice = await decide_route()
            if vision is None or not is_cascade(routes):
                return choice
            if with_images or (answer_id is not None and await self._asked_with_images(answer_id)):
                return await vision.route_for_images(choice, routes)
            return choice

        return choose

    def _decider(
        self,
        decision: RouteDecision | None,
        question: str | None,
        routes: list[Route],
        answer_id: int | None,
        continuing: bool,
    ) -> Chooser:
        async def choose() -> RouteChoice:
            if decision is not None or not is_cascade(routes):
                return choose_route(routes, question or "", decision)
            text = question
            if text is None:  # Regenerate, Retry, Continue: the stored question
                assert answer_id is not None
                text = await self.history.db.run(self._question_of, answer_id)
            # A Continue goes on by the rules, as its answer was routed; no classifier.
            classified = None if continuing else await self._classified(text, routes)
            return choose_route(routes, text, classified)

        return choose

    async def _classified(self, question: str, routes: list[Route]) -> RouteDecision | None:
        """A cascade's decision by its fast model within the budget (the rules' past it),
        when the user turned the classifier on; None: the rules decide."""
        fast = next((r for r in routes if r.tier == Tier.FAST.value), None)
        if not self.settings.classify or fast is None:
            return None
        classify = backend_classifier(fast.backend, fast.model)
        return await decide(question, classify, self.settings.classify_budget_ms)

    def _answer_again(
        self, kind: str, assistant_message_id: int, decision: RouteDecision | None = None
    ) -> Generation:
        def prepare(chosen: RouteChoice) -> turns.Turn:  # on the database thread
            origin = turns.origin_of(chosen.route)
            return turns.answer_again(self.history, assistant_message_id, origin)

        chooser = self._chooser(decision, answer_id=assistant_message_id)
        return self._generation(kind, prepare, self.plan_settings(), chooser)

    async def _asked_with_images(self, assistant_message_id: int) -> bool:
        """Whether the question an answer answers carries images (Regenerate, Retry)."""
        answer = await self.history.db.run(self.history.get_message, assistant_message_id)
        if answer is None or answer.parent_id is None:
            return False
        found = await stored_images(self.history, [answer.parent_id])
        return bool(found)

    def _question_of(self, assistant_message_id: int) -> str:
        answer = self.history.get_message(assistant_message_id)
        parent = answer.parent_id if answer is not None else None
        question = self.history.get_message(parent) if parent is not None else None
        return question.content if question is not None else ""

    def _run_settings(self) -> RunSettings:
        own = self.settings
        return RunSettings(
            history=self.history,
            metrics_store=self.metrics_store,
            first_token_timeout_s=own.first_token_timeout_s,
            slow_start_after_s=own.slow_start_after_s,
            fallback_after_s=own.fallback_after_s,
            stall_timeout_s=own.stall_timeout_s,
            thresholds=own.thresholds,
            model_state_provider=self.model_state_provider,
            load_estimate=self.load_estimate,
            flush_interval_s=own.flush_interval_s,
            knowledge=self.knowledge,
            prompt_budget=own.prompt_budget,
        )
