"""The chat session: what happens between Send and the last word (Qt-free).

    session = ChatSession(backend, "llama3.2", history, metrics_store, server_name="Ollama")
    generation = session.generate(None, "Why is the sky blue?")
    async for event in generation:  # StageChanged / StateChanged / Token / SlowStart / Finished
        ...

The session holds the user's settings and the candidate routes (servers and models
that may answer). Each action is one TurnAsk into the turn pipeline: its steps
(client/services/chat/turn_steps.py: decide the route, store the question, retrieve,
plan) and the Generation that runs them, then the model call (client/services/chat/
generation.py). Every action
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
from client.core.tools import ToolSpec
from client.services.chat import turn_store as turns
from client.services.chat.generation import Generation, SessionEvent
from client.services.chat.loading_stage import LoadEstimate
from client.services.chat.loading_stage import ModelStateProvider as ModelStateProvider
from client.services.chat.session_settings import SessionSettings
from client.services.chat.tool_step import schema_tokens
from client.services.chat.turn_steps import (
    Classifying,
    Planning,
    RunSettings,
    SlotHint,
    TurnAsk,
    TurnKind,
    TurnSteps,
)
from client.services.events import EventBus
from client.services.images.vision import ModelVision
from client.services.knowledge.knowledge_stage import KnowledgeStage
from client.services.planning.compression import StoredSummary
from client.services.planning.planner import (
    CachedPrompt,
    Passage,
    PlanSettings,
    RequestPlan,
    Route,
    TtftEstimate,
)
from client.services.planning.router import RouteDecision
from client.services.planning.summaries import ConversationSummaries
from client.services.tools.turn_tools import TurnTools
from client.store.conversations.history import HistoryStore
from client.store.conversations.summaries import SummaryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore

__all__ = ["ChatSession", "Generation", "ModelStateProvider", "SessionEvent", "SessionSettings"]


class ChatSession:
    # A misspelt or retired setting fails loudly instead of being ignored.
    __slots__ = (
        "_owned_db",
        "events",
        "history",
        "knowledge",
        "load_estimate",
        "metrics_store",
        "model_state_provider",
        "prompt_cache",
        "routes",
        "settings",
        "slot_hint",
        "summaries",
        "token_counter",
        "tools",
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
        self.events: EventBus | None = None  # the root's: its turns publish there
        self.tools: TurnTools | None = None  # the conversation's MCP tools (tool_step.py)
        self.slot_hint: SlotHint | None = None  # type-ahead's: the slot that read the question
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
    # Each is one TurnAsk into the same pipeline (client/services/chat/turn_steps.py).

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
        ask = TurnAsk(
            TurnKind.ASK,
            conversation_id,
            question=question,
            system=self.plan_settings(system).system_prompt,
            images=tuple(images),
            decision=decision,
        )
        return self._generation(ask, system)

    def regenerate(
        self, assistant_message_id: int, decision: RouteDecision | None = None
    ) -> Generation:
        """A new answer to the same question; the old one stays as a sibling (with a
        cascade, `decision` re-asks it with the other model)."""
        return self._generation(
            TurnAsk(TurnKind.REGENERATE, decision=decision, answer_id=assistant_message_id)
        )

    def retry(self, assistant_message_id: int) -> Generation:
        """Ask the question again after a failed or interrupted answer (kept beside it)."""
        return self._generation(TurnAsk(TurnKind.RETRY, answer_id=assistant_message_id))

    def answer_question(self, user_message_id: int, question: str) -> Generation:
        """One more answer to the stored question `user_message_id` (its text:
        `question`), as a version beside its others: each column of a race
        (client/services/race/race.py)."""
        ask = TurnAsk(TurnKind.RACE, question=question, user_message_id=user_message_id)
        return self._generation(ask)

    def edit_and_resend(self, user_message_id: int, new_text: str) -> Generation:
        """Branch: the edited question beside the old one, and a new answer to it."""
        ask = TurnAsk(TurnKind.EDIT, question=new_text, user_message_id=user_message_id)
        return self._generation(ask)

    def continue_message(
        self, assistant_message_id: int, decision: RouteDecision | None = None
    ) -> Generation:
        """Ask the model to go on from where the answer stopped; the new text is
        appended to the same message and measured as a request of its own. With a
        cascade, `decision` continues with the other model."""
        ask = TurnAsk(TurnKind.CONTINUE, decision=decision, answer_id=assistant_message_id)
        return self._generation(ask)

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

    def planning(self, settings: PlanSettings | None = None) -> Planning:
        """What every plan is made with now: settings, routes and the policies' parts."""
        return Planning(
            settings=settings or self.plan_settings(),
            routes=self.routes,
            count=self.token_counter,
            ttft=self.ttft_estimate,
            cached=self.prompt_cache,
            vision=self.vision,
        )

    def plan_question(
        self,
        history: Sequence[ChatMessage],
        text: str,
        history_ids: Sequence[int | None] = (),
        *,
        text_id: int | None = None,
        passages: Sequence[Passage] = (),
        images: tuple[ImagePart, ...] = (),
        tool_tokens: int = 0,
        tools: tuple[ToolSpec, ...] = (),
    ) -> RequestPlan:
        """The plan `text` gets after `history`: the warmer's next prefix (a draft not
        sent yet) and `tachy chat` plan here as a turn's plan step does (`tools`: the
        offered tools' definitions, sent with it; `tool_tokens`: theirs)."""
        return self.planning().plan(
            history, text, history_ids, text_id=text_id, passages=passages, images=images,
            tool_tokens=tool_tokens, tools=tools,
        )  # fmt: skip

    def plan_ahead(
        self, history: Sequence[ChatMessage], text: str, history_ids: Sequence[int | None],
        conversation_id: int | None, *, text_id: int | None = None,
        images: tuple[ImagePart, ...] = (),
    ) -> RequestPlan:  # fmt: skip
        """The plan `text` will get in the conversation's next turn, before it is sent:
        with the conversation's tools when they are known without starting a server
        (counted in its budget and wait, and sent, as the turn's first call will)."""
        offer = self.tools.offer_known_now(conversation_id) if self.tools else None
        tokens = schema_tokens(offer, self.token_counter) if offer else 0
        return self.plan_question(
            history, text, history_ids, text_id=text_id, images=images, tool_tokens=tokens,
            tools=offer.specs if offer else (),
        )  # fmt: skip

    def plan_of_last_question(self, conversation_id: int) -> RequestPlan | None:
        """The plan the conversation's last question gets with today's settings (a
        reopened conversation redraws its budget marker from it); None without one."""
        messages, ids = self.stored_context(conversation_id)
        # Its request ended with the question: the answer after it (and a tool turn's
        # calls and results before that answer) came later.
        asked = [n for n, message in enumerate(messages) if message.role == "user"]
        if not asked:
            return None
        last = asked[-1]
        question = messages[last]
        return self.plan_ahead(
            messages[:last], question.content, ids[:last], conversation_id, text_id=ids[last],
            images=question.images,
        )  # fmt: skip

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

    def _generation(self, ask: TurnAsk, system: str | None = None) -> Generation:
        """The turn's pipeline with the settings and routes as they are now (a server
        change while it runs is for the next request)."""
        own = self.settings
        steps = TurnSteps(
            history=self.history,
            planning=self.planning(self.plan_settings(system)),
            summaries=self.summaries,
            compressing=self._compressing,
            classifying=Classifying(own.classify, own.classify_budget_ms),
            knowledge=self.knowledge,
            prompt_budget=own.prompt_budget,
            slot_hint=self.slot_hint,
        )
        return Generation(self._run_settings(), ask, steps)

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
            max_model_calls=own.max_model_calls,
            bus=self.events,
            tools=self.tools,
        )
