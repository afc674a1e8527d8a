"""Keeping the model warm and predicting the wait: the policy, without Qt.

WarmingPolicy owns the KeepAliveWarmer, one TTFT predictor per server and model
(restored from and saved to the settings store, so a restart predicts from the
start), the prompt token counter and the prompt budget (from the model's context
length and the user's setting). It puts them on the chat session
(client/services/chat/session.py) and answers the window's questions:

    policy = WarmingPolicy(settings_store)
    policy.attach(session)                          # the session's collaborators
    policy.retarget(session, engine, "app start")   # a server or model change
    policy.predict_draft(text)                       # per keystroke: arithmetic only
    policy.next_plan(session, conversation, draft)  # what the warmer warms
    policy.subscribe(tachy.events)                   # TurnStarted, StateChanged, AnswerFinished

It hears each turn through the root's events (client/services/events.py), whoever
asked: the window, `tachy chat`, `tachy bench`. The predictors themselves are
TtftLearning's (ttft_learning.py). The window's WarmingController
(client/ui/warming/warming_controller.py) only adapts it: labels, menus, timers.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from client.backends.base import Backend
from client.core.budget import TOKENS_PER_MESSAGE, prompt_budget
from client.core.conversation import ChatMessage, ChatRequest
from client.core.images import ImagePart, estimate_image_tokens
from client.core.prediction import ModelState, Prediction, TtftPredictor
from client.services.chat.session import ChatSession
from client.services.chat.turn_state import StateChanged, TurnState
from client.services.events import AnswerFinished, EventBus, TurnStarted
from client.services.planning.planner import RequestPlan, Route
from client.services.planning.tokenize import PromptTokenCounter
from client.services.servers.engine_idle import Engine
from client.services.servers.model_status import DEFAULT_KEEP_ALIVE, WarmSettings
from client.services.warming.ttft_learning import LEARNED_KEY as LEARNED_KEY
from client.services.warming.ttft_learning import TtftLearning
from client.services.warming.type_ahead import TypeAhead
from client.services.warming.warming import WARM_PROMPT, KeepAliveWarmer
from client.store.settings import Settings

log = logging.getLogger(__name__)

KEEP_ALIVE_KEY = "keep_alive"  # settings: "30m", "1h" ... or None (let the server unload it)
PROMPT_BUDGET_KEY = "prompt_budget"  # settings: tokens, or None (from the model's context)
# An opened conversation's prefix is warmed only when reading it would not keep the
# server busy long: a cancelled prefill keeps a server busy until it notices (the local
# engine: about one batch; some servers: to the end), and a question sent in another
# conversation would wait for it. Typing in the conversation warms it anyway.
OPENED_WARM_MAX_MS = 1500.0  # predicted prefill of the conversation, once measured
OPENED_WARM_MAX_TOKENS = 1000  # before any request of the model was measured
_UNCOUNTED = object()


@dataclass(frozen=True, slots=True)
class Draft:
    """The draft's prediction as last shown: matched against the question sent."""

    text: str
    tokens: int
    predicted_ms: float | None


