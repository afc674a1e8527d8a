"""Keeps the model warm and predicts the wait, in the window.

WarmingController owns the KeepAliveWarmer, the TTFT predictor and the prompt token
counter, and wires them to the widgets:
- warming at start, on a server or model change and when the user starts typing;
  the warm-up carries the prefix of the draft's plan (client.services.planning.planner: the
  server's prompt cache then holds the request's start before it is sent), and
  staying a second on another conversation warms that one;
- the model's state next to its name ("warm · 28 min left"), refreshed every 30 s;
- a keep-alive and prompt-budget menu in the server bar (stored in client.store settings);
- the predicted time to first token under the composer, on every keystroke (cached
  token counts and arithmetic only: no network call on that path);
- the session's prompt budget from the model's context length, and a marker in the
  chat where history was cut.
Everything else (the Qt-free logic) lives in client.services and client.core.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QMenu, QToolButton, QWidget

from client.core.budget import TOKENS_PER_MESSAGE, prompt_budget
from client.core.conversation import ChatMessage
from client.core.events import TokenKind
from client.core.prediction import ModelState, TtftPredictor
from client.services.chat.generation import Generation
from client.services.chat.session import ChatSession
from client.services.planning.planner import RequestPlan, Route
from client.services.planning.tokenize import PromptTokenCounter
from client.services.servers.model_status import DEFAULT_KEEP_ALIVE, ModelStatus, WarmSettings
from client.services.warming.warming import WARM_PROMPT, KeepAliveWarmer
from client.ui.chat.run_listener import ChainedListener
from client.ui.common.async_errors import KeptTasks, report
from client.ui.common.error_text import error_text
from client.ui.common.locale_text import number
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.status_text import model_state_text, policy_text, prediction_text
from client.ui.servers.engine_sleep_controller import EngineSleepController
from client.ui.warming.warming_menu import BUDGET_CHOICES, KEEP_ALIVE_CHOICES, add_choices

log = logging.getLogger(__name__)

KEEP_ALIVE_KEY = "keep_alive"  # settings: "30m", "1h" ... or None (let the server unload it)
PROMPT_BUDGET_KEY = "prompt_budget"  # settings: tokens, or None (from the model's context)
TYPING_WARM_MS = 300  # the first keystroke warms this soon after; later ones ride along
# An opened conversation's prefix is warmed once the user stays on it this long: a
# server that queues requests (the local engine) would otherwise make the user's
# request wait for the prefill of a conversation only passed through on the way.
OPENED_WARM_MS = 1000
# ... unless reading it would keep the server busy long: a cancelled prefill keeps a
# server busy until it notices (the local engine: about one batch; some servers: to the
# end), and a question sent in another conversation would wait for it. Typing in the
# conversation warms it anyway.
OPENED_WARM_MAX_MS = 1500.0  # predicted prefill of the conversation, once measured
OPENED_WARM_MAX_TOKENS = 1000  # before any request of the model was measured
REFRESH_MS = 30_000  # "warm · N min left" is re-read this often
# The predictor's samples per server and model, so a restart predicts from the start.
LEARNED_KEY = "ttft_learned"  # settings key: "ttft_learned <server> <model>"
SAVE_DELAY_MS = 200  # saved this long after an answer ends: its last paint comes first
CUT_MARKER = QT_TRANSLATE_NOOP("WarmingController", "Earlier messages not sent: context budget")
_UNCOUNTED = object()


class WarmingController(QObject):
    def __init__(self, app: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self.window = app.window
        self.page = app.page
        self.store = getattr(app.stores, "settings", None)
        keep_alive = self._stored(KEEP_ALIVE_KEY, DEFAULT_KEEP_ALIVE)
        self.budget_setting: int | None = self._stored(PROMPT_BUDGET_KEY, None)
        self.warmer = KeepAliveWarmer(None, None, WarmSettings(keep_alive=keep_alive))
        self.warmer.add_listener(self._on_status)
        self.warmer.prefix_provider = self.next_prefix
        self.predictor = TtftPredictor()  # the current model's (one per server and model)
        self._predictors: dict[str, TtftPredictor] = {}
        self._learned_key = ""
        self._asked = ""  # the model (its _learned_key) the running request went to
        self.counter: PromptTokenCounter | None = None
        self.context_length: int | None = None
        self._loading_since = 0.0
        self._base_tokens = 0  # conversation tokens the server has not processed yet
        self._counted_for: object = _UNCOUNTED  # the conversation _base_tokens is for
        self._draft: tuple[str, int, float] | None = None  # (text, tokens, predicted ms)
        self._sent: tuple[int | None, float | None] = (None, None)
        self._first_token_seen = False
        # The open conversation as stored, with its ids (read on change, not per key).
        self._context: tuple[list[ChatMessage], list[int | None]] | None = None
        self._context_for: object = _UNCOUNTED
        self._build_widgets()
        self.tasks = KeptTasks()  # reading a context length, counting tokens
        self._typing_timer = self._timer(TYPING_WARM_MS, self._typed)
        self._opened_timer = self._timer(OPENED_WARM_MS, self._warm_opened)
        self._refresh_timer = self._timer(REFRESH_MS, self._show_status, single=False)
        self._refresh_timer.start()
        self._unsaved: set[str] = set()  # keys of predictors not in the settings yet
        self._save_timer = self._timer(SAVE_DELAY_MS, self._save_learned)
        self._connect()
        self.engine_sleep = EngineSleepController(app, self.warmer, self.tasks)

    def _timer(self, interval_ms: int, slot: Callable[[], None], single: bool = True) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(single)
        timer.setInterval(interval_ms)
        timer.timeout.connect(slot)
        return timer

    def _stored(self, key: str, default: Any) -> Any:
        if self.store is None:
            return default
        try:
            return self.store.get(key, default)
        except Exception as error:  # a damaged settings table must not stop the app
            report(error, "reading settings")
            return default

    # --- widgets -------------------------------------------------------------------
    def _build_widgets(self) -> None:
        bar = self.window.server_bar
        self.state_label = QLabel("", bar)
        self.state_label.setObjectName("modelState")
        self.state_label.setAccessibleName(self.tr("Model state"))
        self.options_button = QToolButton(bar)
        self.options_button.setObjectName("warmingOptions")
        self.options_button.setText(self.tr("Keep-alive ▾"))
        # Fusion draws InstantPopup's arrow over the text's end; the ▾ in the text replaces it.
        self.options_button.setStyleSheet("QToolButton::menu-indicator { image: none; }")
        self.options_button.setToolTip(
            self.tr("How long the model stays loaded; the prompt budget")
        )
        self.options_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.options_menu = QMenu(self.options_button)
        self.keep_alive_actions = add_choices(
            self.options_menu,
            self.tr,
            KEEP_ALIVE_CHOICES,
            self.warmer.settings.keep_alive,
            self.set_keep_alive,
        )
        self.options_menu.addSeparator()
        self.budget_actions = add_choices(
            self.options_menu, self.tr, BUDGET_CHOICES, self.budget_setting, self.set_budget_setting
        )
        self.options_button.setMenu(self.options_menu)
        layout = bar.layout()
        at = layout.indexOf(bar.model_picker) + 1
        layout.insertWidget(at, self.state_label)
        layout.insertWidget(at + 1, self.options_button)
        self.prediction_label = QLabel("", self.window)
        self.prediction_label.setObjectName("ttftPrediction")
        self.prediction_label.setAccessibleName(self.tr("Predicted wait"))
        composer_parent = self.window.composer.parentWidget()
        centre = composer_parent.layout() if composer_parent is not None else None
        if centre is not None:  # the line right under the composer
            centre.addWidget(self.prediction_label)
        self.hud_label: QLabel | None = None
        hud = getattr(self.app, "hud", None)
        hud_layout = hud.layout() if isinstance(hud, QWidget) else None
        if hud_layout is not None:  # a line at the foot of the latency HUD
            self.hud_label = QLabel(self.tr("Prediction error: not measured yet"))
            self.hud_label.setObjectName("predictionError")
            self.hud_label.setWordWrap(True)  # (it set the dock's least width)
            hud_layout.addWidget(self.hud_label)

    # --- wiring --------------------------------------------------------------------
    def _connect(self) -> None:
        self.app.servers.serverChanged.connect(self._on_server_changed)
        self.window.server_bar.modelChosen.connect(self._on_model_chosen)
        self.window.composer.textChanged.connect(self._on_draft_changed)
        self.page.conversationChanged.connect(lambda _: self._recount_base())
        # At once: a question sent before the server answered goes out with the session.
        self.page.sessionChanged.connect(self._wire_session)
        # Opening a stored conversation (or a new one) does not emit conversationChanged;
        # deferred, so it runs after the page has shown it.
        panel = self.window.conversations
        for signal in (panel.chosen, panel.newRequested):
            signal.connect(lambda *_: QTimer.singleShot(0, self._on_conversation_opened))
        # After ChatPage's own slot: the question has its stored id by then.
        self.page.runner.ended.connect(self._on_ended)
        self.page.runner.listener = ChainedListener(
            self, self.page.runner.listener, "keeping the model warm"
        )

    def _on_server_changed(self, _url: str, _api: str, model: str) -> None:
        self._retarget(model, "app start" if self.warmer.backend is None else "server changed")

    def _on_model_chosen(self, model: str) -> None:
        self._retarget(model, "model changed")

    def _retarget(self, model: str, reason: str) -> None:
        session = self.page.session
        if session is None:
            return
        self._wire_session(session)
        backend = session.backend
        engine = self.app.servers.engine if session.is_local else None
        if engine is not None and not hasattr(engine, "running"):
            engine = None
        self.counter = PromptTokenCounter.for_backend(backend, model)
        session.token_counter = self.counter
        self._counted_for = _UNCOUNTED
        self._choose_predictor(session, model)
        self.warmer.set_target(backend, model, engine=engine, reason=reason)
        self._show_status()
        self.tasks.spawn(self._load_budget(session.route), "reading the model's context length")

    def _choose_predictor(self, session: ChatSession, model: str) -> None:
        """Each model has its own prefill rate: its own predictor, restored from
        what earlier sessions learned of it."""
        server = "local" if session.is_local else session.backend.base_url
        key = f"{LEARNED_KEY} {server} {model}"
        predictor = self._predictors.get(key)
        if predictor is None:
            predictor = self._predictors[key] = TtftPredictor()
            predictor.restore(self._stored(key, None))
        self.predictor, self._learned_key = predictor, key
        self._show_hud_error()

    def _save_learned(self) -> None:
        unsaved, self._unsaved = self._unsaved, set()
        for key in unsaved:
            self._save(key, self._predictors[key].learned())

    def _wire_session(self, session: ChatSession | None) -> None:
        if session is None:
            return
        session.model_state_provider = self.warmer.model_state
        session.load_estimate = lambda: self.predictor.load_ms  # the loading stage's "about"
        session.keep_alive = self.warmer.request_keep_alive
        session.ttft_estimate = self._predict_ms
        session.prompt_cache = self.warmer.cached_prompt

    def _predict_ms(self, tokens: int) -> float | None:
        """The plan's predicted wait for this many prompt tokens not in the cache."""
        prediction = self.predictor.predict(tokens, self.warmer.state)
        return prediction.ttft_ms if prediction is not None else None

    # --- settings ------------------------------------------------------------------
    def set_keep_alive(self, value: str | int | None) -> None:
        self._save(KEEP_ALIVE_KEY, value)
        self.warmer.update_settings(WarmSettings(keep_alive=value))
        self.engine_sleep.keep_alive_changed()  # the local engine unloads after it idle
        if self.page.session is not None:
            self.page.session.keep_alive = self.warmer.request_keep_alive
        self._show_status()
        if value is not None:
            self.warmer.warm("keep-alive changed")

    def set_budget_setting(self, tokens: int | None) -> None:
        self._save(PROMPT_BUDGET_KEY, tokens)
        self.budget_setting = tokens
        self._apply_budget()

    def _save(self, key: str, value: Any) -> None:
        if self.store is not None:
            try:
                self.store.set(key, value)
            except Exception as error:
                report(error, "saving settings")

    async def _load_budget(self, route: Route) -> None:
        self.context_length = None
        self._apply_budget()
        try:
            self.context_length = await route.backend.context_length(route.model)
        except Exception as error:  # unknown: the whole conversation is sent, as before
            log.info("context length of %s not known: %s", route.model, error)
        if self.page.session is not None and self.page.session.model == route.model:
            self._apply_budget()
            self._on_conversation_opened()  # the one reopened at start, now with its budget

    def _apply_budget(self) -> None:
        session = self.page.session
        if session is not None:
            session.prompt_budget = prompt_budget(self.context_length, setting=self.budget_setting)

    # --- model state ---------------------------------------------------------------
    def _on_status(self, status: ModelStatus) -> None:
        if status.state is ModelState.LOADING and not self._loading_since:
            self._loading_since = time.monotonic()
        elif status.state is not ModelState.LOADING:
            self._loading_since = 0.0
        self._show_status()
        self._show_prediction()

    def _show_status(self) -> None:
        self.state_label.setText(model_state_text(self.warmer.status))
        warmer = self.warmer
        tip = policy_text(warmer.policy, warmer.settings.keep_alive, warmer.server_name)
        if error := self.warmer.last_error:
            failed = self.tr("The last warm-up failed: {error}")
            tip += "\n" + failed.format(error=error_text(error))
        self.state_label.setToolTip(tip)
        self.options_button.setToolTip(tip)

    # --- the draft -----------------------------------------------------------------
    def _on_draft_changed(self) -> None:
        text = self.window.composer.toPlainText()
        if text.strip() and not self._typing_timer.isActive():
            self._typing_timer.start()
        self._show_prediction(text)

    def _typed(self) -> None:
        """The user started typing: warm the model and fetch the draft's token count."""
        self._warm("typing")
        if self.page.conversation_id != self._counted_for:  # another conversation opened
            self._recount_base()
        text = self.window.composer.toPlainText()
        if self.counter is not None and text.strip():
            self.tasks.spawn(self.counter.prepare([ChatMessage("user", text)]), "counting tokens")

    def _show_prediction(self, text: str | None = None) -> None:
        """Per keystroke: a cached count and a few multiplies (no I/O)."""
        if text is None:
            text = self.window.composer.toPlainText()
        if not text.strip():
            self.prediction_label.setText("")
            return
        count = self.counter.count_text(text) if self.counter else len(text) // 4 + 1
        tokens = self._base_tokens + count + TOKENS_PER_MESSAGE
        loading_ms = (time.monotonic() - self._loading_since) * 1000 if self._loading_since else 0
        prediction = self.predictor.predict(tokens, self.warmer.state, loading_ms)
        if prediction is None:
            self.prediction_label.setText("")
            self._draft = (text.strip(), tokens, -1.0)
            return
        self._draft = (text.strip(), tokens, prediction.ttft_ms)
        self.prediction_label.setText(prediction_text(prediction))

    def _recount_base(self) -> None:
        """Tokens of the next request's start the server has not processed (its prompt
        cache holds what it answered or was warmed with, as the plan counts it). Runs
        on conversation changes, not keystrokes."""
        conversation = self.page.conversation_id
        self._counted_for = conversation
        self._context = None  # new messages or another conversation: read it again
        self._base_tokens = 0
        try:
            plan = self.next_plan() if conversation is not None else None
        except Exception as error:  # only the prediction: the chat goes on
            report(error, "reading the conversation")
            plan = None
        if plan is not None and self.page.session is not None:
            count = self.page.session.token_counter
            question = sum(count(m) for m in plan.messages[plan.prefix_length :])
            self._base_tokens = max(plan.new_prompt_tokens - question, 0)
        self._show_prediction()

    # --- prefix warming --------------------------------------------------------------
    def _warm(self, reason: str) -> None:
        try:
            task = self.warmer.warm(reason)
        except Exception as error:  # the chat works without warming
            report(error, "keeping the model warm")
            return
        if task is not None:  # a warmed prefix is no longer part of the predicted wait
            task.add_done_callback(self._warm_up_done)

    def _warm_opened(self) -> None:
        tokens = self._base_tokens  # what the server has not read of this conversation
        prediction = self.predictor.predict(tokens, ModelState.WARM)
        if prediction is None:
            too_long = tokens > OPENED_WARM_MAX_TOKENS
        else:
            too_long = prediction.ttft_ms > OPENED_WARM_MAX_MS
        if not too_long:
            self._warm("conversation opened")

    def _warm_up_done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():  # a request went out, or the app closes
            return
        try:
            self._recount_base()
        except Exception as error:  # only the prediction: never break the chat
            report(error, "predicting the wait")

    def next_plan(self) -> RequestPlan | None:
        """The plan the next question will get (the draft, else a short stand-in):
        the session plans it as it will plan the request when it is sent, so the
        warmed prefix is that request's start. Reads the history only when it changed."""
        session = self.page.session
        if session is None:
            return None
        conversation = self.page.conversation_id
        if self._context is None or self._context_for != conversation:
            self._context = session.stored_context(conversation)
            self._context_for = conversation
        draft = self.window.composer.toPlainText().strip() or WARM_PROMPT
        history, ids = self._context
        return session.plan_question(history, draft, ids)

    def next_prefix(self) -> list[ChatMessage] | None:
        """What the next question's request will start with (the warmer's prefix_provider)."""
        plan = self.next_plan()
        return list(plan.prefix) if plan is not None else None

    # --- requests ------------------------------------------------------------------
    def request_started(self, generation: Generation) -> None:
        self._first_token_seen = False
        draft = self._draft
        asked = self.page.last_question
        if draft is not None and generation.kind in ("ask", "edit") and draft[0] == asked:
            self._sent = (draft[1], draft[2] if draft[2] >= 0 else None)
        else:
            self._sent = (None, None)
        self._draft = None
        self._asked = self._learned_key
        self.prediction_label.setText("")
        self.warmer.user_request_started()  # a warm-up in flight is cancelled: ours goes now

    def token(self, _kind: TokenKind, _chars: int, _at_ns: int) -> None:
        if not self._first_token_seen:
            self._first_token_seen = True
            self.warmer.first_token_received()

    def request_finished(self, generation: Generation) -> None:
        finished = generation.finished
        metrics = finished.metrics if finished is not None else None
        ok = metrics is not None and metrics.ttft_ms is not None
        fitted = generation.fitted
        self.warmer.user_request_finished(ok, fitted.messages if fitted is not None else None)
        if metrics is None or not ok:  # no first token: nothing to learn
            return
        tokens, predicted = self._sent
        if tokens is None and generation.fitted is not None:
            tokens = generation.fitted.prompt_tokens
        # The model it was sent to learns: another may have been chosen since.
        predictor = self._predictors.get(self._asked, self.predictor)
        predictor.observe_metrics(
            metrics, tokens, cold=bool(generation.cold), predicted_ms=predicted
        )
        self._show_hud_error()
        if self._asked in self._predictors:
            self._unsaved.add(self._asked)
            self._save_timer.start()

    def _show_hud_error(self) -> None:
        if self.hud_label is None:
            return
        error = self.predictor.median_error_pct()
        if error is None:
            self.hud_label.setText(self.tr("Prediction error: not measured yet"))
            return
        count = self.predictor.error_count
        requests = self.tr("{n} requests").format(n=number(count))
        if count == 1:
            requests = self.tr("1 request")
        text = self.tr("Predicted vs actual first token: median error {error} % ({requests})")
        self.hud_label.setText(text.format(error=number(error), requests=requests))

    def _on_conversation_opened(self) -> None:
        self._recount_base()
        self._opened_timer.start()  # then its prefix is warmed, if the server lacks it
        try:
            self._mark_stored_cut()
        except Exception as error:  # only a marker: the conversation is shown anyway
            report(error, "reading the conversation")

    def _mark_stored_cut(self) -> None:
        """Redraw the budget marker of a reopened conversation: the cut its last request
        had, planned again from the stored messages with the session's budget."""
        session, conversation = self.page.session, self.page.conversation_id
        if session is None or conversation is None:
            return
        plan = session.plan_of_last_question(conversation)
        if plan is None:
            return
        cut = plan.cut.first_kept_id
        if cut is not None and self.window.chat_view.has_message(cut):
            self.window.chat_view.mark_cut(cut, self.tr(CUT_MARKER))

    def _on_ended(self, generation: Generation, _key: int) -> None:
        cut = generation.cut_before_message_id
        if cut is not None and self.window.chat_view.has_message(cut):
            self.window.chat_view.mark_cut(cut, self.tr(CUT_MARKER))
        self._recount_base()

    async def aclose(self) -> None:
        for timer in (self._typing_timer, self._opened_timer, self._refresh_timer):
            timer.stop()
        self._save_timer.stop()
        self._save_learned()
        await self.tasks.aclose()
        await self.warmer.aclose()


def attach_warming(app: Any) -> WarmingController | None:
    try:
        return WarmingController(app, app.window)
    except Exception as error:  # the chat works without warming
        report(error, "keeping the model warm")
        return None
