"""The chat session: what happens between Send and the last word (Qt-free).

    session = ChatSession(backend, "llama3.2", history, metrics_store, server_name="Ollama")
    generation = session.generate(None, "Why is the sky blue?")
    async for event in generation:  # StageChanged / Token / SlowStart / Finished
        ...

The contract with the ui is this class's methods; a Generation is described in
client/services/generation.py. Every action stores its messages before sending, so no
question and no word of an answer is ever lost, and the ui only paints.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from client.backends.base import Backend
from client.core.budget import FittedPrompt, TokenCounter, estimate_tokens, fit_to_budget
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.services import turns
from client.services.answer_writer import FLUSH_INTERVAL_S
from client.services.continuation import (
    ContinueMode,
    RepeatedStartFilter,
    continuation_request,
    continue_mode,
    server_supports_continue_final_message,
)
from client.services.generation import Generation, Outgoing, SessionEvent
from client.store.db import Database
from client.store.history import HistoryStore
from client.store.metrics_store import MetricsStore

ModelStateProvider = Callable[[], "str | None"]  # "cold" | "loading" | "warm" | None

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
        self.backend = backend  # may be reassigned (server change): next request uses it
        self.model = model
        self._owned_db: Database | None = None
        if history is None:
            # Without a history the session still needs message ids (Continue,
            # Regenerate): keep the conversation in an in-memory database.
            self._owned_db = Database(":memory:")
            history = HistoryStore(self._owned_db, recover=False)
        self.history = history
        self.metrics_store = metrics_store
        self.server_name = server_name
        self.first_token_timeout_s = first_token_timeout_s
        self.stall_timeout_s = stall_timeout_s
        self.thresholds = thresholds
        self.model_state_provider = model_state_provider  # set by the warmer
        self.is_local = is_local  # the local engine: "Use the local model" makes no sense
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

    # ---- actions (each returns a Generation; nothing runs until it is iterated) -------

    def generate(
        self, conversation_id: int | None, question: str, *, system: str | None = None
    ) -> Generation:
        """Ask a new question at the end of the conversation (None: a new one)."""
        system = system if system is not None else self.system_prompt
        prepare = partial(
            turns.ask, self.history, conversation_id, question, system, self._origin()
        )
        return self._generation("ask", prepare)

    def regenerate(self, assistant_message_id: int) -> Generation:
        """A new answer to the same question; the old one stays as a sibling."""
        return self._generation("regenerate", self._answer_again(assistant_message_id))

    def retry(self, assistant_message_id: int) -> Generation:
        """Ask the question again after a failed or interrupted answer (kept beside it)."""
        return self._generation("retry", self._answer_again(assistant_message_id))

    def edit_and_resend(self, user_message_id: int, new_text: str) -> Generation:
        """Branch: the edited question beside the old one, and a new answer to it."""
        prepare = partial(
            turns.edit_question,
            self.history,
            user_message_id,
            new_text,
            self.system_prompt,
            self._origin(),
        )
        return self._generation("edit", prepare)

    def continue_message(self, assistant_message_id: int) -> Generation:
        """Ask the model to go on from where the answer stopped; the new text is
        appended to the same message and measured as a request of its own."""
        prepare = partial(turns.resume, self.history, assistant_message_id, self.system_prompt)
        return Generation(self, "continue", prepare, self._continuation_request)

    def close(self) -> None:
        """Close the in-memory history, if the session made one."""
        if self._owned_db is not None:
            self._owned_db.close()
            self._owned_db = None

    # ---- requests ---------------------------------------------------------------------

    def _generation(self, kind: str, prepare: Callable[[], turns.Turn]) -> Generation:
        return Generation(self, kind, prepare, self._request)

    def _answer_again(self, assistant_message_id: int) -> Callable[[], turns.Turn]:
        return partial(
            turns.answer_again,
            self.history,
            assistant_message_id,
            self.system_prompt,
            self._origin(),
        )

    def _origin(self) -> turns.Origin:
        return turns.Origin(self.server_name, self.model)

    def _fit(self, messages: list[ChatMessage]) -> FittedPrompt:
        return fit_to_budget(messages, self.prompt_budget, self.token_counter)

    def _request(self, turn: turns.Turn) -> Outgoing:
        fitted = self._fit(turn.context)
        request = ChatRequest(
            model=self.model,
            messages=fitted.messages,
            options=self.options,
            keep_alive=self.keep_alive,
            think=self.think,
        )
        return Outgoing(request, fitted=fitted)

    def _continuation_request(self, turn: turns.Turn) -> Outgoing:
        if not turn.prior_text:
            return self._request(turn)  # stopped before any word: nothing to continue from
        supported = self.continue_final_message
        if supported is None:
            supported = server_supports_continue_final_message(self.backend)
        mode = continue_mode(self.backend.api, supported)
        # The partial answer counts against the budget and is always kept with its question.
        fitted = self._fit([*turn.context, ChatMessage("assistant", turn.prior_text)])
        context = fitted.messages[:-1]
        request = continuation_request(self.model, context, turn.prior_text, mode, self.options)
        request.keep_alive = self.keep_alive
        request.think = self.think
        # Asked by a prompt, small models often start the answer over.
        repeat_filter = RepeatedStartFilter(turn.prior_text).feed
        return Outgoing(request, repeat_filter if mode is ContinueMode.PROMPT else None, fitted)