class WarmingPolicy:
    def __init__(self, store: Settings | None = None, learning: TtftLearning | None = None) -> None:
        self.store = store
        self.learning = learning or TtftLearning(store)  # the predictors, per server and model
        budget = self._stored(PROMPT_BUDGET_KEY, None)
        self.budget_setting = budget if isinstance(budget, int) else None
        keep_alive = self._stored(KEEP_ALIVE_KEY, DEFAULT_KEEP_ALIVE)
        if not isinstance(keep_alive, str | int | None):  # a hand-edited row
            keep_alive = DEFAULT_KEEP_ALIVE
        self.warmer = KeepAliveWarmer(None, None, WarmSettings(keep_alive=keep_alive))
        self.predictor = TtftPredictor()  # the current model's (one per server and model)
        self._first_token_seen = False
        self.counter: PromptTokenCounter | None = None
        self.context_length: int | None = None
        self.loading_since = 0.0  # monotonic time the model began loading; 0: not loading
        self._session: ChatSession | None = None
        self._base_tokens = 0  # conversation tokens the server has not processed yet
        self._counted_for: object = _UNCOUNTED  # the conversation _base_tokens is for
        self._context: tuple[list[ChatMessage], list[int | None]] | None = None
        self._context_for: object = _UNCOUNTED
        self._draft: Draft | None = None
        self._sent: Draft | None = None
        # The images waiting in the composer (the window's attachments set it): their
        # prompt tokens are part of the draft's predicted wait.
        self.draft_images: Callable[[], Sequence[ImagePart]] = tuple
        # Type-ahead (client/ui/warming/type_ahead_controller.py): the draft's request's
        # tokens the server has not read yet; None: no read of it, count them all.
        self.draft_unread: Callable[[str], int | None] = lambda _text: None
        # The draft's reads (the controller drives them); the session's slot hint too.
        self.type_ahead = TypeAhead()

    # --- the session ----------------------------------------------------------------
    def attach(self, session: ChatSession) -> None:
        """What the session asks of warming: the model's state, its load time, the
        keep-alive to send, the predicted wait, what the prompt cache holds, the slot
        that read the question."""
        self._session = session
        session.model_state_provider = self.warmer.model_state
        session.load_estimate = lambda: self.predictor.load_ms  # the loading stage's "about"
        session.ttft_estimate = self._predict_ms
        session.prompt_cache = self.warmer.cached_prompt
        session.slot_hint = self.type_ahead  # the question goes to its reads' slot
        session.configure(keep_alive=self.warmer.request_keep_alive)

    def retarget(self, session: ChatSession, engine: Engine | None, reason: str) -> None:
        """The session's server or model changed: its counter, predictor and warm-up."""
        self.attach(session)
        self.counter = PromptTokenCounter.for_backend(session.backend, session.model)
        session.token_counter = self.counter
        self._counted_for = _UNCOUNTED
        self._choose_predictor(session)
        self.warmer.set_target(session.backend, session.model, engine=engine, reason=reason)

    def _choose_predictor(self, session: ChatSession) -> None:
        """Each model has its own prefill rate: its own predictor, restored from
        what earlier sessions learned of it."""
        self.predictor = self.learning.predictor(session.route)

    def predict_for(self, session: ChatSession) -> None:
        """The session's plans predict their wait from its model's predictor, without
        warming it (`tachy chat`: the plan line says the predicted wait)."""
        self._choose_predictor(session)
        session.ttft_estimate = self._predict_ms

    def _predict_ms(self, tokens: int) -> float | None:
        """The plan's predicted wait for this many prompt tokens not in the cache."""
        prediction = self.predictor.predict(tokens, self.warmer.state)
        return prediction.ttft_ms if prediction is not None else None

    # --- settings -------------------------------------------------------------------
    def set_keep_alive(self, value: str | int | None) -> None:
        self._save(KEEP_ALIVE_KEY, value)
        self.warmer.update_settings(WarmSettings(keep_alive=value))
        if self._session is not None:
            self._session.configure(keep_alive=self.warmer.request_keep_alive)

    def set_budget_setting(self, tokens: int | None) -> None:
        self._save(PROMPT_BUDGET_KEY, tokens)
        self.budget_setting = tokens
        self.apply_budget()

    async def load_budget(self, route: Route) -> bool:
        """The model's context length, read from its server; the budget follows it.
        True when the session still uses that model (its budget was applied)."""
        self.context_length = None
        self.apply_budget()
        try:
            self.context_length = await route.backend.context_length(route.model)
        except Exception as error:  # unknown: the whole conversation is sent, as before
            log.info("context length of %s not known: %s", route.model, error)
        session = self._session
        if session is None or session.model != route.model:
            return False
        self.apply_budget()
        return True

    def apply_budget(self) -> None:
        if self._session is not None:
            budget = prompt_budget(self.context_length, setting=self.budget_setting)
            self._session.configure(prompt_budget=budget)

    def _stored(self, key: str, default: object) -> object:
        if self.store is None:
            return default
        try:
            return self.store.get(key, default)
        except Exception as error:  # a damaged settings table must not stop the app
            log.warning("reading setting %s: %s", key, error)
            return default

    def _save(self, key: str, value: object) -> None:
        if self.store is None:
            return
        try:
            self.store.set(key, value)
        except Exception as error:
            log.warning("saving setting %s: %s", key, error)

    def save_learned(self) -> None:
        self.learning.save()

    # --- the model's state ----------------------------------------------------------
    def note_state(self, state: ModelState | None) -> None:
        if state is ModelState.LOADING and not self.loading_since:
            self.loading_since = time.monotonic()
        elif state is not ModelState.LOADING:
            self.loading_since = 0.0

    # --- the draft ------------------------------------------------------------------
    @property
    def draft(self) -> Draft | None:
        """The draft as last predicted (None: empty)."""
        return self._draft

    def predict_draft(self, text: str) -> Prediction | None:
        """Per keystroke: a cached token count and a few multiplies (no I/O)."""
        if not text.strip():  # (sending clears the composer: the draft sent stays)
            return None
        count = self.counter.count_text(text) if self.counter else len(text) // 4 + 1
        images = self._image_tokens(self.draft_images())
        tokens = self._base_tokens + count + TOKENS_PER_MESSAGE + images
        unread = self.draft_unread(text)
        tokens = tokens if unread is None else unread + images
        loading_ms = (time.monotonic() - self.loading_since) * 1000 if self.loading_since else 0
        prediction = self.predictor.predict(tokens, self.warmer.state, loading_ms)
        predicted = prediction.ttft_ms if prediction is not None else None
        self._draft = Draft(text.strip(), tokens, predicted)
        return prediction

    def learned_image_side(self, backend: Backend, model: str) -> int | None:
        """The longest side worth sending to this model's encoder, as its server's count
        of a first image showed (None: not learned)."""
        counter = self.counter
        if counter is None or not counter.counts_for(backend, model):
            return None
        return counter.useful_side

    def images_estimated(self) -> bool:
        """The draft's images are counted by the 512 px tile rule, not yet at the rate
        the server showed (the prediction says it is an estimate)."""
        if not self.draft_images():
            return False
        return self.counter is None or not self.counter.images_learned

    def _image_tokens(self, images: Sequence[ImagePart]) -> int:
        if self.counter is not None:
            return self.counter.image_tokens(images)
        return sum(estimate_image_tokens(image) for image in images)

    def needs_recount(self, conversation: int | None) -> bool:
        return conversation != self._counted_for

    def recount_base(self, session: ChatSession, conversation: int | None, draft: str) -> None:
        """Tokens of the next request's start the server has not processed (its prompt
        cache holds what it answered or was warmed with, as the plan counts it). Runs
        on conversation changes, not keystrokes."""
        self._counted_for = conversation
        self._context = None  # new messages or another conversation: read it again
        self._base_tokens = 0
        plan = self.next_plan(session, conversation, draft) if conversation is not None else None
        if plan is not None:
            count = session.token_counter
            question = sum(count(m) for m in plan.messages[plan.prefix_length :])
            self._base_tokens = max(plan.new_prompt_tokens - question, 0)

    def worth_warming_opened(self) -> bool:
        """Whether an opened conversation's prefix is short enough to warm."""
        tokens = self._base_tokens  # what the server has not read of this conversation
        prediction = self.predictor.predict(tokens, ModelState.WARM)
        if prediction is None:
            return tokens <= OPENED_WARM_MAX_TOKENS
        return prediction.ttft_ms <= OPENED_WARM_MAX_MS

    def next_plan(self, session: ChatSession, conversation: int | None, draft: str) -> RequestPlan:
        """The plan the next question will get (the draft, else a short stand-in):
        the session plans it as it will plan the request when it is sent, so the
        warmed prefix is that request's start. Reads the history only when it changed.
        The conversation's tools, when known without starting a server, go with it
        and count in its wait, as they will in the turn's (tool_step.py)."""
        if self._context is None or self._context_for != conversation:
            self._context = session.stored_context(conversation)
            self._context_for = conversation
        history, ids = self._context
        return session.plan_ahead(history, draft.strip() or WARM_PROMPT, ids, conversation)

    def prefix_provider(
        self, current: Callable[[], tuple[ChatSession | None, int | None, str]]
    ) -> None:
        """The warmer asks `current()` for the session, conversation and draft, and
        warms the start of the request they would send: its tools and messages."""

        def next_prefix() -> ChatRequest | None:
            session, conversation, draft = current()
            if session is None:
                return None
            plan = self.next_plan(session, conversation, draft)
            return ChatRequest(plan.route.model, list(plan.prefix), tools=plan.tools)

        self.warmer.prefix_provider = next_prefix

    # --- turns (the root's events) ---------------------------------------------------
    def subscribe(self, bus: EventBus) -> None:
        bus.subscribe(TurnStarted, self.on_turn_started)
        bus.subscribe(StateChanged, self.on_state)
        bus.subscribe(AnswerFinished, self.on_answer)

    def on_turn_started(self, event: TurnStarted) -> None:
        draft = self._draft
        asked = event.kind in ("ask", "edit") and draft is not None
        sent = draft if asked and draft is not None and draft.text == event.question else None
        self._sent, self._draft = sent, None
        self.learning.expect(*((sent.tokens, sent.predicted_ms) if sent else (None, None)))
        self._first_token_seen = False
        self.warmer.user_request_started()  # a warm-up in flight is cancelled: ours goes now

    def on_state(self, event: StateChanged) -> None:
        if event.state in (TurnState.THINKING, TurnState.ANSWERING) and not self._first_token_seen:
            self._first_token_seen = True
            self.warmer.first_token_received()

    def on_answer(self, event: AnswerFinished) -> None:
        """The warmer hears the end (the predictor learns in TtftLearning)."""
        ok = event.metrics.ttft_ms is not None
        plan = event.plan
        prompt, tools = (list(plan.messages), plan.tools) if plan is not None else (None, ())
        self.warmer.user_request_finished(
            ok, prompt, server_answered=event.server_answered, tools=tools
        )
        if ok:
            self._learn_image_tokens(event)

    def _learn_image_tokens(self, event: AnswerFinished) -> None:
        """The server's count of a first question with images: the counter's rate."""
        route, request, counter = event.route, event.request, self.counter
        if route is None or request is None or counter is None:
            return
        if counter.counts_for(route.backend, route.model):
            counter.learn_images(request.messages, event.metrics.prompt_tokens)

    async def aclose(self) -> None:
        self.save_learned()
        await self.warmer.aclose()
