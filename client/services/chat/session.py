"""The chat session: what happens between Send and the last word (Qt-free).

    session = ChatSession(backend, "llama3.2", history, metrics_store, server_name="Ollama")
    generation = session.generate(None, "Why is the sky blue?")
    async for event in generation:  # StageChanged / Token / SlowStart / Finished
        ...

The session holds the user's settings and the candidate routes (servers and models
that may answer); each request is planned by client.services.planning.planner, which picks its
route, and a Generation (client/services/chat/generation.py) runs the plan. Every action
stores its messages before sending, so no question and no word of an answer is ever
lost, and the ui only paints. docs/architecture.md follows a message end to end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from client.backends.base import Backend
from client.core.budget import TokenCounter, estimate_tokens
from client.core.conversation import ChatMessage, GenerationOptions
from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.services.cascade.cascade import FALLBACK_AFTER_S, backend_classifier
from client.services.chat import turn_store as turns
from client.services.chat.answer_writer import FLUSH_INTERVAL_S
from client.services.chat.generation import (
    Generation,
    ModelStateProvider,
    Outgoing,
    RunSettings,
    SessionEvent,
)
from client.services.chat.loading_stage import LoadEstimate
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
    TtftEstimate,
    is_cascade,
    plan_request,
    route_for,
)
from client.services.planning.router import DEFAULT_BUDGET_MS, RouteDecision, Tier, decide
from client.services.planning.summaries import ConversationSummaries
from client.store.db import Database
from client.store.history import HistoryStore
from client.store.metrics_store import MetricsStore
from client.store.summaries import SummaryStore

__all__ = ["ChatSession", "Generation", "ModelStateProvider", "SessionEvent"]


class ChatSession:
    def __init__(
        self,
        backend: Backend,
        model: str,
        history: HistoryStore | None = None,
        metrics_store: MetricsStore | None = None,
        server_name: str = "",
        first_token_timeout_s: float = 60.0,
        stall_timeout_s: float = 15.0,
        thresholds: TierThresholds = DEFAULT_THRESHOLDS,
        *,
        model_state_provider: ModelStateProvider | None = None,
        is_local: bool = False,
        flush_interval_s: float = FLUSH_INTERVAL_S,
    ) -> None:
        # The candidates the planner chooses from, preferred first; a server or model
        # change replaces them, and the next request goes to the new one.
        self.routes: list[Route] = [Route(backend, model, server_name, is_local)]
        self._owned_db: Database | None = None
        if history is None:
            # Without a history the session still needs message ids (Continue,
            # Regenerate): keep the conversation in an in-memory database.
            self._owned_db = Database(":memory:")
            history = HistoryStore(self._owned_db, recover=False)
        self.history = history
        self.metrics_store = metrics_store
        self.first_token_timeout_s = first_token_timeout_s
        # A cascade's chosen model gets this long for its first token; then the other answers.
        self.fallback_after_s = FALLBACK_AFTER_S
        self.stall_timeout_s = stall_timeout_s
        self.thresholds = thresholds
        self.model_state_provider = model_state_provider  # set by the warmer
        self.load_estimate: LoadEstimate | None = None  # the model's learned load time, ms
        self.flush_interval_s = flush_interval_s
        self.options = GenerationOptions()
        self.keep_alive: str | int | None = None  # Ollama: how long to keep the model
        self.think: bool | str | None = None  # Ollama: reasoning switch
        self.system_prompt: str | None = None  # used when generate() is given none
        # None: ask the backend whether its server understands continue_final_message.
        self.continue_final_message: bool | None = None
        # Prompt budget in tokens (client.core.budget.prompt_budget); None sends the
        # whole conversation. The oldest turns are dropped first.
        self.prompt_budget: int | None = None
        self.token_counter: TokenCounter = estimate_tokens  # or a PromptTokenCounter
        self.ttft_estimate: TtftEstimate | None = None  # the window's TTFT predictor
        # The retrieving stage (the window's knowledge link sets it); it runs for the
        # conversations it says have knowledge on.
        self.knowledge: KnowledgeStage | None = None
        # What the server's prompt cache is known to hold (the warmer's knowledge).
        self.prompt_cache: Callable[[], CachedPrompt | None] | None = None
        # History compression (client/services/planning/compression.py): each conversation's
        # summary of its older turns, sent instead of them while they are unchanged.
        self.compress_history = True
        # Kept in the store: a reopened conversation sends its summary again.
        self.summaries = ConversationSummaries(SummaryStore(history.db))
        # A cascade's fast model classifies each question within its budget (the
        # window's Cascade menu); past it, or when off, the router's rules decide.
        self.classify = False
        self.classify_budget_ms = DEFAULT_BUDGET_MS

    # ---- the preferred route (the window's server and model pickers set it) -----------

    @property
    def route(self) -> Route:
        return self.routes[0]

    @route.setter
    def route(self, route: Route) -> None:
        self.routes = [route, *self.routes[1:]]

    @property
    def backend(self) -> Backend:
        return self.route.backend

    @backend.setter
    def backend(self, backend: Backend) -> None:
        self.route = Route(backend, self.model, self.server_name, self.is_local)

    @property
    def model(self) -> str:
        return self.route.model

    @model.setter
    def model(self, model: str) -> None:
        self.route = Route(self.backend, model, self.server_name, self.is_local)

    @property
    def server_name(self) -> str:
        return self.route.server_name

    @server_name.setter
    def server_name(self, name: str) -> None:
        self.route = Route(self.backend, self.model, name, self.is_local)

    @property
    def is_local(self) -> bool:
        return self.route.is_local

    @is_local.setter
    def is_local(self, local: bool) -> None:
        self.route = Route(self.backend, self.model, self.server_name, local)

    # ---- actions (each returns a Generation; nothing runs until it is iterated) -------

    def generate(
        self,
        conversation_id: int | None,
        question: str,
        *,
        system: str | None = None,
        decision: RouteDecision | None = None,
    ) -> Generation:
        """Ask a new question at the end of the conversation (None: a new one). With a
        cascade, `decision` overrides the router ("Ask the strong model")."""
        settings = self.plan_settings(system)
        prepare = partial(
            turns.ask,
            self.history,
            conversation_id,
            question,
            settings.system_prompt,
            self._origin(question, decision),
        )
        return self._generation("ask", prepare, settings, decision)

    def regenerate(
        self, assistant_message_id: int, decision: RouteDecision | None = None
    ) -> Generation:
        """A new answer to the same question; the old one stays as a sibling (with a
        cascade, `decision` re-asks it with the other model)."""
        return self._answer_again("regenerate", assistant_message_id, decision)

    def retry(self, assistant_message_id: int) -> Generation:
        """Ask the question again after a failed or interrupted answer (kept beside it)."""
        return self._answer_again("retry", assistant_message_id)

    def edit_and_resend(self, user_message_id: int, new_text: str) -> Generation:
        """Branch: the edited question beside the old one, and a new answer to it."""
        prepare = partial(
            turns.edit_question,
            self.history,
            user_message_id,
            new_text,
            self._origin(new_text),
        )
        return self._generation("edit", prepare, self.plan_settings())

    def continue_message(
        self, assistant_message_id: int, decision: RouteDecision | None = None
    ) -> Generation:
        """Ask the model to go on from where the answer stopped; the new text is
        appended to the same message and measured as a request of its own. With a
        cascade, `decision` continues with the other model."""
        prepare = partial(turns.resume, self.history, assistant_message_id)
        return self._generation("continue", prepare, self.plan_settings(), decision)

    def close(self) -> None:
        """Close the in-memory history, if the session made one."""
        if self._owned_db is not None:
            self._owned_db.close()
            self._owned_db = None

    # ---- planning ---------------------------------------------------------------------

    def plan_settings(self, system: str | None = None) -> PlanSettings:
        """The settings every request of this session is planned with, as they are now."""
        return PlanSettings(
            system_prompt=system if system is not None else self.system_prompt,
            options=self.options,
            budget=self.prompt_budget,
            keep_alive=self.keep_alive,
            think=self.think,
            continue_final_message=self.continue_final_message,
        )

    def plan(
        self,
        turn: turns.Turn,
        settings: PlanSettings | None = None,
        routes: Sequence[Route] | None = None,
        passages: Sequence[Passage] = (),
        decision: RouteDecision | None = None,
    ) -> RequestPlan:
        """The plan for a stored turn: what the request sends, and to whom."""
        history, question = turn.history_and_question()
        stored = self.summaries.recall(turn.conversation_id) if self.compress_history else None
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
            decision=decision,
            summary=summary,
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
        decision: RouteDecision | None = None,
        summary: HistorySummary | None = None,
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
                decision=decision,
                summary=summary,
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
        return self.plan_question(messages[:-1], messages[-1].content, ids[:-1], text_id=ids[-1])

    def summary_in_use(self, conversation_id: int) -> StoredSummary | None:
        """The summary the conversation's next request sends, if any (the window marks
        where the turns it stands for end)."""
        stored = self.summaries.recall(conversation_id) if self.compress_history else None
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
        return turns.context_of(self.history.active_path(conversation_id))

    # ---- requests ---------------------------------------------------------------------

    def _generation(
        self,
        kind: str,
        prepare: Callable[[], turns.Turn],
        settings: PlanSettings,
        decision: RouteDecision | None = None,
    ) -> Generation:
        routes = list(self.routes)  # a server change while it runs is for the next request

        async def build(turn: turns.Turn, passages: tuple[Passage, ...]) -> Outgoing:
            chosen = decision or await self._classified(turn, routes)
            plan = self.plan(turn, settings, routes, passages, chosen)
            # Asked by a prompt, small models often start the answer over.
            prompted = turn.prior_text and plan.continue_mode is ContinueMode.PROMPT
            return Outgoing(plan, prompted_answer_filter(turn.prior_text) if prompted else None)

        def prepare_turn() -> turns.Turn:  # on the database thread, so is the summary's read
            turn = prepare()
            self.summaries.recall(turn.conversation_id)
            return turn

        return Generation(self._run_settings(), kind, prepare_turn, build)

    async def _classified(self, turn: turns.Turn, routes: list[Route]) -> RouteDecision | None:
        """A cascade's decision by its fast model within the budget (the rules' past it),
        when the user turned the classifier on; None: the planner's rules decide."""
        fast = next((r for r in routes if r.tier == Tier.FAST.value), None)
        question = turn.history_and_question()[1]
        if not self.classify or fast is None or not is_cascade(routes) or turn.prior_text:
            return None  # a Continue goes on with the route it came from
        classify = backend_classifier(fast.backend, fast.model)
        return await decide(question, classify, self.classify_budget_ms)

    def _answer_again(
        self, kind: str, assistant_message_id: int, decision: RouteDecision | None = None
    ) -> Generation:
        def prepare() -> turns.Turn:  # on the database thread
            origin = self._origin(self._question_of(assistant_message_id), decision)
            return turns.answer_again(self.history, assistant_message_id, origin)

        return self._generation(kind, prepare, self.plan_settings(), decision)

    def _question_of(self, assistant_message_id: int) -> str:
        answer = self.history.get_message(assistant_message_id)
        parent = answer.parent_id if answer is not None else None
        question = self.history.get_message(parent) if parent is not None else None
        return question.content if question is not None else ""

    def _run_settings(self) -> RunSettings:
        return RunSettings(
            history=self.history,
            metrics_store=self.metrics_store,
            first_token_timeout_s=self.first_token_timeout_s,
            fallback_after_s=self.fallback_after_s,
            stall_timeout_s=self.stall_timeout_s,
            thresholds=self.thresholds,
            model_state_provider=self.model_state_provider,
            load_estimate=self.load_estimate,
            flush_interval_s=self.flush_interval_s,
            knowledge=self.knowledge,
            prompt_budget=self.prompt_budget,
        )

    def _origin(self, text: str, decision: RouteDecision | None = None) -> turns.Origin:
        # Stored with the answer before the request is planned: the route the planner
        # will choose from the same candidates (route_for is deterministic).
        route = route_for(self.routes, text, decision)
        return turns.Origin(route.server_name, route.model, route.tier)
